"""Applying an action to a position, undoing it and replaying a stored record (docs/rules.md).

``apply`` assumes a legal action (the fast path); ``play`` checks it first and raises the
engine's errors in plain words. Each returns the ``Record`` of what happened, automatic steps
included (``_settle``), so that ``undo`` restores the earlier position exactly and ``replay``
redoes a stored record.
"""

from __future__ import annotations

from games.engine.actions import Action, AutoStep, Collection, Deal, Flip, Record
from games.engine.cards import ACE, SUIT_RUNS
from games.engine.errors import StockEmptyError, UnknownCardError
from games.engine.legal import face_up_cards, legal_moves
from games.engine.position import RUN_LENGTH, Position
from games.engine.resolve import copy_of, resolve_move, source_of
from games.engine.variants import FACES, SCORPION, Variant


def play(position: Position, action: Action) -> tuple[Position, Record]:
    """Check ``action`` against the rules, then apply it."""
    if isinstance(action, Deal):
        if not position.stock:
            # A variant dealt without a stock (Three Blind Mice, Double Scorpion) never had one
            # to deal: say so rather than that it was dealt.
            message = (
                "the stock has already been dealt"
                if position.variant.stock_size
                else f"{position.variant.title} has no stock to deal"
            )
            raise StockEmptyError(message, {"reason": "stock_empty"})
        return apply(position, action)
    if position.variant is not SCORPION:
        # The exact card (a copy, in two decks) when it is legal: replay needs exactly it.
        if action in legal_moves(position):
            return apply(position, action)
        variant = position.variant
        if not 0 <= action.card < variant.deck_size:
            raise UnknownCardError(f"{action.card!r} is not a card")
        # Otherwise the player's words for the face (which may also find the move legal for
        # the card's other copy: then that one is meant).
        face_up = face_up_cards(position)
        source, copy = (
            (source_of(position, action.card), copy_of(position, action.card))
            if action.card in face_up
            else (None, None)
        )
        return apply(position, resolve_move(position, action.card % FACES, action.to, source, copy))
    return apply(position, resolve_move(position, action.card, action.to))


def apply(position: Position, action: Action) -> tuple[Position, Record]:
    """The position after a legal ``action``, and its record. Does not check legality."""
    if isinstance(action, Deal):
        return _apply_deal(position)
    return _apply_move(position, action.card, action.to)


def _apply_move(position: Position, card: int, to: int) -> tuple[Position, Record]:
    if position.variant is not SCORPION:
        return _apply_variant_move(position, card, to)
    columns = list(position.columns)
    source = 0
    while card not in columns[source]:
        source += 1
    column = columns[source]
    index = column.index(card)
    moved = column[index:]
    remaining = column[:index]
    columns[source] = remaining
    destination = columns[to] = columns[to] + moved
    # Settling is the slow part and most moves need none: skip it unless a face-down card is
    # left on top or a column of 13 cards or more now ends with an Ace.
    if (
        (index and index == position.hidden[source])
        or (len(destination) >= RUN_LENGTH and moved[-1] % 13 == ACE)
        or (index >= RUN_LENGTH and remaining[-1] % 13 == ACE)
    ):
        hidden, collected, auto = _settle(
            columns, position.hidden, position.collected, (source, to)
        )
    else:
        hidden, collected, auto = position.hidden, position.collected, ()
    return (
        Position(tuple(columns), hidden, position.stock, collected),
        Record("move", card, source, to, len(moved), (), auto),
    )


def _apply_variant_move(position: Position, card: int, to: int) -> tuple[Position, Record]:
    columns = list(position.columns)
    reserve = position.reserve
    variant = position.variant
    if card in reserve:
        slot = reserve.index(card)
        source = len(columns) + slot
        reserve = reserve[:slot] + reserve[slot + 1 :]
        moved: tuple[int, ...] = (card,)
        touched: tuple[int, ...] = (to,)
    else:
        source = 0
        while card not in columns[source]:
            source += 1
        column = columns[source]
        index = column.index(card)
        moved = column[index:]
        columns[source] = column[:index]
        touched = (source, to)
    columns[to] = columns[to] + moved
    hidden, collected, auto = _settle(
        columns, position.hidden, position.collected, touched, variant
    )
    return (
        Position(tuple(columns), hidden, position.stock, collected, reserve, variant),
        Record("move", card, source, to, len(moved), (), auto),
    )


def _apply_deal(position: Position) -> tuple[Position, Record]:
    columns = list(position.columns)
    dealt = position.stock
    for target, card in enumerate(dealt):
        columns[target] += (card,)
    touched = tuple(range(len(dealt)))
    variant = position.variant
    hidden, collected, auto = _settle(
        columns, position.hidden, position.collected, touched, variant
    )
    return (
        Position(tuple(columns), hidden, (), collected, position.reserve, variant),
        Record("deal", None, None, None, len(dealt), dealt, auto),
    )


