"""Request parsing and response shapes of the game API.

Input serializers are strict: unknown fields and wrong JSON types are refused (``"5"`` is not
a number, ``true`` is not a column), because a silently ignored typo in a third-party client
("crad") is worse than a clear 400.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.api.refusals import engine_error_detail
from games.deal_choice import DealChoice
from games.engine.cards import parse_card
from games.engine.deals import PYSOL_MAX_GAME_NUMBER, PYSOL_MIN_GAME_NUMBER
from games.engine.errors import DealCodeError
from games.engine.resolve import COPIES
from games.history import Command
from games.models import (
    DAILY_LATE_DAYS,
    DifficultyBand,
    GameMode,
    GameStatus,
    daily_late_playable,
)
from games.variants import (
    DEFAULT_VARIANT,
    UnknownVariantError,
    normalise_deal_code,
    offered_variant_names,
    variant_choices,
    variant_named,
)
from infrastructure.serializers import StrictCharField, StrictSerializer

MAX_SEED = 2**63 - 1
# The most columns any variant deals (Three Blind Mice and Double Scorpion: 10); a column
# beyond the game's own is refused by the engine ("no_such_column").
MAX_COLUMNS = 10
# Places a card can be picked from: the columns, then Three Blind Mice's two reserve cards.
MAX_SOURCES = MAX_COLUMNS + 2
# A two-deck deal code is 208 characters; room for spaces around it, no more.
MAX_DEAL_CODE = 256
# Longer than any variant's name; a longer string is refused before it is looked up.
MAX_VARIANT_NAME = 32


class UnknownVariantProblem(serializers.ValidationError):
    """A variant name that is no game of the family: a 400 with its own problem code, listing
    the names there are (docs/api.md)."""

    problem_code = "unknown_variant"

    def __init__(self, name: str) -> None:
        names = ", ".join(offered_variant_names())
        super().__init__(
            {
                "variant": [
                    gettext("no variant named %(name)r; the variants: %(names)s")
                    % {"name": name[:40], "names": names}
                ]
            }
        )


class StrictIntegerField(serializers.IntegerField):
    """An integer that must be a JSON number without a fraction: no strings, no booleans."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class DayField(serializers.DateField):
    """A date as YYYY-MM-DD in ASCII digits, as documented: DRF's reader (Python's ISO one)
    would also take a week date, a date without dashes, other scripts' digits or a trailing
    newline, so that one day had many spellings."""

    def to_internal_value(self, value: Any) -> Any:
        if not isinstance(value, str) or not _DAY.fullmatch(value):
            self.fail("invalid", format="YYYY-MM-DD")
        return super().to_internal_value(value)


