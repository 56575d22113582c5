"""The replay viewer's reads: a game's position at any version, and the events around it.

The position is folded from the deal and the log (``games.selectors.game_state_at`` with
``from_deal``), never read from the projection or the snapshots, so the viewer shows what the
log says happened. Staff see the whole position: face-down cards (marked as such) and the
stock's contents, which players never see. Columns are numbered 0-6, as in the API's ``to``
and ``from``.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games import selectors as game_selectors
from games.engine.cards import card_code
from games.engine.position import Position
from games.models import Game

SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RED_SUITS = frozenset("HD")
# Events listed on either side of the current one.
WINDOW = 10


@dataclass(frozen=True, slots=True)
class CardView:
    code: str
    rank: str
    symbol: str
    red: bool
    face_down: bool = False
    mark: str = ""  # "moved", "flipped" or "dealt" when the current step did that to it


@dataclass(frozen=True, slots=True)
class ColumnView:
    number: int
    hidden: int
    cards: list[CardView]


@dataclass(frozen=True, slots=True)
class PositionView:
    columns: list[ColumnView]
    stock: list[CardView]
    collected: list[str]  # suit symbols, in the order collected
    face_down: int


@dataclass(frozen=True, slots=True)
class StepView:
    """One event of the log, described for people."""

    seq: int
    type: str
    created_at: datetime.datetime | None
    # The record the event applied (move, deal), undid (undo) or re-applied (redo).
    action: str | None = None
    card: str | None = None
    from_col: int | None = None
    to_col: int | None = None
    count: int = 0
    dealt: list[str] = field(default_factory=list)
    flipped: list[tuple[int, str]] = field(default_factory=list)
    collected: list[tuple[int, str]] = field(default_factory=list)

    @property
    def summary(self) -> str:
        if self.action is None:
            return self.type
        if self.action == "deal":
            text = "deal " + " ".join(self.dealt)
        else:
            run = f" ({self.count} cards)" if self.count > 1 else ""
            text = f"move {self.card}{run} {self.from_col}\u2192{self.to_col}"
        extras = [f"flip {card} in {column}" for column, card in self.flipped]
        extras += [
            f"collect {SUIT_SYMBOLS.get(suit, suit)} from {col}" for col, suit in self.collected
        ]
        if extras:
            text += "; " + ", ".join(extras)
        if self.type == "undo":
            return f"undo of {text}"
        if self.type == "redo":
            return f"redo of {text}"
        return text

    @property
    def marks(self) -> dict[str, str]:
        """Which cards of the position after this step it touched, and how."""
        if self.type == "undo":  # dealt cards are back in the stock, flipped ones face down
            return {self.card: "moved"} if self.card is not None else {}
        marks = dict.fromkeys(self.dealt, "dealt")
        if self.card is not None:
            marks[self.card] = "moved"
        marks.update({card: "flipped" for _column, card in self.flipped})
        return marks


@dataclass(frozen=True, slots=True)
class Replay:
    game: Game
    version: int
    last: int
    status: str
    line_length: int
    redo_length: int
    position: PositionView
    step: StepView | None  # the event that led to this version; None at version 0
    window: list[StepView]
    window_from_deal: bool  # the window reaches back to version 0
    first: int | None
    previous: int | None
    next: int | None
    latest: int | None


def card_view(code: str, *, face_down: bool = False, mark: str = "") -> CardView:
    return CardView(
        code=code,
        rank="10" if code[0] == "T" else code[0],
        symbol=SUIT_SYMBOLS[code[1]],
        red=code[1] in RED_SUITS,
        face_down=face_down,
        mark=mark,
    )


def position_view(position: Position, *, marks: Mapping[str, str] | None = None) -> PositionView:
    """The full position, for staff: every card, face-down ones marked."""
    marks = marks or {}
    columns = []
    for number, (column, hidden) in enumerate(zip(position.columns, position.hidden, strict=True)):
        cards = []
        for index, card in enumerate(column):
            code = card_code(card)
            cards.append(card_view(code, face_down=index < hidden, mark=marks.get(code, "")))
        columns.append(ColumnView(number=number, hidden=hidden, cards=cards))
    return PositionView(
        columns=columns,
        stock=[card_view(card_code(card)) for card in position.stock],
        collected=[SUIT_SYMBOLS["SHDC"[suit]] for suit in position.collected],
        face_down=sum(position.hidden),
    )


def step_view(
    *, seq: int, type: str, payload: Mapping[str, Any], created_at: datetime.datetime | None
) -> StepView:
    record: Mapping[str, Any] | None
    if type in ("move", "deal"):
        record = payload
    elif type == "undo":
        record = payload.get("undone")
    elif type == "redo":
        record = payload.get("redone")
    else:
        record = None
    if not record:
        return StepView(seq=seq, type=type, created_at=created_at)
    return StepView(
        seq=seq,
        type=type,
        created_at=created_at,
        action=record.get("type"),
        card=record.get("card"),
        from_col=record.get("from"),
        to_col=record.get("to"),
        count=int(record.get("count") or 0),
        dealt=list(record.get("dealt") or []),
        flipped=[(int(step["column"]), step["card"]) for step in record.get("flipped") or []],
        collected=[(int(step["column"]), step["suit"]) for step in record.get("collected") or []],
    )


def _steps(rows: Iterable[Mapping[str, Any]]) -> list[StepView]:
    return [
        step_view(
            seq=row["seq"], type=row["type"], payload=row["payload"], created_at=row["created_at"]
        )
        for row in rows
    ]


def clamp_version(raw: str | None, *, last: int) -> int:
    """The version asked for, within 0..last; the latest when absent or not a number."""
    try:
        version = int(raw) if raw is not None else last
    except ValueError:
        version = last
    return min(max(version, 0), last)


def replay(*, game: Game, version: int) -> Replay:
    """The game at ``version`` (0 <= version <= game.version): two queries, the fold of the
    log up to it and the events around it."""
    state = game_selectors.game_state_at(game=game, version=version, from_deal=True)
    window = _steps(
        {
            "seq": event.seq,
            "type": event.type,
            "payload": event.payload,
            "created_at": event.created_at,
        }
        for event in game_selectors.game_events_window(
            game=game, first=max(1, version - WINDOW), last=version + WINDOW
        )
    )
    step = next((one for one in window if one.seq == version), None)
    last = game.version
    return Replay(
        game=game,
        version=version,
        last=last,
        status=state.status,
        line_length=len(state.line),
        redo_length=len(state.redo),
        position=position_view(state.position, marks=step.marks if step else None),
        step=step,
        window=window,
        window_from_deal=version - WINDOW <= 1,
        first=0 if version > 0 else None,
        previous=version - 1 if version > 0 else None,
        next=version + 1 if version < last else None,
        latest=last if version < last else None,
    )
