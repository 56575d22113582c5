"""A player's request for a move, checked: the legal move it names, or a refusal in plain words
(docs/rules.md, docs/api.md "Problems").

A request names a card's face and perhaps the column to move it to, the column to pick it
from and, of two copies face up in one column (two decks), which. ``copy_of`` says which copy
a card is, for the API's ``copy``.
"""

from __future__ import annotations

from typing import Literal

from games.engine.actions import MOVES, Move
from games.engine.cards import KING, card_code
from games.engine.errors import IllegalMoveError, UnknownCardError
from games.engine.legal import face_up_cards
from games.engine.position import Position, all_placed
from games.engine.variants import FACES

Copy = Literal["upper", "lower"]
COPIES: tuple[Copy, ...] = ("upper", "lower")


def copy_of(position: Position, card: int) -> Copy | None:
    """Which of the two face-up copies of ``card``'s face lying in its column ``card`` is: the
    upper one (nearer the top) or the lower one; None unless both lie face up in one column,
    the only case where a column does not say which copy a move picks (the API's ``copy``)."""
    if position.variant.decks == 1:
        return None
    other = (card + FACES) % (2 * FACES)
    for number, column in enumerate(position.columns):
        if card in column:
            if other not in column[position.hidden[number] :]:
                return None
            return "upper" if column.index(card) > column.index(other) else "lower"
    return None


def resolve_move(
    position: Position,
    card: int,
    to: int | None = None,
    source: int | None = None,
    copy: Copy | None = None,
    *,
    shortcut: bool = True,
) -> Move:
    """The legal move of ``card`` (to ``to`` if given), or IllegalMoveError saying why not.

    The messages never depend on where a card the player cannot see lies: a face-down card and
    a stock card are "not face up on the table" alike. The errors' ``details`` number columns
    1 to 7, as players see them, and name a card's column only when it lies face up.

    ``card`` names a face (0-51; a two-deck card int names its face too). ``source``, the
    column the card is picked from (reserve slot ``i`` is column ``column count + i``), says
    which of two face-up copies is meant; without it, a move that copies in two columns could
    make is refused with reason "ambiguous" (games.engine.variants, docs/rules.md). ``copy``
    says which of two copies lying face up in one column: "upper" (the default: the one nearer
    the top, with fewer cards on it) or "lower" (where the variant lets either copy move).

    ``shortcut=False``: without the early returns of the common case (the same answers,
    slower), for tests (tests/engine/test_variant_properties.py).
    """
    variant = position.variant
    count = variant.column_count
    if not 0 <= card < variant.deck_size:
        raise UnknownCardError(f"{card!r} is not a card")
    face = card % FACES
    code = card_code(face)
    if to is not None and not 0 <= to < count:
        raise IllegalMoveError(
            f"column must be 0-{count - 1}, not {to}",
            {"reason": "no_such_column", "card": code},
        )
    places = count + variant.reserve_size
    if source is not None and not 0 <= source < places:
        raise IllegalMoveError(
            f"the card must be picked from column 0-{places - 1}, not {source}",
            {"reason": "no_such_column", "card": code},
        )
    if copy not in (None, *COPIES):
        raise IllegalMoveError(
            f"copy is upper or lower, not {copy!r}", {"reason": "no_such_copy", "card": code}
        )
    copies = _face_up_copies(position, face)
    if shortcut and len(copies) == 1 and source in (None, copies[0][1]) and copy != "lower":
        # The common case (every face in one deck; a face whose other copy is out of sight in
        # two): that copy's move or refusal is the answer, as the lines below would find it, with
        # no lists of answers to merge; and a legal move onto an exposed card returns first in
        # ``_resolve_copy``. With the copies looked up alone (``_face_up_copies``), a legal
        # move asked for with its column costs 4.0 us of CPU instead of 10.9 in Scorpion (5.5
        # without this return); 7.1 instead of 14.9 in Double Scorpion, whose seed 1 move has
        # both copies face up. Command (CPU time, best of 15; 'double-scorpion' likewise):
        #   python -m timeit -p -r 15 -s "from games.engine.legal import legal_moves;
        #   from games.engine.resolve import resolve_move, source_of; from games.engine.position
        #   import deal_position; from games.engine.variants import VARIANTS, deal_code_for_seed;
        #   v = VARIANTS['scorpion']; p = deal_position(deal_code_for_seed(1, v), v);
        #   m = legal_moves(p)[0]; s = source_of(p, m.card)" "resolve_move(p, m.card % 52, m.to, s)"
        return _resolve_copy(position, *copies[0], to, shortcut=True)
    if source is not None:
        elsewhere = copies
        copies = [found for found in copies if found[1] == source]
        if not copies and elsewhere:
            # A reserve card is picked from past the last column: name the reserve slot (1-based,
            # as the table shows it), not a column the table does not have.
            where = f"reserve slot {source - count + 1}" if source >= count else f"column {source}"
            raise IllegalMoveError(
                f"{code} is not face up in {where}",
                {"reason": "not_in_column", "card": code, "column": source + 1},
            )
    if copy is not None and copies:
        copies = _pick_copy(position, copies, copy, code)
    if not copies:
        # Collected cards are public: a face none of whose copies is left anywhere is collected.
        if not any(placed % FACES == face for placed in all_placed(position)):
            raise IllegalMoveError(
                f"{code} has already been collected", {"reason": "collected", "card": code}
            )
        raise IllegalMoveError(
            f"{code} is not face up on the table", {"reason": "not_face_up", "card": code}
        )
    resolved: list[Move] = []
    refusals: list[IllegalMoveError] = []
    for exact, column, index in copies:
        try:
            resolved.append(_resolve_copy(position, exact, column, index, to, shortcut=shortcut))
        except IllegalMoveError as refused:
            refusals.append(refused)
    if not resolved:
        raise refusals[0]
    sources = sorted({source_of(position, move.card) for move in resolved})
    if len(sources) > 1:
        raise IllegalMoveError(
            f"both copies of {code} can move: say which column to pick it from",
            {"reason": "ambiguous", "card": code, "columns": [number + 1 for number in sources]},
        )
    # Both copies in one column and no ``copy`` named: the upper one (it carries fewer cards);
    # docs/rules.md.
    return resolved[0]


