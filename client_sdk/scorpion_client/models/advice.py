"""What the server says about the moves of a game: hints and winning chances while it is on,
the solver's analysis once it is over."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from scorpion_client.models._fields import (
    _bool,
    _extra,
    _int,
    _list_of,
    _mapping,
    _opt_datetime,
    _opt_int,
    _opt_str,
    _str,
    _str_list,
)
from scorpion_client.models.games import Column, Copy, Difficulty, Event, Variant

# What the solver says of a finished game (``Analysis``).
AnalysisDeal = Literal["won", "lost", "unknown"]
AnalysisOutcome = Literal["won", "unwinnable", "slipped", "ended_winnable", "unknown"]


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
