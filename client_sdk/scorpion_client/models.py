"""Typed models of what the server answers.

Plain dataclasses: they keep the SDK's only runtime dependency for data at the standard
library, are cheap, and mypy checks them. Every model is forward compatible: fields the server
adds later are kept, untouched, in ``extra`` instead of breaking the parse; optional fields the
server leaves out become ``None``.

Cards are strings in the API's notation: rank ``A23456789TJQK`` + suit ``SHDC`` (``"TH"``).
Column indexes are 0-based, as in the API (0-6; 0-9 in the ten-column variants).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Generic, Literal, NotRequired, TypedDict, TypeVar, cast

__all__ = [
    "Action",
    "Analysis",
    "AnalysisStep",
    "BandResults",
    "Collection",
    "Column",
    "Command",
    "CommandResult",
    "CommandType",
    "Copy",
    "CreateMode",
    "Daily",
    "DailyResult",
    "DealDifficulty",
    "Difficulty",
    "Event",
    "EventType",
    "FeedEvent",
    "FeedResync",
    "Flip",
    "Game",
    "GameCreated",
    "GameEnded",
    "GameMode",
    "GameResync",
    "GameStatus",
    "GameStreamEvent",
    "GameUpdate",
    "HintMove",
    "Hints",
    "Leaderboard",
    "LeaderboardEntry",
    "Me",
    "Page",
    "RateLimit",
    "Session",
    "Stats",
    "Variant",
    "VariantFigures",
    "VariantInfo",
    "normalize_card",
]

T = TypeVar("T")

GameMode = Literal["random", "seeded", "daily", "winnable"]
"""A game's mode: ``seeded`` for a deal from a seed, a code or a PySolFC number."""
CreateMode = Literal["random", "daily", "winnable"]
"""The ``mode=`` of ``games.create`` (a seed, a code or a PySolFC number makes ``seeded``)."""
Variant = Literal[
    "scorpion",
    "wasp",
    "wasp-ii",
    "scorpion-tail",
    "three-blind-mice",
    "double-scorpion",
    "double-scorpion-3-2",
]
"""Which game of the Scorpion family a game is (``client.variants()`` says each layout of the
variants offered for new games; ``double-scorpion-3-2`` is kept for the games begun in it)."""
Copy = Literal["upper", "lower"]
"""Which of two face-up copies of a card lying in one column a move picks (two decks)."""
GameStatus = Literal["playing", "stuck", "won", "resigned", "abandoned"]
# A certified deal's difficulty band (docs/difficulty.md).
Difficulty = Literal["easy", "medium", "hard"]
# Who plays through a third-party app: a person (client), or the app by itself (bot).
AppKind = Literal["client", "bot"]
CommandType = Literal["move", "deal", "undo", "redo", "resign"]
# What the log holds: the commands, and "abandon", written by the server when the player
# starts another game of the same kind (a client never sends it).
EventType = Literal["move", "deal", "undo", "redo", "resign", "abandon"]
"""Each event of a game's history is one accepted command."""


# What the solver says of a finished game (``Analysis``).
AnalysisDeal = Literal["won", "lost", "unknown"]
AnalysisOutcome = Literal["won", "unwinnable", "slipped", "ended_winnable", "unknown"]


# A command's body: ``{"type": "move", "card": "8H"}``, ``{"type": "move", "card": "KH",
# "to": 4}``, ``{"type": "deal"}``, ``{"type": "undo"}``, ... ``from`` (a keyword, hence the
# functional form) picks the column a card is taken from, in the two-deck variants when both
# copies of the card could move.
Command = TypedDict(
    "Command",
    {
        "type": CommandType,
        "card": NotRequired[str],
        "to": NotRequired[int],
        "from": NotRequired[int],
        "copy": NotRequired[Copy],
    },
)


ActionType = Literal["move", "deal"]
"""What an undo reverses or a redo replays."""

# These are the values this SDK knows. The readers do not refuse another one (a newer server
# may add a mode): it is kept as the string the server sent, outside the Literal.

PLAYING = "playing"
STUCK = "stuck"
WON = "won"
RESIGNED = "resigned"
# Left for another game of the same kind, or restarted (docs/api.md): final too.
ABANDONED = "abandoned"
FINISHED_STATUSES = frozenset({WON, RESIGNED, ABANDONED})

RANKS = "A23456789TJQK"
SUITS = "SHDC"


def normalize_card(card: str) -> str:
    """``"8h"`` -> ``"8H"``, ``"10d"`` -> ``"TD"``: the API's notation (not validated here:
    the server answers ``unknown_card`` for a code that names no card)."""
    code = card.strip().upper()
    if code.startswith("10"):
        code = "T" + code[2:]
    return code


# --- Parsing helpers: strict about types of the fields they read, lenient about absence ---


