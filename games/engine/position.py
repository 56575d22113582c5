"""Positions, actions and the rules that move from one position to the next (docs/rules.md).

A ``Position`` is immutable and made of tuples of card ints, so it is cheap to copy, hash and
compare: the solver and the benchmark create millions of them. ``apply`` assumes a legal
action (the fast path); ``play`` checks it first and raises the engine's errors in plain words.

Every action returns a ``Record`` of what happened, including the automatic steps (cards
turned face up, runs collected), so that ``undo`` restores the earlier position exactly and the
event log can replay a game step by step.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from games.engine.cards import (
    ACE,
    DECK_SIZE,
    KING,
    SUITS,
    card_code,
    format_cards,
    parse_card,
    parse_deal_code,
    suit_code,
)
from games.engine.errors import (
    DealCodeError,
    IllegalMoveError,
    StockEmptyError,
    UnknownCardError,
)
from games.engine.variants import FACES, SCORPION, Variant, get_variant

COLUMN_COUNT = 7
STOCK_SIZE = 3
RUN_LENGTH = 13
# docs/rules.md layout: seven columns of seven, the first three cards of columns 1-4 face down.
DEAL_COLUMN_SIZE = 7
DEAL_HIDDEN = (3, 3, 3, 3, 0, 0, 0)

Status = Literal["playing", "stuck", "won"]


@dataclass(frozen=True, slots=True)
class Position:
    columns: tuple[tuple[int, ...], ...]  # 7 columns, each bottom -> top
    hidden: tuple[int, ...]  # face-down cards at the bottom of each column
    stock: tuple[int, ...]  # cards still in the stock, in deal order (3 or none)
    collected: tuple[int, ...]  # suit indexes (of the run's King), in the order collected
    reserve: tuple[int, ...] = ()  # face-up reserve cards still there (Three Blind Mice)
    # Compared and hashed by identity (variants are singletons): cheap for the solver.
    variant: Variant = SCORPION

    def to_dict(self) -> dict[str, Any]:
        """The full position, face-down cards and stock included: for server-side storage only.

        A Scorpion position has exactly the keys it always had; other variants add "variant"
        (and "reserve" where the variant has one), and a two-deck one "ids", the card ints, so
        that which copy of a card lies where survives storage.
        """
        data: dict[str, Any] = {
            "columns": [
                {"hidden": hidden, "cards": format_cards(column)}
                for column, hidden in zip(self.columns, self.hidden, strict=True)
            ],
            "stock": format_cards(self.stock),
            "collected": [suit_code(suit) for suit in self.collected],
        }
        variant = self.variant
        if variant is not SCORPION:
            data["variant"] = variant.name
            if variant.reserve_size:
                data["reserve"] = format_cards(self.reserve)
            if variant.decks > 1:
                data["ids"] = {
                    "columns": [list(column) for column in self.columns],
                    "stock": list(self.stock),
                    "reserve": list(self.reserve),
                }
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Position:
        """The inverse of ``to_dict``; raises ValueError for anything that is not a position."""
        variant = get_variant(data.get("variant", "scorpion"))
        ids = data.get("ids")
        if variant.decks > 1 and ids is not None:
            columns = tuple(tuple(int(card) for card in column) for column in ids["columns"])
            stock = tuple(int(card) for card in ids["stock"])
            reserve = tuple(int(card) for card in ids.get("reserve", ()))
            faces = tuple(
                tuple(parse_card(code) for code in column["cards"]) for column in data["columns"]
            )
            if faces != tuple(tuple(card % FACES for card in column) for column in columns):
                raise ValueError("the card ids do not match the cards")
        else:
            columns = tuple(
                tuple(parse_card(code) for code in column["cards"]) for column in data["columns"]
            )
            stock = tuple(parse_card(code) for code in data["stock"])
            reserve = tuple(parse_card(code) for code in data.get("reserve", ()))
        position = cls(
            columns=columns,
            hidden=tuple(int(column["hidden"]) for column in data["columns"]),
            stock=stock,
            collected=tuple(_parse_suit(code) for code in data["collected"]),
            reserve=reserve,
            variant=variant,
        )
        _check_consistent(position)
        return position


@dataclass(frozen=True, slots=True)
class Move:
    card: int  # the exact card (0-103 in two decks: either copy of a face)
    to: int  # destination column, 0-based


@dataclass(frozen=True, slots=True)
class Deal:
    pass


Action: TypeAlias = Move | Deal


@dataclass(frozen=True, slots=True)
class Flip:
    """A face-down card left on top of ``column`` turned face up."""

    column: int
    card: int


@dataclass(frozen=True, slots=True)
class Collection:
    """A King-to-Ace run of ``suit`` (its King's suit) left the top of ``column``.

    ``cards`` are the run's exact cards, King first, unless they are simply the one-deck
    same-suit run of ``suit`` (always so in Scorpion): in two decks the copies must be known
    to undo exactly, and an alternate-colour run mixes suits.
    """

    column: int
    suit: int
    cards: tuple[int, ...] = ()

    @property
    def run(self) -> tuple[int, ...]:
        return self.cards or _RUNS[self.suit]


AutoStep: TypeAlias = Flip | Collection


@dataclass(frozen=True, slots=True)
class Record:
    """What an action did: enough to undo it exactly and to replay it."""

    kind: Literal["move", "deal"]
    card: int | None  # the picked card (move)
    from_col: int | None
    to_col: int | None
    count: int  # cards moved (move) or dealt (deal)
    dealt: tuple[int, ...]  # deal: the cards dealt, onto columns 0.. in order
    auto: tuple[AutoStep, ...]  # automatic steps, in the order they happened

    @property
    def action(self) -> Action:
        if self.kind == "deal":
            return DEAL
        assert self.card is not None
        assert self.to_col is not None
        return Move(self.card, self.to_col)

    @property
    def flipped(self) -> tuple[Flip, ...]:
        return tuple(step for step in self.auto if isinstance(step, Flip))

    @property
    def collected(self) -> tuple[Collection, ...]:
        return tuple(step for step in self.auto if isinstance(step, Collection))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": self.kind,
            "card": None if self.card is None else card_code(self.card),
            "from": self.from_col,
            "to": self.to_col,
            "count": self.count,
            "dealt": format_cards(self.dealt),
            "flipped": [{"column": s.column, "card": card_code(s.card)} for s in self.flipped],
            "collected": [{"column": s.column, "suit": suit_code(s.suit)} for s in self.collected],
            # "flipped" and "collected" lose the order in which the steps interleaved; undo
            # needs it, so the ordered steps are kept as well.
            "auto": [_auto_step_to_dict(step) for step in self.auto],
        }
        ids = self._ids()
        if any(card >= FACES for card in ids):
            # Two decks: which copy moved, for undo and replay to be exact (storage only: the
            # service serves the public fields alone).
            data["ids"] = ids
        return data

    def _ids(self) -> list[int]:
        """Every card int of the record, in a fixed order (see ``from_dict``)."""
        ids = [] if self.card is None else [self.card]
        ids += self.dealt
        for step in self.auto:
            if isinstance(step, Flip):
                ids.append(step.card)
            else:
                ids += step.cards
        return ids

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Record:
        kind = data["type"]
        if kind not in ("move", "deal"):
            raise ValueError(f"a record is a move or a deal, not {kind!r}")
        card = data["card"]
        record = cls(
            kind=kind,
            card=None if card is None else parse_card(card),
            from_col=data["from"],
            to_col=data["to"],
            count=int(data["count"]),
            dealt=tuple(parse_card(code) for code in data["dealt"]),
            auto=tuple(_auto_step_from_dict(step) for step in data["auto"]),
        )
        ids = data.get("ids")
        if ids is None:
            return record
        exact = iter(int(card) for card in ids)
        return cls(
            kind=kind,
            card=None if record.card is None else next(exact),
            from_col=record.from_col,
            to_col=record.to_col,
            count=record.count,
            dealt=tuple(next(exact) for _ in record.dealt),
            auto=tuple(
                Flip(step.column, next(exact))
                if isinstance(step, Flip)
                else Collection(step.column, step.suit, tuple(next(exact) for _ in step.cards))
                for step in record.auto
            ),
        )


DEAL = Deal()

# Actions are immutable, so every possible move exists once and is shared: legal-move
# generation then creates no objects.
# (Big enough for every variant: two decks, ten columns.)
_MAX_COLUMNS = 10
_MOVES = tuple(tuple(Move(card, to) for to in range(_MAX_COLUMNS)) for card in range(2 * DECK_SIZE))
_KINGS = tuple(suit * 13 + KING for suit in range(len(SUITS)))
# The run that a suit's collection removes, bottom to top: King down to Ace.
_RUNS = tuple(tuple(range(suit * 13 + KING, suit * 13 - 1, -1)) for suit in range(len(SUITS)))


# --- Building positions ----------------------------------------------------------------------


def initial_position(cards: Sequence[int], variant: Variant = SCORPION) -> Position:
    """The position a deal starts from; ``cards`` in deal-code order (games.engine.variants).

    The columns left to right, each bottom to top, then the stock in dealing order, then the
    reserve.
    """
    if variant is SCORPION:
        if sorted(cards) != list(range(DECK_SIZE)):
            raise DealCodeError("a deal is 52 distinct cards")
        tableau_size = COLUMN_COUNT * DEAL_COLUMN_SIZE
        return Position(
            columns=tuple(
                tuple(cards[start : start + DEAL_COLUMN_SIZE])
                for start in range(0, tableau_size, DEAL_COLUMN_SIZE)
            ),
            hidden=DEAL_HIDDEN,
            stock=tuple(cards[tableau_size:]),
            collected=(),
        )
    if sorted(cards) != list(range(variant.deck_size)):
        raise DealCodeError(f"a {variant.title} deal is {variant.deck_size} distinct card ints")
    columns = []
    start = 0
    for size in variant.column_sizes:
        columns.append(tuple(cards[start : start + size]))
        start += size
    stock = tuple(cards[start : start + variant.stock_size])
    start += variant.stock_size
    return Position(
        columns=tuple(columns),
        hidden=variant.hidden,
        stock=stock,
        collected=(),
        reserve=tuple(cards[start:]),
        variant=variant,
    )


def deal_position(code: str, variant: Variant = SCORPION) -> Position:
    """The position a deal code starts from."""
    if variant is SCORPION:
        return initial_position(parse_deal_code(code))
    from games.engine.variants import parse_deal_code as parse_variant_code

    return initial_position(parse_variant_code(code, variant), variant)


# --- Legal actions ---------------------------------------------------------------------------


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
                    moves.append(_MOVES[wanted][target])
                break
    if empty_columns:
        for king in _KINGS:
            for source, column in indexed_columns:
                if king in column:
                    index = column.index(king)
                    # A King at index 0 already lies at the bottom: moving it changes nothing.
                    if index > 0 and index >= hidden[source]:
                        moves.extend(_MOVES[king][target] for target in empty_columns)
                    break


def _face_up_cards(position: Position) -> dict[int, tuple[int, int]]:
    """Every face-up card: (column, index), reserve card ``i`` at (column count + i, -1)."""
    found: dict[int, tuple[int, int]] = {}
    for source, column in enumerate(position.columns):
        for index in range(position.hidden[source], len(column)):
            found[column[index]] = (source, index)
    count = len(position.columns)
    for slot, card in enumerate(position.reserve):
        found[card] = (count + slot, -1)
    return found


def _variant_actions(position: Position, face_up: dict[int, tuple[int, int]]) -> list[Action]:
    """``legal_actions`` of a variant's position whose ``_face_up_cards`` are already built: the
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
        face_up = _face_up_cards(position)
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
                moves.append(_MOVES[card][target])
    if empty_columns:
        any_card = variant.empty_column == "any"
        for card, where in face_up.items():
            if where[1] and (any_card or card % 13 == KING):
                if two_decks and _shadowed(card, where, face_up):
                    continue
                moves.extend(_MOVES[card][target] for target in empty_columns)


def _shadowed(card: int, where: tuple[int, int], face_up: dict[int, tuple[int, int]]) -> bool:
    """Whether the other copy of ``card`` lies face up higher in the same column."""
    other = face_up.get((card + FACES) % (2 * FACES))
    return other is not None and other[0] == where[0] and other[1] > where[1]


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


def status(position: Position) -> Status:
    if len(position.collected) == position.variant.runs:
        return "won"
    if position.stock or legal_moves(position):
        return "playing"
    return "stuck"


# --- Checking a requested move ---------------------------------------------------------------


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
        #   python -m timeit -p -r 15 -s "from games.engine.position import legal_moves,
        #   resolve_move, _source_of, deal_position; from games.engine.variants import VARIANTS,
        #   deal_code_for_seed; v = VARIANTS['scorpion']; p = deal_position(
        #   deal_code_for_seed(1, v), v); m = legal_moves(p)[0]; s = _source_of(p, m.card)"
        #   "resolve_move(p, m.card % 52, m.to, s)"
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
        if not any(placed % FACES == face for placed in _all_placed(position)):
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
    sources = sorted({_source_of(position, move.card) for move in resolved})
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
    """The face-up copies of ``face``: (card, column, index) as ``_face_up_cards`` places them,
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


def _all_placed(position: Position) -> Iterable[int]:
    """The cards not collected: on the table, in the stock, in the reserve."""
    for column in position.columns:
        yield from column
    yield from position.stock
    yield from position.reserve


def _source_of(position: Position, card: int) -> int:
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
        return _MOVES[card][others[0] if to is None else to]
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
        return _MOVES[card][to]
    if to is None and not others and empty_ok and index != 0:
        empty = next((target for target, column in enumerate(columns) if not column), None)
        if empty is not None:
            return _MOVES[card][empty]
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
        face_up = _face_up_cards(position)
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
        return _MOVES[card][others[0]]
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
    return _MOVES[card][to]


# --- Applying, undoing, replaying ------------------------------------------------------------


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
        face_up = _face_up_cards(position)
        source, copy = (
            (_source_of(position, action.card), copy_of(position, action.card))
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
                steps.append(Collection(target, suit, () if run == _RUNS[suit] else run))
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
        if face_up[-RUN_LENGTH:] == _RUNS[suit]:
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


# --- What the player sees --------------------------------------------------------------------


def player_view(position: Position) -> dict[str, Any]:
    """The position as the player sees it: no face-down card, nothing of the stock but its size.

    Cards are named by their face only (which copy of a two-deck card is which would tell
    something of the deal order). Other variants than Scorpion add "variant" and, where they
    have one, "reserve".
    """
    view: dict[str, Any] = {
        "columns": [
            {"hidden": hidden, "cards": _faces(column[hidden:])}
            for column, hidden in zip(position.columns, position.hidden, strict=True)
        ],
        "stock": len(position.stock),
        "collected": [suit_code(suit) for suit in position.collected],
    }
    variant = position.variant
    if variant is not SCORPION:
        view["variant"] = variant.name
        if variant.reserve_size:
            view["reserve"] = _faces(position.reserve)
    return view


def _faces(cards: Iterable[int]) -> list[str]:
    return [card_code(card % FACES) for card in cards]


# --- Serialisation helpers -------------------------------------------------------------------


def _parse_suit(code: object) -> int:
    if not isinstance(code, str) or len(code) != 1 or code.upper() not in SUITS:
        raise ValueError(f"a suit is one of {SUITS}, not {code!r}")
    return SUITS.index(code.upper())


def _auto_step_to_dict(step: AutoStep) -> dict[str, Any]:
    if isinstance(step, Flip):
        return {"step": "flip", "column": step.column, "card": card_code(step.card % FACES)}
    data = {"step": "collect", "column": step.column, "suit": suit_code(step.suit)}
    if step.cards:
        data["cards"] = [card_code(card % FACES) for card in step.cards]
    return data


def _auto_step_from_dict(data: Mapping[str, Any]) -> AutoStep:
    if data["step"] == "flip":
        return Flip(int(data["column"]), parse_card(data["card"]))
    if data["step"] == "collect":
        return Collection(
            int(data["column"]),
            _parse_suit(data["suit"]),
            tuple(parse_card(code) for code in data.get("cards", ())),
        )
    raise ValueError(f"an automatic step is a flip or a collection, not {data['step']!r}")


def _check_consistent(position: Position) -> None:
    """Raise ValueError unless ``position`` could arise in a game (used on stored data)."""
    if position.variant is not SCORPION:
        _check_variant_consistent(position)
        return
    columns, hidden = position.columns, position.hidden
    if len(columns) != COLUMN_COUNT or len(hidden) != COLUMN_COUNT:
        raise ValueError(f"a position has {COLUMN_COUNT} columns")
    for number, (column, face_down) in enumerate(zip(columns, hidden, strict=True)):
        # A face-down card left on top turns face up, so a column never ends face down.
        if not 0 <= face_down <= max(len(column) - 1, 0):
            raise ValueError(f"column {number} cannot have {face_down} face-down cards")
    if len(position.stock) not in (0, STOCK_SIZE):
        raise ValueError(f"the stock holds {STOCK_SIZE} cards or none")
    if sorted(_all_cards(position)) != list(range(DECK_SIZE)):
        raise ValueError("a position holds each of the 52 cards exactly once")


def _all_cards(position: Position) -> Iterable[int]:
    for column in position.columns:
        yield from column
    yield from position.stock
    for suit in position.collected:
        yield from _RUNS[suit]


def _check_variant_consistent(position: Position) -> None:
    variant = position.variant
    columns, hidden = position.columns, position.hidden
    count = variant.column_count
    if len(columns) != count or len(hidden) != count:
        raise ValueError(f"a {variant.title} position has {count} columns")
    for number, (column, face_down) in enumerate(zip(columns, hidden, strict=True)):
        if not 0 <= face_down <= max(len(column) - 1, 0):
            raise ValueError(f"column {number} cannot have {face_down} face-down cards")
    if len(position.stock) not in (0, variant.stock_size):
        raise ValueError(f"the stock holds {variant.stock_size} cards or none")
    if len(position.reserve) > variant.reserve_size:
        raise ValueError(f"the reserve holds at most {variant.reserve_size} cards")
    placed = list(_all_placed(position))
    if len(set(placed)) != len(placed) or not all(0 <= c < variant.deck_size for c in placed):
        raise ValueError("a card lies in two places")
    gone = sorted(set(range(variant.deck_size)) - set(placed))
    if len(gone) != RUN_LENGTH * len(position.collected) or len(position.collected) > variant.runs:
        raise ValueError("the cards not on the table are not the collected runs")
    # The missing cards must be the collected runs: the same ranks, as many of each as runs.
    ranks = sorted(card % 13 for card in gone)
    if ranks != sorted(rank for rank in range(13) for _ in position.collected):
        raise ValueError("the cards not on the table are not the collected runs")
    if variant.build == "suit":
        suits = sorted((card // 13) % 4 for card in gone)
        if suits != sorted(suit for suit in position.collected for _ in range(RUN_LENGTH)):
            raise ValueError("the cards not on the table are not the collected runs")