def _pick_copy(
    position: Position, copies: list[tuple[int, int, int]], copy: Copy, code: str
) -> list[tuple[int, int, int]]:
    """Of ``copies`` (topmost first in a column), the one ``copy`` names: of two in one column,
    the upper or the lower; a lone copy is its own upper one, and has no lower one."""
    columns = {column for _, column, _ in copies}
    if len(columns) > 1:
        # Two columns: ``copy`` picks nothing there, the column does (without it, "ambiguous").
        return copies
    if len(copies) == 1:
        if copy == "upper":
            return copies
        raise IllegalMoveError(
            f"only one copy of {code} lies face up there: it has no lower copy",
            {"reason": "no_lower_copy", "card": code},
        )
    if copy == "lower" and not position.variant.either_copy:
        raise IllegalMoveError(
            f"in {position.variant.title} only the upper of two copies of {code} in one "
            "column moves",
            {"reason": "upper_copy_only", "card": code},
        )
    return [copies[0] if copy == "upper" else copies[1]]


def _face_up_copies(position: Position, face: int) -> list[tuple[int, int, int]]:
    """The face-up copies of ``face``: (card, column, index) as ``face_up_cards`` places them,
    by column, the topmost first. Looks for the copies alone: most of ``resolve_move``'s cost
    was building the table of every face-up card."""
    columns = position.columns
    found: list[tuple[int, int, int]] = []
    for copy in range(face, position.variant.deck_size, FACES):
        for number, column in enumerate(columns):
            if copy in column:
                index = column.index(copy)
                if index >= position.hidden[number]:
                    found.append((copy, number, index))
                break
        else:
            if copy in position.reserve:
                found.append((copy, len(columns) + position.reserve.index(copy), -1))
    if len(found) > 1:
        found.sort(key=lambda where: (where[1], -where[2]))
    return found


