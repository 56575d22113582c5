"""A game's history as an event fold, with no Django import.

A game is its deal plus an append-only list of events (move, deal, undo, redo, resign, and
abandon: written by the server when the player starts another game of the same kind). The
``GameState`` here is what folding those events gives: the position now, the current line of
play (the records an undo walks back through) and the redo line (what an undo set aside).

The current line is short by nature: every move either lays a card on its same-suit successor,
which it then never leaves, or lays a King at the bottom of an empty column, where it never
moves again; so a line is at most about 55 actions however many undos and redos the log holds.
Undo therefore costs the same at event 5 or at event 5,000: it pops the last record of the
line and inverts it, never replaying the log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from games.engine.actions import Deal, Move, Record
from games.engine.errors import EngineError
from games.engine.legal import status
from games.engine.position import Position, initial_position
from games.engine.resolve import Copy, resolve_move
from games.engine.transitions import play, replay, undo

# The state is stored every this many events (``games.models.GameSnapshot``), so any earlier
# state is at most this many folds away from a stored one (``games.selectors``).
SNAPSHOT_INTERVAL = 32

CommandType = Literal["move", "deal", "undo", "redo", "resign", "abandon"]
PlayStatus = Literal["playing", "stuck", "won", "resigned", "abandoned"]
# A game in one of these accepts no more commands.
OVER: tuple[PlayStatus, ...] = ("won", "resigned", "abandoned")


class NothingToUndoError(EngineError):
    code = "nothing_to_undo"


class NothingToRedoError(EngineError):
    code = "nothing_to_redo"


class GameFinishedError(EngineError):
    code = "game_finished"


@dataclass(frozen=True, slots=True)
class Command:
    """A player's request, already parsed: ``card`` only for moves, ``to`` optional, and
    ``source`` (the API's ``from``) the column the card is taken from, optional: needed only
    in the two-deck variants when copies of the card in two columns could move; ``copy``,
    which of two copies face up in that column ("upper", the default, or "lower")."""

    type: CommandType
    card: int | None = None
    to: int | None = None
    source: int | None = None
    copy: Copy | None = None


@dataclass(frozen=True, slots=True)
class GameState:
    position: Position
    line: tuple[dict[str, Any], ...]
    redo: tuple[dict[str, Any], ...]
    resigned: bool = False
    # Left behind: the player started another game of the same kind, or restarted this one
    # (never sent by a client; games.services writes it).
    abandoned: bool = False

    @property
    def status(self) -> PlayStatus:
        if self.resigned:
            return "resigned"
        if self.abandoned:
            return "abandoned"
        return status(self.position)

    @property
    def moves(self) -> int:
        return len(self.line)

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": self.position.to_dict(),
            "line": list(self.line),
            "redo": list(self.redo),
            "resigned": self.resigned,
            "abandoned": self.abandoned,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        return cls(
            position=Position.from_dict(data["position"]),
            line=tuple(data["line"]),
            redo=tuple(data["redo"]),
            resigned=bool(data.get("resigned", False)),
            abandoned=bool(data.get("abandoned", False)),
        )


def new_game_state(cards: Sequence[int]) -> GameState:
    return GameState(position=initial_position(cards), line=(), redo=())


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of one accepted command: the new state and the event to append."""

    state: GameState
    event_type: CommandType
    payload: dict[str, Any]


def apply_command(state: GameState, command: Command) -> Outcome:
    """Apply a player's command, or raise an EngineError saying why it is refused."""
    current = state.status
    if current in OVER:
        raise GameFinishedError(f"the game is {current}: it accepts no more commands")
    if command.type == "move":
        if command.card is None:
            raise EngineError("a move names a card")
        action = resolve_move(
            state.position, command.card, command.to, command.source, command.copy
        )
        return _played(state, action, "move")
    if command.type == "deal":
        return _played(state, Deal(), "deal")
    if command.type == "undo":
        if not state.line:
            raise NothingToUndoError("there is nothing to undo: this is the deal as dealt")
        record = state.line[-1]
        position = undo(state.position, Record.from_dict(record))
        after = GameState(position, state.line[:-1], (*state.redo, record))
        return Outcome(after, "undo", {"undone": record})
    if command.type == "redo":
        if not state.redo:
            raise NothingToRedoError("there is nothing to redo")
        record = state.redo[-1]
        position = replay(state.position, Record.from_dict(record))
        after = GameState(position, (*state.line, record), state.redo[:-1])
        return Outcome(after, "redo", {"redone": record})
    if command.type == "resign":
        return Outcome(
            GameState(state.position, state.line, state.redo, resigned=True), "resign", {}
        )
    if command.type == "abandon":
        return Outcome(
            GameState(state.position, state.line, state.redo, abandoned=True), "abandon", {}
        )
    raise EngineError(f"unknown command type {command.type!r}")


def _played(state: GameState, action: Move | Deal, event_type: CommandType) -> Outcome:
    position, record = play(state.position, action)
    payload = record.to_dict()
    # A new move or deal discards the undone line (docs/rules.md, redo).
    return Outcome(GameState(position, (*state.line, payload), ()), event_type, payload)


def fold_event(state: GameState, event_type: str, payload: dict[str, Any]) -> GameState:
    """Apply one stored event. Events were validated when accepted, so this trusts them."""
    if event_type in ("move", "deal"):
        position = replay(state.position, Record.from_dict(payload))
        return GameState(position, (*state.line, payload), ())
    if event_type == "undo":
        record = state.line[-1]
        return GameState(
            undo(state.position, Record.from_dict(record)), state.line[:-1], (*state.redo, record)
        )
    if event_type == "redo":
        record = state.redo[-1]
        return GameState(
            replay(state.position, Record.from_dict(record)),
            (*state.line, record),
            state.redo[:-1],
        )
    if event_type == "resign":
        return GameState(state.position, state.line, state.redo, resigned=True)
    if event_type == "abandon":
        return GameState(state.position, state.line, state.redo, abandoned=True)
    raise ValueError(f"unknown event type {event_type!r}")


def fold(cards: Sequence[int], events: Iterable[tuple[str, dict[str, Any]]]) -> GameState:
    """The state after the given events, from the deal: the log is the truth."""
    state = new_game_state(cards)
    for event_type, payload in events:
        state = fold_event(state, event_type, payload)
    return state
