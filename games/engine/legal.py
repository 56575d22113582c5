"""Which actions are legal in a position, and whether its game is won, goes on or is stuck
(docs/rules.md).

The hot path of the solver and the benchmark: Scorpion's moves are found by a few column scans
and handed out from the shared ``MOVES`` (no objects created); the other variants read their
rules from ``position.variant``.
"""

from __future__ import annotations

from typing import Literal

from games.engine.actions import DEAL, MOVES, Action, Move
from games.engine.cards import ACE, KING, SUITS
from games.engine.position import Position
from games.engine.variants import FACES, SCORPION

Status = Literal["playing", "stuck", "won"]

_KINGS = tuple(suit * 13 + KING for suit in range(len(SUITS)))


def legal_moves(position: Position) -> list[Move]:
    """Every legal move: onto each exposed card in column order, then Kings to empty columns."""
    moves: list[Move] = []
    _add_legal_moves(position, moves)
    return moves


def legal_actions(position: Position) -> list[Action]:
    """Every legal move, then the deal while the stock is full."""
    actions: list[Action] = []
    _add_legal_moves(position, actions)
    if position.stock:
        actions.append(DEAL)
    return actions


def _add_legal_moves(position: Position, moves: list[Move] | list[Action]) -> None:
    if position.variant is not SCORPION:
        _add_variant_moves(position, moves)
        return
    # The hot path of the solver and the benchmark: a location table of all 52 cards would cost
    # more to build than the few column scans below.
    hidden = position.hidden
    indexed_columns = tuple(enumerate(position.columns))
    empty_columns: list[int] = []
    for target, column in indexed_columns:
        if not column:
            empty_columns.append(target)
            continue
        top = column[-1]
        if top % 13 == ACE:
            continue
        # The only card that may go onto ``top`` is its same-suit predecessor.
        wanted = top - 1
        for source, other in indexed_columns:
            if wanted in other:
                face_down = hidden[source]
                if source != target and (not face_down or other.index(wanted) >= face_down):
                    moves.append(MOVES[wanted][target])
                break
    if empty_columns:
        for king in _KINGS:
            for source, column in indexed_columns:
                if king in column:
                    index = column.index(king)
                    # A King at index 0 already lies at the bottom: moving it changes nothing.
                    if index > 0 and index >= hidden[source]:
                        moves.extend(MOVES[king][target] for target in empty_columns)
                    break


def face_up_cards(position: Position) -> dict[int, tuple[int, int]]:
    """Every face-up card: (column, index), reserve card ``i`` at (column count + i, -1)."""
    found: dict[int, tuple[int, int]] = {}
    for source, column in enumerate(position.columns):
        for index in range(position.hidden[source], len(column)):
            found[column[index]] = (source, index)
    count = len(position.columns)
    for slot, card in enumerate(position.reserve):
        found[card] = (count + slot, -1)
    return found


def variant_actions(position: Position, face_up: dict[int, tuple[int, int]]) -> list[Action]:
    """``legal_actions`` of a variant's position whose ``face_up_cards`` are already built: the
    variant solver reads them too, to score each move, and building them twice cost about 8% of
    its search."""
    actions: list[Action] = []
    _add_variant_moves(position, actions, face_up)
    if position.stock:
        actions.append(DEAL)
    return actions


def _add_variant_moves(
    position: Position,
    moves: list[Move] | list[Action],
    face_up: dict[int, tuple[int, int]] | None = None,
) -> None:
    """Legal moves of any variant: onto each exposed card in column order, then to empty ones.

    A card already at the bottom of its column is not moved to an empty column (it changes
    nothing, as in Scorpion); a reserve card is. In two decks either face-up copy of a face may
    be the card moved (PySolFC 3.4.0+; the lower one carries more cards with it), except in a
    variant kept with the older rule (``Variant.either_copy`` false: ``double-scorpion-3-2``),
    where of two copies face up in one column only the upper one may make a move that both
    could make (docs/rules.md, "Double Scorpion").
    """
    variant = position.variant
    onto = variant.onto
    if face_up is None:
        face_up = face_up_cards(position)
    two_decks = variant.decks > 1 and not variant.either_copy
    empty_columns: list[int] = []
    for target, column in enumerate(position.columns):
        if not column:
            empty_columns.append(target)
            continue
        for card in onto[column[-1]]:
            where = face_up.get(card)
            if where is not None and where[0] != target:
                if two_decks and _shadowed(card, where, face_up):
                    continue
                moves.append(MOVES[card][target])
    if empty_columns:
        any_card = variant.empty_column == "any"
        for card, where in face_up.items():
            if where[1] and (any_card or card % 13 == KING):
                if two_decks and _shadowed(card, where, face_up):
                    continue
                moves.extend(MOVES[card][target] for target in empty_columns)


def _shadowed(card: int, where: tuple[int, int], face_up: dict[int, tuple[int, int]]) -> bool:
    """Whether the other copy of ``card`` lies face up higher in the same column."""
    other = face_up.get((card + FACES) % (2 * FACES))
    return other is not None and other[0] == where[0] and other[1] > where[1]


def status(position: Position) -> Status:
    if len(position.collected) == position.variant.runs:
        return "won"
    if position.stock or legal_moves(position):
        return "playing"
    return "stuck"