def _settle(
    columns: list[tuple[int, ...]],
    hidden: tuple[int, ...],
    collected: tuple[int, ...],
    touched: tuple[int, ...],
    variant: Variant = SCORPION,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[AutoStep, ...]]:
    """Turn face up and collect in the touched columns until nothing changes (docs/rules.md).

    Updates ``columns`` in place; returns the new hidden counts, collected suits and the steps
    taken. Only the touched columns can change: the others were settled already. Columns are
    settled in column order, left to right, as PySolFC collects runs: when one move completes
    runs in its source and its destination, the leftmost one's is listed first (before, the
    source's was; ``replay`` keeps the order a stored record has).
    """
    if len(touched) > 1 and touched[0] > touched[1]:
        touched = tuple(sorted(touched))
    steps: list[AutoStep] = []
    changed = True
    while changed:
        changed = False
        for target in touched:
            column = columns[target]
            if hidden[target] and hidden[target] == len(column):
                hidden = (*hidden[:target], hidden[target] - 1, *hidden[target + 1 :])
                steps.append(Flip(target, column[-1]))
                changed = True
        for target in touched:
            column = columns[target]
            if variant is SCORPION:
                suit = completed_suit(column[hidden[target] :])
                if suit is not None:
                    columns[target] = column[:-RUN_LENGTH]
                    collected += (suit,)
                    steps.append(Collection(target, suit))
                    changed = True
                continue
            run = completed_run(column[hidden[target] :], variant)
            if run is not None:
                columns[target] = column[:-RUN_LENGTH]
                suit = (run[0] // 13) % 4
                collected += (suit,)
                steps.append(Collection(target, suit, () if run == SUIT_RUNS[suit] else run))
                changed = True
    return hidden, collected, tuple(steps)


def completed_run(face_up: tuple[int, ...], variant: Variant) -> tuple[int, ...] | None:
    """The King-to-Ace run (built by the variant's rule) on top of these face-up cards, if any."""
    if len(face_up) < RUN_LENGTH or face_up[-1] % 13 != ACE:
        return None
    run = face_up[-RUN_LENGTH:]
    onto = variant.onto
    for lower, higher in zip(run[1:], run, strict=False):
        if lower not in onto[higher]:
            return None
    return run


def completed_suit(face_up: tuple[int, ...]) -> int | None:
    """The suit whose King-to-Ace run lies on top of these face-up cards, if any."""
    if len(face_up) >= RUN_LENGTH and face_up[-1] % 13 == ACE:
        suit = face_up[-1] // 13
        if face_up[-RUN_LENGTH:] == SUIT_RUNS[suit]:
            return suit
    return None


def undo(position: Position, record: Record) -> Position:
    """The position before ``record`` was applied (its exact inverse)."""
    columns = list(position.columns)
    hidden = list(position.hidden)
    collected = position.collected
    reserve = position.reserve
    for step in reversed(record.auto):
        if isinstance(step, Collection):
            if not collected or collected[-1] != step.suit:
                raise ValueError("the record does not fit this position")
            columns[step.column] += step.run
            collected = collected[:-1]
        else:
            hidden[step.column] += 1
    stock = position.stock
    if record.kind == "deal":
        if stock:
            raise ValueError("the record does not fit this position")
        for target, card in enumerate(record.dealt):
            if not columns[target] or columns[target][-1] != card:
                raise ValueError("the record does not fit this position")
            columns[target] = columns[target][:-1]
        stock = record.dealt
    else:
        assert record.from_col is not None
        assert record.to_col is not None
        destination = columns[record.to_col]
        moved = destination[len(destination) - record.count :]
        if not moved or moved[0] != record.card:
            raise ValueError("the record does not fit this position")
        columns[record.to_col] = destination[: len(destination) - record.count]
        if record.from_col >= len(columns):  # a reserve card goes back to its place
            slot = record.from_col - len(columns)
            reserve = reserve[:slot] + moved + reserve[slot:]
        else:
            columns[record.from_col] += moved
    return Position(tuple(columns), tuple(hidden), stock, collected, reserve, position.variant)


def replay(position: Position, record: Record) -> Position:
    """Re-apply a recorded action (redo, replay); it must do exactly what the record says.

    A record stored before runs were collected in column order (``_settle``) may list the same
    automatic steps in another order (the source column's first): it replays to the position
    it led to then, its collected suits in its own order, so every stored log folds to the
    states it had (docs/rules.md, "The Scorpion family").
    """
    after, replayed = play(position, record.action)
    if replayed == record:
        return after
    if replayed == _with_auto(record, replayed.auto) and _same_steps(record.auto, replayed.auto):
        gone = len(record.collected)
        return Position(
            after.columns,
            after.hidden,
            after.stock,
            after.collected[: len(after.collected) - gone]
            + tuple(step.suit for step in record.collected),
            after.reserve,
            after.variant,
        )
    raise ValueError("the record does not fit this position")


def _with_auto(record: Record, auto: tuple[AutoStep, ...]) -> Record:
    return Record(
        record.kind,
        record.card,
        record.from_col,
        record.to_col,
        record.count,
        record.dealt,
        auto,
    )


def _same_steps(first: tuple[AutoStep, ...], second: tuple[AutoStep, ...]) -> bool:
    """Whether two lists of automatic steps are the same steps, in any order."""
    return len(first) == len(second) and all(
        first.count(step) == second.count(step) for step in first
    )