class GameCreateSerializer(StrictSerializer):
    mode = serializers.ChoiceField(choices=GameMode.choices, required=False)
    variant = StrictCharField(
        required=False,
        min_length=1,
        max_length=MAX_VARIANT_NAME,
        help_text="Which game of the Scorpion family (GET /api/v1/variants/); default "
        "scorpion. A seed or deal code is read in this variant. The daily and winnable modes "
        "are Scorpion only.",
    )
    seed = StrictIntegerField(required=False, min_value=0, max_value=MAX_SEED)
    code = StrictCharField(required=False, min_length=1, max_length=MAX_DEAL_CODE)
    pysol_number = StrictIntegerField(
        required=False,
        min_value=PYSOL_MIN_GAME_NUMBER,
        # PySolFC numbers go up to 10**20; we store them in a 64-bit column.
        max_value=min(PYSOL_MAX_GAME_NUMBER, MAX_SEED),
    )
    difficulty = serializers.ChoiceField(
        choices=DifficultyBand.choices,
        required=False,
        help_text="Winnable mode only: draw a deal of this difficulty band (docs/difficulty.md); "
        "absent: any band.",
    )

    date = DayField(
        required=False,
        help_text="Daily mode only: a past UTC day's daily challenge, played late (YYYY-MM-DD, "
        "from 365 days back up to yesterday): practice, never ranked, and a game of a known "
        'deal once that day\'s deal is revealed (docs/api.md, "The daily calendar"). '
        "Absent: today's.",
    )

    def is_valid(self, *, raise_exception: bool = False) -> bool:
        """Valid, and naming a variant there is (else ``unknown_variant``, raised even
        without ``raise_exception``: it is its own problem, not a field error)."""
        valid = super().is_valid(raise_exception=raise_exception)
        name = self.validated_data.get("variant") if valid else None
        if name is not None and not _known_variant(name):
            raise UnknownVariantProblem(name)
        return valid

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = self._validate_sources(attrs)
        variant = attrs.get("variant", DEFAULT_VARIANT)
        if "code" in attrs and _known_variant(variant):
            # The code is read in the chosen variant: 52 cards for one deck, 104 for two.
            try:
                attrs["code"] = normalise_deal_code(attrs["code"], variant)
            except DealCodeError as exc:
                raise serializers.ValidationError({"code": [engine_error_detail(exc)]}) from exc
        return attrs

    def _validate_sources(self, attrs: dict[str, Any]) -> dict[str, Any]:
        sources = [name for name in ("seed", "code", "pysol_number") if name in attrs]
        if len(sources) > 1:
            raise serializers.ValidationError(
                {
                    "non_field_errors": [
                        gettext("give at most one of seed, code, pysol_number, not %(given)s")
                        % {"given": sources}
                    ]
                }
            )
        mode = attrs.get("mode")
        if sources and mode not in (None, GameMode.SEEDED):
            raise serializers.ValidationError(
                {
                    "mode": [
                        gettext("a game from a %(source)s is a 'seeded' game, not %(mode)r")
                        % {"source": sources[0], "mode": mode}
                    ]
                }
            )
        if mode == GameMode.SEEDED and not sources:
            raise serializers.ValidationError(
                {"mode": [gettext("a seeded game needs a seed, a code or a pysol_number")]}
            )
        if "date" in attrs:
            today = timezone.now().date()
            if mode != GameMode.DAILY:
                raise serializers.ValidationError({"date": ["only a daily game has a date"]})
            if attrs["date"] != today and not daily_late_playable(attrs["date"], today=today):
                raise serializers.ValidationError(
                    {
                        "date": [
                            f"a past day's daily can be played from {DAILY_LATE_DAYS} days "
                            f"back up to yesterday ({today.isoformat()} is today, UTC)"
                        ]
                    }
                )
        if "difficulty" in attrs and mode != GameMode.WINNABLE:
            raise serializers.ValidationError(
                {"difficulty": [gettext("only a winnable game has a difficulty to choose")]}
            )
        return attrs

    def to_choice(self) -> DealChoice:
        data = self.validated_data
        has_source = any(name in data for name in ("seed", "code", "pysol_number"))
        mode = data.get("mode") or (GameMode.SEEDED if has_source else GameMode.RANDOM)
        return DealChoice(
            mode=mode,
            seed=data.get("seed"),
            code=data.get("code"),
            pysol_number=data.get("pysol_number"),
            variant=data.get("variant", DEFAULT_VARIANT),
            difficulty=data.get("difficulty"),
            daily_date=data.get("date"),
        )


def _known_variant(name: str) -> bool:
    try:
        variant_named(name)
    except UnknownVariantError:
        return False
    return True


class QueryIntegerField(serializers.IntegerField):
    """An integer from a query string: ASCII digits only (``int()`` would take "²" or " 5")."""

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not data.isascii() or not data.isdecimal():
            self.fail("invalid")
        return int(super().to_internal_value(data))


class QuerySerializer(StrictSerializer):
    """A query string: a value given must be valid, and each parameter comes at most once
    (a repeated one would otherwise be read as its last value, silently)."""

    def to_internal_value(self, data: Any) -> Any:
        if hasattr(data, "lists"):
            repeated = [name for name, values in data.lists() if len(values) > 1]
            if repeated:
                raise serializers.ValidationError(
                    {name: [gettext("give this parameter once")] for name in repeated}
                )
            data = {name: values[0] for name, values in data.lists()}
        return super().to_internal_value(data)


# The shortest id prefix the games list takes: about 65,000 possible prefixes, so that one
# names a single game among a player's games unless they have thousands.
MIN_ID_PREFIX = 4
_HEX = re.compile(r"[0-9a-fA-F]+")