def source_of(position: Position, card: int) -> int:
    for number, column in enumerate(position.columns):
        if card in column:
            return number
    return len(position.columns) + position.reserve.index(card)


def _resolve_copy(
    position: Position, card: int, source: int, index: int, to: int | None, *, shortcut: bool
) -> Move:
    """The move of this face-up copy of a card, or IllegalMoveError saying why not."""
    variant = position.variant
    columns = position.columns
    onto_faces = variant.goes_on_faces[card % FACES]
    targets = [
        target
        for target, column in enumerate(columns)
        if column and column[-1] % FACES in onto_faces
    ]
    others = [target for target in targets if target != source]
    if shortcut and others and (to is None or to in others):
        # The common case, a move onto an exposed card: the move the lines below return (to
        # ``others[0]`` unless ``to`` is given), before any refusal's wording is built.
        return MOVES[card][others[0] if to is None else to]
    code = card_code(card % FACES)
    in_reserve = index < 0
    where: dict[str, object] = (
        {"card": code, "reserve": source - len(columns) + 1}
        if in_reserve
        else {"card": code, "column": source + 1}
    )
    if to == source:
        raise IllegalMoveError(
            f"{code} is already in column {to}", {"reason": "already_there", **where}
        )
    empty_ok = variant.empty_column == "any" or card % 13 == KING
    if to is not None and not columns[to]:
        if not empty_ok:
            raise IllegalMoveError(
                f"only a King can go to an empty column, not {code}",
                {"reason": "not_a_king", **where, "to": to + 1},
            )
        if index == 0:
            raise IllegalMoveError(
                f"{code} already lies at the bottom of its column",
                {"reason": "already_at_bottom", **where},
            )
        return MOVES[card][to]
    if to is None and not others and empty_ok and index != 0:
        empty = next((target for target, column in enumerate(columns) if not column), None)
        if empty is not None:
            return MOVES[card][empty]
    if card % 13 == KING:
        if to is not None:
            raise IllegalMoveError(
                f"a King can only go to an empty column, and column {to} is not empty",
                {"reason": "column_not_empty", **where, "to": to + 1},
            )
        if index == 0:
            raise IllegalMoveError(
                f"{code} already lies at the bottom of its column",
                {"reason": "already_at_bottom", **where},
            )
        raise IllegalMoveError(
            f"there is no empty column for {code}", {"reason": "no_empty_column", **where}
        )
    names = [card_code(face) for face in onto_faces]
    wording = " or ".join(names)
    onto: object = names[0] if len(names) == 1 else names
    if not targets:
        face_up = face_up_cards(position)
        seen = sorted(
            where_[0]
            for copy, where_ in face_up.items()
            if copy % FACES in onto_faces and where_[1] >= 0
        )
        details: dict[str, object] = {"reason": "onto_not_exposed", **where, "onto": onto}
        if seen:  # face up under other cards: the player sees where
            details.update(onto_column=seen[0] + 1, onto_state="covered")
        else:  # face down, in the stock or collected alike
            details.update(onto_state="unseen")
        raise IllegalMoveError(f"{code} can only go on {wording}, which is not exposed", details)
    if not others:
        raise IllegalMoveError(
            f"{code} can only go on {wording}, which lies above it in its own column",
            {"reason": "onto_own_column", **where, "onto": onto},
        )
    if to is None:
        return MOVES[card][others[0]]
    if to not in others:
        raise IllegalMoveError(
            f"{code} can only go on the exposed {wording}, in column "
            + " or ".join(str(target) for target in others),
            {
                "reason": "wrong_column",
                **where,
                "to": to + 1,
                "onto": onto,
                "onto_column": others[0] + 1,
            },
        )
    return MOVES[card][to]
