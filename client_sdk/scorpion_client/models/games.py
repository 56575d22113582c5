"""A game and its history: the position a player sees (``Game``, ``Column``), the commands
they send (``Command``) and the events those add to the log (``Event``), and the types of
their fields (modes, variants, statuses)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, NotRequired, TypedDict, cast

from scorpion_client.models._fields import (
    _bool,
    _extra,
    _int,
    _list_of,
    _mapping,
    _opt_date,
    _opt_datetime,
    _opt_float,
    _opt_int,
    _opt_str,
    _str,
    _str_list,
)

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
class LeaderboardHidden:
    """Staff hid a result from the leaderboards (docs/fair-play.md): ``at`` when, and
    ``reason`` why, as they wrote it. The game, its replay and its statistics stay."""

    at: dt.datetime | None
    reason: str
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LeaderboardHidden:
        return cls(
            at=_opt_datetime(data.get("at")),
            reason=_str(data["reason"]),
            extra=_extra(data, ("at", "reason")),
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
    "leaderboard_hidden",
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
    the player's own play); a bot's games never rank. ``leaderboard_hidden``: staff's decision
    to hide the result from the leaderboards, with their reason (None for a result that counts).
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
    leaderboard_hidden: LeaderboardHidden | None = None
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
            leaderboard_hidden=None
            if data.get("leaderboard_hidden") is None
            else LeaderboardHidden.from_json(_mapping(data["leaderboard_hidden"])),
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
