"""A position of a game: the table, how a deal lays it out, its stored form and what the
player sees of it (docs/rules.md).

A ``Position`` is immutable and made of tuples of card ints, so it is cheap to copy, hash and
compare: the solver and the benchmark create millions of them. The rules that move from one
position to the next are elsewhere: which actions are legal (games.engine.legal), a player's
request checked into a move (games.engine.resolve), applying and undoing one
(games.engine.transitions).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine.cards import (
    DECK_SIZE,
    SUIT_RUNS,
    card_code,
    format_cards,
    parse_card,
    parse_deal_code,
    parse_suit,
    suit_code,
)
from games.engine.errors import DealCodeError
from games.engine.variants import FACES, SCORPION, Variant, get_variant
from games.engine.variants import parse_deal_code as parse_variant_deal_code

COLUMN_COUNT = 7
STOCK_SIZE = 3
RUN_LENGTH = 13
# docs/rules.md layout: seven columns of seven, the first three cards of columns 1-4 face down.
DEAL_COLUMN_SIZE = 7
DEAL_HIDDEN = (3, 3, 3, 3, 0, 0, 0)


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
            collected=tuple(parse_suit(code) for code in data["collected"]),
            reserve=reserve,
            variant=variant,
        )
        _check_consistent(position)
        return position


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
    return initial_position(parse_variant_deal_code(code, variant), variant)


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


# --- Checking stored positions ---------------------------------------------------------------


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
        yield from SUIT_RUNS[suit]


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
    placed = list(all_placed(position))
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


def all_placed(position: Position) -> Iterable[int]:
    """The cards not collected: on the table, in the stock, in the reserve."""
    for column in position.columns:
        yield from column
    yield from position.stock
    yield from position.reserve