@extend_schema_field(
    {
        "type": "string",
        "minLength": MIN_ID_PREFIX,
        "maxLength": 32,
        "pattern": f"^[0-9a-fA-F]{{{MIN_ID_PREFIX},32}}$",
    }
)
class IdPrefixField(serializers.CharField):
    """The first hex digits of a game's id, without its hyphens, in lower case."""

    def __init__(self, **kwargs: Any) -> None:
        # No trimming: " 6e49" is refused, as " 5" is for a number.
        super().__init__(trim_whitespace=False, min_length=MIN_ID_PREFIX, max_length=32, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        # Length first: a 5,000-character value is refused without being matched.
        if not MIN_ID_PREFIX <= len(value) <= 32 or not _HEX.fullmatch(value):
            self.fail("invalid")
        return value.lower()


class GameListQuerySerializer(QuerySerializer):
    """The query of ``GET /games/``."""

    status = serializers.ChoiceField(choices=GameStatus.choices, required=False)
    mode = serializers.ChoiceField(choices=GameMode.choices, required=False)
    variant = serializers.ChoiceField(choices=variant_choices(), required=False)
    id_prefix = IdPrefixField(
        required=False,
        error_messages={
            "invalid": format_lazy(
                gettext_lazy(
                    "{most} to 32 hex digits (0-9, a-f): the start of a game's id without its "
                    "hyphens, e.g. 6e495f3a"
                ),
                most=MIN_ID_PREFIX,
            )
        },
        help_text=f"Only the games whose id starts with these {MIN_ID_PREFIX} to 32 hex digits "
        "(the id without its hyphens; either case), e.g. 6e495f3a.",
    )
    page = QueryIntegerField(required=False, min_value=1, max_value=10**6)
    page_size = QueryIntegerField(required=False, min_value=1, max_value=100)


# The largest version a game can reach (Game.version is a PositiveIntegerField).
MAX_VERSION = 2**31 - 1


class EventsQuerySerializer(QuerySerializer):
    """The query of ``GET /games/{id}/events/``: a cursor, not a page number."""

    after = QueryIntegerField(
        required=False, min_value=0, help_text="Events after this seq (default 0: from the first)."
    )
    limit = QueryIntegerField(
        required=False, min_value=1, max_value=1000, help_text="At most this many (default 100)."
    )


class StatesQuerySerializer(QuerySerializer):
    """The query of ``GET /games/{id}/states/``."""

    start = QueryIntegerField(
        required=False, min_value=0, help_text="The first version wanted (default 0, the deal)."
    )
    limit = QueryIntegerField(
        required=False, min_value=1, max_value=100, help_text="At most this many (default 50)."
    )


class CommandSerializer(StrictSerializer):
    type = serializers.ChoiceField(choices=["move", "deal", "undo", "redo", "resign"])
    card = StrictCharField(required=False, max_length=8)
    to = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=MAX_COLUMNS - 1,
        help_text="The destination column, 0-based (0 to the game's column count - 1).",
    )
    expected_version = StrictIntegerField(
        required=False, allow_null=True, min_value=0, max_value=MAX_VERSION
    )
    copy = serializers.ChoiceField(
        choices=list(COPIES),
        required=False,
        allow_null=True,
        help_text="Which of two face-up copies of the card lying in the column it is taken "
        "from (`from`): `upper` (the default, nearer the top) or `lower` (it carries more "
        "cards). Two-deck variants only; hints name it where it is needed.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["type"] == "move" and "card" not in attrs:
            raise serializers.ValidationError({"card": [gettext('a move names a card, e.g. "8H"')]})
        if attrs["type"] != "move":
            extra = [name for name in ("card", "to", "from", "copy") if attrs.get(name) is not None]
            if extra:
                raise serializers.ValidationError(
                    {
                        name: [gettext("only a move takes %(field)s") % {"field": name}]
                        for name in extra
                    }
                )
        return attrs

    def to_command(self) -> Command:
        data = self.validated_data
        card = parse_card(data["card"]) if data["type"] == "move" else None
        return Command(
            type=data["type"],
            card=card,
            to=data.get("to"),
            source=data.get("from"),
            copy=data.get("copy"),
        )


# "from" is a Python keyword, so it cannot be declared as a class attribute.
CommandSerializer._declared_fields["from"] = StrictIntegerField(
    required=False,
    allow_null=True,
    min_value=0,
    max_value=MAX_SOURCES - 1,
    help_text="The column the card is taken from, 0-based like `to` (reserve card i: the "
    "column count + i). Needed only in the two-deck variants, when both copies of the card "
    "could move (else `ambiguous`).",
)


# The bodies almost every command has, read without a serializer (DRF copies its fields for
# every instance: a fifth of a command's own CPU). Anything else goes to CommandSerializer.
_PLAIN_KEYS = frozenset({"type", "card", "to", "expected_version"})
_PLAIN_MAX_VERSION = 2**31 - 1  # Game.version's column


def command_from_body(data: Any) -> tuple[Command, int | None]:
    """The command of a request body and its ``expected_version``, or a ValidationError.

    ``_plain_command`` takes the common well-formed bodies only, and gives exactly what
    ``CommandSerializer`` gives them (a property test holds them together); every other body,
    including every invalid one, goes through the serializer, whose errors are the API's.
    """
    plain = _plain_command(data)
    if plain is not None:
        return plain
    serializer = CommandSerializer(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.to_command(), serializer.validated_data.get("expected_version")


def _plain_command(data: Any) -> tuple[Command, int | None] | None:
    if type(data) is not dict or not data.keys() <= _PLAIN_KEYS:
        return None
    version = data.get("expected_version")
    if version is not None and (type(version) is not int or not 0 <= version <= _PLAIN_MAX_VERSION):
        return None
    kind = data.get("type")
    if kind == "move":
        card, to = data.get("card"), data.get("to")
        if type(card) is not str or not 2 <= len(card) <= 3 or not card.isascii():
            return None
        if not card.isalnum() or (
            to is not None and (type(to) is not int or not 0 <= to < MAX_COLUMNS)
        ):
            return None
        return Command("move", parse_card(card), to), version
    if kind in ("deal", "undo", "redo", "resign") and data.keys() <= {"type", "expected_version"}:
        return Command(kind), version
    return None