def _opt_int(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def _int(value: Any) -> int:
    result = _opt_int(value)
    if result is None:
        raise TypeError("expected an integer, got null")
    return result


def _opt_float(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value)


def _opt_str(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _str(value: Any) -> str:
    result = _opt_str(value)
    if result is None:
        raise TypeError("expected a string, got null")
    return result


def _opt_bool(value: Any) -> bool | None:
    if value is None:
        return None
    if not isinstance(value, bool):
        raise TypeError(f"expected a boolean, got {value!r}")
    return value


def _bool(value: Any, default: bool = False) -> bool:
    result = _opt_bool(value)
    return default if result is None else result


def _opt_datetime(value: Any) -> dt.datetime | None:
    text = _opt_str(value)
    if text is None:
        return None
    return dt.datetime.fromisoformat(text)


def _opt_date(value: Any) -> dt.date | None:
    text = _opt_str(value)
    if text is None:
        return None
    return dt.date.fromisoformat(text)


def _str_list(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {value!r}")
    return [_str(item) for item in value]


def _list_of(value: Any, parse: Callable[[Mapping[str, Any]], T]) -> list[T]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {value!r}")
    return [parse(_mapping(item)) for item in value]


def _mapping(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object, got {value!r}")
    return value


def _extra(data: Mapping[str, Any], known: Iterable[str]) -> dict[str, Any]:
    names = set(known)
    return {key: value for key, value in data.items() if key not in names}


# --- Games ---


@dataclass
class PlayedByApp:
    """The third-party app behind a game: the one that started it, or a bot that played it.
    ``kind`` is ``client`` (a person plays through it) or ``bot`` (it plays by itself: its
    games never rank). ``id`` and ``name`` are None if the app was deleted since."""

    kind: AppKind
    id: str | None = None
    name: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlayedByApp:
        return cls(
            kind=cast(AppKind, _str(data["kind"])),
            id=_opt_str(data.get("id")),
            name=_opt_str(data.get("name")),
            extra=_extra(data, ("kind", "id", "name")),
        )


@dataclass
class Column:
    """One tableau column: ``hidden`` face-down cards at the bottom, then ``cards`` face up,
    bottom to top."""

    hidden: int
    cards: list[str]
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def top(self) -> str | None:
        """The exposed card, or None for an empty column (or one with only hidden cards)."""
        return self.cards[-1] if self.cards else None

    @property
    def is_empty(self) -> bool:
        return self.hidden == 0 and not self.cards

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Column:
        return cls(
            hidden=_int(data["hidden"]),
            cards=_str_list(data["cards"]),
            extra=_extra(data, ("hidden", "cards")),
        )


_GAME_KEYS = (
    "id",
    "mode",
    "variant",
    "status",
    "version",
    "columns",
    "stock",
    "collected",
    "reserve",
    "moves",
    "can_undo",
    "can_redo",
    "seed",
    "code",
    "pysol_number",
    "daily_date",
    "difficulty",
    "ranked",
    "restarted_from",
    "played_by_app",
    "known_deal",
    "created_at",
    "updated_at",
    "started_at",
    "finished_at",
    "elapsed_seconds",
)


@dataclass
class Game:
    """A game as its player sees it: never a face-down card or the stock's order.

    ``status`` is ``playing``, ``stuck`` (no moves available; not final), ``won`` or
    ``resigned``. ``version`` is the number of events in the game's history; every accepted
    command adds one. ``seed``/``code`` stay None until the game is over, unless the player
    supplied them; for a daily game, finished or not, until its UTC day and the next are over.
    ``ranked``: the player's first attempt at that day's daily challenge, the only one that
    ranks (later attempts are practice; False for every other mode). ``elapsed_seconds``: from
    the first move to the end (or to the answer). ``variant``: which game of the Scorpion
    family (7 or 10 ``columns``); ``reserve``: Three Blind Mice's face-up reserve cards, picked
    from column ``len(columns) + i`` (empty in the other variants).
    the first move to the end (or to the answer). ``difficulty``: for daily and winnable
    games, the deal's band as announced when the game began (None otherwise). ``known_deal``:
    begun on a deal the player had already seen whole; it sets no personal record.
    ``played_by_app``: the third-party app that started it or a bot that played it (None for
    the player's own play); a bot's games never rank.
    """

    id: str
    mode: GameMode
    status: GameStatus
    version: int
    columns: list[Column]
    stock: int
    collected: list[str]
    moves: int
    can_undo: bool
    can_redo: bool
    variant: Variant = "scorpion"
    reserve: list[str] = field(default_factory=list)
    seed: int | None = None
    code: str | None = None
    pysol_number: int | None = None
    daily_date: dt.date | None = None
    difficulty: Difficulty | None = None
    ranked: bool = False
    restarted_from: str | None = None
    played_by_app: PlayedByApp | None = None
    known_deal: bool = False
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    elapsed_seconds: float | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def is_finished(self) -> bool:
        """Won, resigned or abandoned: final, the server accepts no more commands."""
        return self.status in FINISHED_STATUSES

    @property
    def is_won(self) -> bool:
        return self.status == WON

    @property
    def is_stuck(self) -> bool:
        return self.status == STUCK

    @property
    def is_practice(self) -> bool:
        """A later attempt at a day's daily challenge: it never ranks."""
        return self.mode == "daily" and not self.ranked

    @property
    def hidden(self) -> int:
        """Face-down cards on the table."""
        return sum(column.hidden for column in self.columns)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Game:
        return cls(
            id=_str(data["id"]),
            mode=cast(GameMode, _str(data["mode"])),
            variant=cast(Variant, _opt_str(data.get("variant")) or "scorpion"),
            reserve=_str_list(data.get("reserve")),
            status=cast(GameStatus, _str(data["status"])),
            version=_int(data["version"]),
            columns=_list_of(data["columns"], Column.from_json),
            stock=_int(data["stock"]),
            collected=_str_list(data.get("collected")),
            moves=_int(data.get("moves", 0)),
            can_undo=_bool(data.get("can_undo")),
            can_redo=_bool(data.get("can_redo")),
            seed=_opt_int(data.get("seed")),
            code=_opt_str(data.get("code")),
            pysol_number=_opt_int(data.get("pysol_number")),
            daily_date=_opt_date(data.get("daily_date")),
            difficulty=cast("Difficulty | None", _opt_str(data.get("difficulty"))),
            ranked=_bool(data.get("ranked")),
            restarted_from=_opt_str(data.get("restarted_from")),
            played_by_app=None
            if data.get("played_by_app") is None
            else PlayedByApp.from_json(data["played_by_app"]),
            known_deal=_bool(data.get("known_deal")),
            created_at=_opt_datetime(data.get("created_at")),
            updated_at=_opt_datetime(data.get("updated_at")),
            started_at=_opt_datetime(data.get("started_at")),
            finished_at=_opt_datetime(data.get("finished_at")),
            elapsed_seconds=_opt_float(data.get("elapsed_seconds")),
            # "event" belongs to a command's answer (CommandResult), not to the game.
            extra=_extra(data, (*_GAME_KEYS, "event")),
        )

    def snapshot(self) -> Game:
        """A plain copy of this game's fields (a handle's current state, detached)."""
        return Game(**{f.name: getattr(self, f.name) for f in fields(Game)})


@dataclass
class Flip:
    """A face-down card that turned face up by itself."""

    column: int
    card: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Flip:
        return cls(column=_int(data["column"]), card=_str(data["card"]))


@dataclass
class Collection:
    """A K..A run of one suit that left the tableau."""

    column: int
    suit: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Collection:
        return cls(column=_int(data["column"]), suit=_str(data["suit"]))


_ACTION_KEYS = ("type", "card", "from", "to", "count", "dealt", "flipped", "collected")


@dataclass
class Action:
    """What a move or a deal did: the card moved (``card``, ``from_``, ``to``, ``count``) or
    the cards dealt (``dealt``, onto columns 0, 1, 2), and what followed by itself."""

    type: EventType
    card: str | None = None
    from_: int | None = None
    to: int | None = None
    count: int | None = None
    dealt: list[str] = field(default_factory=list)
    flipped: list[Flip] = field(default_factory=list)
    collected: list[Collection] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Action:
        kind = _opt_str(data.get("type")) or ("move" if data.get("card") else "deal")
        return cls(
            type=cast(EventType, kind),
            card=_opt_str(data.get("card")),
            from_=_opt_int(data.get("from")),
            to=_opt_int(data.get("to")),
            count=_opt_int(data.get("count")),
            dealt=_str_list(data.get("dealt")),
            flipped=_list_of(data.get("flipped"), Flip.from_json),
            collected=_list_of(data.get("collected"), Collection.from_json),
            extra=_extra(data, _ACTION_KEYS),
        )


@dataclass
class Event(Action):
    """One entry of a game's history (``seq`` 1, 2, ...): a ``move``, ``deal``, ``undo``
    (``undone``: the action it reversed), ``redo`` (``redone``) or ``resign``."""

    seq: int = 0
    created_at: dt.datetime | None = None
    undone: Action | None = None
    redone: Action | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Event:
        action = Action.from_json(data)
        undone = data.get("undone")
        redone = data.get("redone")
        return cls(
            type=cast(EventType, _str(data["type"])),
            card=action.card,
            from_=action.from_,
            to=action.to,
            count=action.count,
            dealt=action.dealt,
            flipped=action.flipped,
            collected=action.collected,
            seq=_int(data["seq"]),
            created_at=_opt_datetime(data.get("created_at")),
            undone=Action.from_json(_mapping(undone)) if undone is not None else None,
            redone=Action.from_json(_mapping(redone)) if redone is not None else None,
            extra=_extra(data, (*_ACTION_KEYS, "seq", "created_at", "undone", "redone")),
        )


@dataclass
class CommandResult:
    """The answer to a command: the game after it, and the event it added. ``replayed`` is
    True when the server answered a retry from its record (same ``Idempotency-Key``)."""

    game: Game
    event: Event
    replayed: bool = False


@dataclass
class HintMove:
    """A legal move: ``card`` goes from column ``from_`` onto column ``to``; ``reason`` says
    why it ranks there. Send ``from_`` with the move (``game.move(card, to, from_=...)``) in
    the two-deck variants, where two copies of a card may both be able to move, and ``copy``
    (``copy=...``) where both lie face up in that column ("upper" or "lower"; else None)."""

    card: str
    to: int
    from_: int | None = None
    reason: str | None = None
    copy: Copy | None = None
    # The reason as data (docs/api.md): each a dict with a "reason" word and the cards and
    # columns (1 to 7) involved, e.g. {"reason": "frees", "card": "6C", "column": 3}.
    details: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HintMove:
        raw_details = data.get("details")
        return cls(
            card=_str(data["card"]),
            to=_int(data["to"]),
            from_=_opt_int(data.get("from")),
            reason=_opt_str(data.get("reason")),
            copy=cast(Copy | None, _opt_str(data.get("copy"))),
            details=[dict(item) for item in raw_details if isinstance(item, Mapping)]
            if isinstance(raw_details, list)
            else [],
            extra=_extra(data, ("card", "to", "from", "copy", "reason", "details")),
        )


@dataclass
class Hints:
    """Every legal move, best first, and whether the stock can still be dealt: judged only
    on what the player can see, so it promises no win."""

    version: int
    moves: list[HintMove]
    deal: bool
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def best(self) -> HintMove | None:
        return self.moves[0] if self.moves else None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Hints:
        return cls(
            version=_int(data["version"]),
            moves=_list_of(data.get("moves"), HintMove.from_json),
            deal=_bool(data.get("deal")),
            extra=_extra(data, ("version", "moves", "deal")),
        )


# --- Post-game analysis ---


@dataclass
class AnalysisStep:
    """One command of a winning line (``{"type": "move", "card": "QD", "to": 2}`` or
    ``{"type": "deal"}``; in the other variants a move also names its ``from``) and the table
    after it (face-down cards as counts; ``variant`` and Three Blind Mice's ``reserve`` as in
    a ``Game``)."""

    command: dict[str, Any]
    columns: list[Column]
    stock: int
    collected: list[str]
    variant: Variant = "scorpion"
    reserve: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AnalysisStep:
        return cls(
            command=dict(_mapping(data["command"])),
            columns=_list_of(data.get("columns"), Column.from_json),
            stock=_int(data["stock"]),
            collected=_str_list(data.get("collected")),
            variant=cast(Variant, _opt_str(data.get("variant")) or "scorpion"),
            reserve=_str_list(data.get("reserve")),
            extra=_extra(data, ("command", "columns", "stock", "collected", "variant", "reserve")),
        )


_ACTION_CHANCE_FIELDS = (
    *("type", "card", "to", "from", "copy", "chance", "low", "high"),
    *("wins", "losses", "undecided", "samples"),
)


@dataclass
class ActionChance:
    """One legal action (``type`` "move" with ``card``, ``to`` and ``from_``, the column the card
    is taken from, or "deal") and its winning chance if every card were known: the share of
    ``samples`` deals, drawn among those consistent with what the player sees, that a solver
    seeing all their cards still wins after it; ``low``-``high`` its 95% interval. A player who
    sees only the table wins less often (about half as often, following the hints): compare
    moves with it, do not read it as the player's odds. Send ``from_`` with the move where two
    copies of a card could make it (Double Scorpion), and ``copy`` where both lie face up in
    that column."""

    type: str
    chance: float
    low: float
    high: float
    wins: int
    losses: int
    undecided: int
    samples: int
    card: str | None = None
    to: int | None = None
    from_: int | None = None
    copy: Copy | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ActionChance:
        return cls(
            type=_str(data["type"]),
            chance=float(data["chance"]),
            low=float(data["low"]),
            high=float(data["high"]),
            wins=_int(data["wins"]),
            losses=_int(data["losses"]),
            undecided=_int(data["undecided"]),
            samples=_int(data["samples"]),
            card=_opt_str(data.get("card")),
            to=_opt_int(data.get("to")),
            from_=_opt_int(data.get("from")),
            copy=cast(Copy | None, _opt_str(data.get("copy"))),
            extra=_extra(
                data,
                _ACTION_CHANCE_FIELDS,
            ),
        )


@dataclass
class Chances:
    """Winning chances per legal action of a game in play (``GET .../chances/``, docs/api.md).

    ``status`` is ``ready``, or ``pending`` while a worker computes them (then ``actions`` is
    empty and ``retry_after`` set). Fair: computed from the visible table only; each chance is
    what a player who could see every card would win (``ActionChance``)."""

    status: str
    game: str
    version: int
    samples: int | None = None
    node_budget: int | None = None
    actions: list[ActionChance] = field(default_factory=list)
    retry_after: int | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def ready(self) -> bool:
        return self.status == "ready" and self.samples is not None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Chances:
        return cls(
            status=_str(data["status"]),
            game=_str(data["game"]),
            version=_int(data["version"]),
            samples=_opt_int(data.get("samples")),
            node_budget=_opt_int(data.get("node_budget")),
            actions=_list_of(data.get("actions"), ActionChance.from_json),
            retry_after=_opt_int(data.get("retry_after")),
            extra=_extra(
                data,
                ("status", "game", "version", "samples", "node_budget", "actions", "retry_after"),
            ),
        )


@dataclass
class DealDifficulty:
    """A certified deal's difficulty with the measures behind it (docs/difficulty.md): in an
    analysis only, served once the deal is revealed. ``score`` (0 easiest to 100 hardest) is
    the one in force, ``model_score`` the formula's; ``games``: players' games blended in by
    the calibration. ``measures``: first_actions, first_actions_won, first_action_share,
    line_length, solver_nodes, playouts, playout_wins, playout_win_rate."""

    band: Difficulty
    score: int
    model_score: int
    games: int = 0
    measures: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DealDifficulty:
        return cls(
            band=cast("Difficulty", _str(data["band"])),
            score=_int(data["score"]),
            model_score=_int(data["model_score"]),
            games=_opt_int(data.get("games")) or 0,
            measures=dict(_mapping(data.get("measures") or {})),
            extra=_extra(data, ("band", "score", "model_score", "games", "measures")),
        )


@dataclass
class Analysis:
    """The solver's analysis of a finished game (``GET .../analysis/``, docs/api.md).

    ``status`` is ``ready``, or ``pending`` while a worker computes it (then only ``game`` and
    ``retry_after`` are set). ``deal``: was the deal winnable from the start (``won``, ``lost``
    or ``unknown``). ``outcome``: ``won``, ``unwinnable``, ``slipped`` (winnable at
    ``last_winnable_version``, lost by ``losing_event``), ``ended_winnable`` or ``unknown``.
    ``line``: a winning line from ``line_version``, each step with the table after it.
    ``difficulty``: the deal's difficulty and measures (daily and winnable deals, else None).
    """

    status: str
    game: str
    version: int | None = None
    deal: AnalysisDeal | None = None
    outcome: AnalysisOutcome | None = None
    last_winnable_version: int | None = None
    losing_event: Event | None = None
    line_version: int | None = None
    line: list[AnalysisStep] = field(default_factory=list)
    solver_nodes: int | None = None
    node_budget: int | None = None
    created_at: dt.datetime | None = None
    retry_after: int | None = None
    difficulty: DealDifficulty | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def ready(self) -> bool:
        return self.status == "ready"

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Analysis:
        losing = data.get("losing_event")
        rating = data.get("difficulty")
        return cls(
            status=_str(data["status"]),
            game=_str(data["game"]),
            version=_opt_int(data.get("version")),
            deal=cast("AnalysisDeal | None", _opt_str(data.get("deal"))),
            outcome=cast("AnalysisOutcome | None", _opt_str(data.get("outcome"))),
            last_winnable_version=_opt_int(data.get("last_winnable_version")),
            losing_event=Event.from_json(_mapping(losing)) if losing is not None else None,
            line_version=_opt_int(data.get("line_version")),
            line=_list_of(data.get("line"), AnalysisStep.from_json),
            solver_nodes=_opt_int(data.get("solver_nodes")),
            node_budget=_opt_int(data.get("node_budget")),
            created_at=_opt_datetime(data.get("created_at")),
            retry_after=_opt_int(data.get("retry_after")),
            difficulty=DealDifficulty.from_json(_mapping(rating)) if rating is not None else None,
            extra=_extra(
                data,
                (
                    "status",
                    "game",
                    "version",
                    "deal",
                    "outcome",
                    "last_winnable_version",
                    "losing_event",
                    "line_version",
                    "line",
                    "solver_nodes",
                    "node_budget",
                    "created_at",
                    "retry_after",
                    "difficulty",
                ),
            ),
        )


# --- Pages ---


@dataclass
class Page(Generic[T]):
    """One page of a paginated list: ``results`` and the links to its neighbours."""

    results: list[T]
    count: int | None = None
    next: str | None = None
    previous: str | None = None

    @classmethod
    def from_json(cls, data: Any, parse: Callable[[Mapping[str, Any]], T]) -> Page[T]:
        if isinstance(data, list):  # an unpaginated list is one page
            return cls(results=_list_of(data, parse), count=len(data))
        body = _mapping(data)
        return cls(
            results=_list_of(body.get("results"), parse),
            count=_opt_int(body.get("count")),
            next=_opt_str(body.get("next")),
            previous=_opt_str(body.get("previous")),
        )


# --- Daily challenge, leaderboards, statistics, account ---


@dataclass
class Daily:
    """Today's challenge for the caller: ``game`` is their latest attempt's id (or None),
    ``ranked_game`` their first attempt's, the only one that ranks (later ones are practice);
    ``solved``: some attempt, practice included, was won; ``ranked_available``: a new attempt
    would rank (False once the day's ranked attempt was had, even if deleted since).
    ``difficulty`` and ``difficulty_score``: the day's band and score (0-100), announced
    before play (None until the deal is certified and rated)."""

    date: dt.date
    game: str | None = None
    status: GameStatus | None = None
    ranked_game: str | None = None
    ranked_status: GameStatus | None = None
    solved: bool = False
    ranked_available: bool = True
    attempts: int | None = None
    deal_ready: bool | None = None
    difficulty: Difficulty | None = None
    difficulty_score: int | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Daily:
        date = _opt_date(data["date"])
        assert date is not None
        return cls(
            date=date,
            game=_opt_str(data.get("game")),
            status=cast("GameStatus | None", _opt_str(data.get("status"))),
            ranked_game=_opt_str(data.get("ranked_game")),
            ranked_status=cast("GameStatus | None", _opt_str(data.get("ranked_status"))),
            solved=_bool(data.get("solved")),
            ranked_available=_bool(data.get("ranked_available", True)),
            attempts=_opt_int(data.get("attempts")),
            deal_ready=_opt_bool(data.get("deal_ready")),
            difficulty=cast("Difficulty | None", _opt_str(data.get("difficulty"))),
            difficulty_score=_opt_int(data.get("difficulty_score")),
            extra=_extra(
                data,
                (
                    "date",
                    "game",
                    "status",
                    "ranked_game",
                    "ranked_status",
                    "solved",
                    "ranked_available",
                    "attempts",
                    "deal_ready",
                    "difficulty",
                    "difficulty_score",
                ),
            ),
        )


_ENTRY_KEYS = ("rank", "player", "time", "moves", "finished_at", "is_me")


@dataclass
class LeaderboardEntry:
    """One player's best win of a day: ``rank`` (equal time, moves and finish share it),
    ``player`` (a display name), ``time`` in seconds from the first move to the win."""

    rank: int | None = None
    player: str | None = None
    time: float | None = None
    moves: int | None = None
    finished_at: dt.datetime | None = None
    is_me: bool = False
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LeaderboardEntry:
        return cls(
            rank=_opt_int(data.get("rank")),
            player=_opt_str(data.get("player")),
            time=_opt_float(data.get("time")),
            moves=_opt_int(data.get("moves")),
            finished_at=_opt_datetime(data.get("finished_at")),
            is_me=_bool(data.get("is_me")),
            extra=_extra(data, _ENTRY_KEYS),
        )


@dataclass
class Leaderboard(Page[LeaderboardEntry]):
    """One page of a day's leaderboard (fastest first, then fewest moves), with ``me``: the
    caller's best win that day wherever it ranks (None without one)."""

    date: dt.date | None = None
    me: LeaderboardEntry | None = None

    @classmethod
    def from_json(
        cls, data: Any, parse: Callable[[Mapping[str, Any]], LeaderboardEntry] | None = None
    ) -> Leaderboard:
        page = Page.from_json(data, parse or LeaderboardEntry.from_json)
        body = data if isinstance(data, Mapping) else {}
        me = body.get("me")
        return cls(
            results=page.results,
            count=page.count,
            next=page.next,
            previous=page.previous,
            date=_opt_date(body.get("date")),
            me=LeaderboardEntry.from_json(_mapping(me)) if me is not None else None,
        )


_FIGURES_KEYS = (
    "played",
    "won",
    "resigned",
    "abandoned",
    "in_play",
    "win_rate",
    "current_streak",
    "best_streak",
    "best_time",
    "fewest_moves",
    "average_win_time",
    "clean_wins",
    "modes",
    "variants",
    "daily",
    "difficulty",
)


@dataclass
class VariantFigures:
    """The caller's record at one variant, every mode together (no streaks: those are kept
    overall and per mode). Times in seconds."""

    variant: Variant
    played: int = 0
    won: int = 0
    resigned: int = 0
    abandoned: int = 0
    in_play: int = 0
    win_rate: float | None = None
    best_time: float | None = None
    fewest_moves: int | None = None
    clean_wins: int = 0
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> VariantFigures:
        return cls(
            variant=cast(Variant, _str(data["variant"])),
            played=_opt_int(data.get("played")) or 0,
            won=_opt_int(data.get("won")) or 0,
            resigned=_opt_int(data.get("resigned")) or 0,
            abandoned=_opt_int(data.get("abandoned")) or 0,
            in_play=_opt_int(data.get("in_play")) or 0,
            win_rate=_opt_float(data.get("win_rate")),
            best_time=_opt_float(data.get("best_time")),
            fewest_moves=_opt_int(data.get("fewest_moves")),
            clean_wins=_opt_int(data.get("clean_wins")) or 0,
            extra=_extra(
                data,
                (
                    "variant",
                    "played",
                    "won",
                    "resigned",
                    "abandoned",
                    "in_play",
                    "win_rate",
                    "best_time",
                    "fewest_moves",
                    "clean_wins",
                ),
            ),
        )


@dataclass
class BandResults:
    """A player's played games on deals of one difficulty band, and their wins."""

    played: int = 0
    won: int = 0
    win_rate: float | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BandResults:
        return cls(
            played=_opt_int(data.get("played")) or 0,
            won=_opt_int(data.get("won")) or 0,
            win_rate=_opt_float(data.get("win_rate")),
            extra=_extra(data, ("played", "won", "win_rate")),
        )


@dataclass
class Stats:
    """The caller's statistics over all games; ``modes`` holds the same figures per mode
    (``random``, ``seeded``, ``daily``, ``winnable``), so the daily challenge's stand apart,
    and ``daily_practice`` (the daily challenge's later attempts of a day, which never rank).
    Times are in seconds; ``played`` counts won, resigned and abandoned games (a game left
    behind with a move in it), ``in_play`` the games still open; ``win_rate`` is won / played,
    0 to 1. ``difficulty``: played, won and win rate by difficulty band (``easy``, ``medium``,
    ``hard``) of the daily and winnable games."""

    played: int = 0
    won: int = 0
    resigned: int = 0
    abandoned: int = 0
    in_play: int = 0
    win_rate: float | None = None
    current_streak: int | None = None
    best_streak: int | None = None
    best_time: float | None = None
    fewest_moves: int | None = None
    average_win_time: float | None = None
    clean_wins: int | None = None
    modes: dict[str, Stats] = field(default_factory=dict)
    variants: list[VariantFigures] = field(default_factory=list)
    difficulty: dict[str, BandResults] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def variant(self, name: Variant) -> VariantFigures | None:
        """The figures of one variant (``"wasp"``, ...), None if the server has none."""
        return next((row for row in self.variants if row.variant == name), None)

    @property
    def daily(self) -> Stats | None:
        """The daily challenge's figures: each day's first (ranked) attempt."""
        return self.modes.get("daily")

    @property
    def daily_practice(self) -> Stats | None:
        """The daily challenge's practice attempts (after the first attempt of a day)."""
        return self.modes.get("daily_practice")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Stats:
        modes: dict[str, Stats] = {}
        raw_modes = data.get("modes")
        if isinstance(raw_modes, Mapping):
            for name, figures in raw_modes.items():
                if isinstance(figures, Mapping):
                    modes[str(name)] = Stats.from_json(figures)
        bands: dict[str, BandResults] = {}
        raw_bands = data.get("difficulty")
        if isinstance(raw_bands, Mapping):
            for name, figures in raw_bands.items():
                if isinstance(figures, Mapping):
                    bands[str(name)] = BandResults.from_json(figures)
        daily = data.get("daily")
        if isinstance(daily, Mapping) and "daily" not in modes:
            modes["daily"] = Stats.from_json(daily)
        return cls(
            played=_opt_int(data.get("played")) or 0,
            won=_opt_int(data.get("won")) or 0,
            resigned=_opt_int(data.get("resigned")) or 0,
            abandoned=_opt_int(data.get("abandoned")) or 0,
            in_play=_opt_int(data.get("in_play")) or 0,
            win_rate=_opt_float(data.get("win_rate")),
            current_streak=_opt_int(data.get("current_streak")),
            best_streak=_opt_int(data.get("best_streak")),
            best_time=_opt_float(data.get("best_time")),
            fewest_moves=_opt_int(data.get("fewest_moves")),
            average_win_time=_opt_float(data.get("average_win_time")),
            clean_wins=_opt_int(data.get("clean_wins")),
            modes=modes,
            variants=_list_of(data.get("variants"), VariantFigures.from_json),
            difficulty=bands,
            extra=_extra(data, _FIGURES_KEYS),
        )


@dataclass
class VariantInfo:
    """One game of the Scorpion family (``client.variants()``): its layout and rules in
    brief. ``build``: "suit" (a card goes on the next higher card of its suit) or
    "alternate" (of the other colour); ``empty_column``: "king" or "any"; ``reserve``: face-up
    reserve cards (a game's ``reserve``)."""

    name: Variant
    title: str
    decks: int
    columns: int
    column_sizes: list[int]
    face_down: list[int]
    stock: int
    reserve: int
    build: Literal["suit", "alternate"]
    empty_column: Literal["king", "any"]
    summary: str
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> VariantInfo:
        def ints(value: Any) -> list[int]:
            return [_int(item) for item in value] if isinstance(value, list) else []

        return cls(
            name=cast(Variant, _str(data["name"])),
            title=_str(data["title"]),
            decks=_int(data["decks"]),
            columns=_int(data["columns"]),
            column_sizes=ints(data.get("column_sizes")),
            face_down=ints(data.get("face_down")),
            stock=_int(data.get("stock", 0)),
            reserve=_int(data.get("reserve", 0)),
            build=cast(Literal["suit", "alternate"], _str(data.get("build", "suit"))),
            empty_column=cast(Literal["king", "any"], _str(data.get("empty_column", "king"))),
            summary=_opt_str(data.get("summary")) or "",
            extra=_extra(
                data,
                (
                    "name",
                    "title",
                    "decks",
                    "columns",
                    "column_sizes",
                    "face_down",
                    "stock",
                    "reserve",
                    "build",
                    "empty_column",
                    "summary",
                ),
            ),
        )


@dataclass
class Me:
    """The signed-in account; ``guest``: made by "Play now" in a browser, not signed up yet;
    ``display_name``: the name on leaderboards ("" shows the masked e-mail); ``deck``: the
    card faces the web client draws (``"classic"`` or ``"four_colour"``)."""

    id: int | str
    email: str
    date_joined: dt.datetime | None = None
    guest: bool = False
    display_name: str = ""
    deck: str = "classic"
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Me:
        raw_id = data["id"]
        if not isinstance(raw_id, int | str) or isinstance(raw_id, bool):
            raise TypeError(f"expected an id, got {raw_id!r}")
        return cls(
            id=raw_id,
            email=_opt_str(data.get("email")) or "",
            date_joined=_opt_datetime(data.get("date_joined")),
            guest=data.get("guest") is True,
            display_name=_opt_str(data.get("display_name")) or "",
            deck=_opt_str(data.get("deck")) or "classic",
            extra=_extra(data, ("id", "email", "date_joined", "guest", "display_name", "deck")),
        )


@dataclass
class Session:
    """A signed-in session of the allauth ``app`` client: ``token`` goes in
    ``X-Session-Token``; ``user`` is allauth's description of the account. The token is a
    secret: ``repr()`` leaves it out (it would end up in logs)."""

    token: str = field(repr=False)
    user: dict[str, Any] = field(default_factory=dict)

    @property
    def email(self) -> str | None:
        email = self.user.get("email")
        return email if isinstance(email, str) else None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Session:
        meta = _mapping(data["meta"])
        body = data.get("data")
        user = body.get("user") if isinstance(body, Mapping) else None
        return cls(
            token=_str(meta["session_token"]),
            user=dict(user) if isinstance(user, Mapping) else {},
        )


# --- Live streams (Server-Sent Events) ---


@dataclass
class GameUpdate:
    """A command accepted on a followed game, here or on another device: the game after it
    (``game``, at ``version``) and what it did (``event``)."""

    version: int
    game: Game
    event: Event

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameUpdate:
        game = Game.from_json(data)
        return cls(version=game.version, game=game, event=Event.from_json(_mapping(data["event"])))


@dataclass
class GameResync:
    """The whole game as it is now: sent first to a client that gave no version, or to one too
    far behind to be sent every event. Replace what you had."""

    version: int
    game: Game

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameResync:
        game = Game.from_json(data)
        return cls(version=game.version, game=game)


GameStreamEvent = GameUpdate | GameResync
"""What ``game.stream()`` yields."""


@dataclass
class GameCreated:
    """One of the player's games was created (on any device)."""

    game: Game

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameCreated:
        return cls(game=Game.from_json(data))


@dataclass
class GameEnded:
    """One of the player's games was won or resigned."""

    game: Game

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameEnded:
        return cls(game=Game.from_json(data))


_DAILY_RESULT_KEYS = ("date", "game", "status", "moves", "elapsed_seconds", "solved", "attempts")


@dataclass
class DailyResult:
    """A daily-challenge game ended: how, and the player's standing on that day."""

    date: dt.date
    game: str
    status: str
    moves: int
    elapsed_seconds: float | None
    solved: bool
    attempts: int
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DailyResult:
        date = _opt_date(data["date"])
        assert date is not None
        return cls(
            date=date,
            game=_str(data["game"]),
            status=_str(data["status"]),
            moves=_int(data.get("moves", 0)),
            elapsed_seconds=_opt_float(data.get("elapsed_seconds")),
            solved=_bool(data.get("solved")),
            attempts=_int(data.get("attempts", 0)),
            extra=_extra(data, _DAILY_RESULT_KEYS),
        )


@dataclass
class FeedResync:
    """The feed missed too much to replay it: read your lists again."""


FeedEvent = GameCreated | GameEnded | DailyResult | FeedResync
"""What ``client.me.stream()`` yields."""


@dataclass(frozen=True)
class RateLimit:
    """Where the client stands with the server's rate limit, as the last answer said it
    (``RateLimit-Limit``, ``RateLimit-Remaining``, ``RateLimit-Reset``; the tightest of the
    server's counters): ``limit`` requests a window, ``remaining`` of them left, the window
    ending ``reset`` seconds after the answer was read (``read_at``, ``time.monotonic()``)."""

    limit: int
    remaining: int
    reset: float
    read_at: float

    @property
    def resets_in(self) -> float:
        """Seconds from now until the window ends (0 once it has)."""
        return max(0.0, self.read_at + self.reset - time.monotonic())

    @classmethod
    def from_headers(cls, headers: Mapping[str, str]) -> RateLimit | None:
        """The fields of an answer, or None when it has none (or they do not parse)."""
        try:
            return cls(
                limit=int(headers["RateLimit-Limit"]),
                remaining=int(headers["RateLimit-Remaining"]),
                reset=float(headers["RateLimit-Reset"]),
                read_at=time.monotonic(),
            )
        except (KeyError, ValueError):
            return None
