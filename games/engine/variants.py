"""The Scorpion family: each variant is data (layout and rules), read by one engine.

A ``Variant`` says how a deal is laid out (columns, face-down cards, stock, reserve, decks) and
which rules apply (what may go onto what, what may fill an empty column). The rule functions
(``games.engine.legal``, ``resolve``, ``transitions``) read ``position.variant``; nothing is
copied per variant. Instances are singletons kept in ``VARIANTS``: equality and hashing are by
identity, so a ``Position`` still hashes fast (the solver and the benchmark hash millions of
them).

Cards of a two-deck variant are ints 0..103: the face is ``card % 52`` (rank ``card % 13``, suit
``(card // 13) % 4``), and a card code names the face. A deal code lists the faces column by
column, each bottom to top, then the stock in dealing order, then the reserve; in a two-deck deal
the first occurrence of a face is card ``face`` and the second ``face + 52``.

The rules of each variant, with their sources, are in docs/rules.md ("The Scorpion family").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from games.engine import cards, deals
from games.engine.cards import RANKS, SUITS, card_code
from games.engine.errors import DealCodeError, UnknownVariantError

__all__ = [
    "DOUBLE_SCORPION",
    "DOUBLE_SCORPION_3_2",
    "OFFERED_VARIANTS",
    "PYSOLFC_VERSION",
    "SCORPION",
    "SCORPION_TAIL",
    "THREE_BLIND_MICE",
    "VARIANTS",
    "WASP",
    "WASP_II",
    "Build",
    "EmptyColumn",
    "Variant",
    "deal_code_for_seed",
    "format_deal_code",
    "get_variant",
    "parse_deal_code",
]

Build = Literal["suit", "alternate"]
EmptyColumn = Literal["king", "any"]

FACES = 52
RUN_LENGTH = 13
# Suits are "SHDC" (cards.SUITS): spades and clubs black, hearts and diamonds red.
_RED = (False, True, True, False)


def is_red(card: int) -> bool:
    return _RED[(card // 13) % 4]


@dataclass(frozen=True, eq=False)
class Variant:
    """One game of the Scorpion family: its layout and its rules (docs/rules.md).

    ``build``: "suit", a card goes onto the next higher card of its suit (8H on 9H); "alternate",
    onto the next higher card of the other colour (8H on 9S or 9C). A run of thirteen cards from
    King down to Ace, built by the same rule, is collected (leaves the table) as soon as it lies
    face up on top of a column (``runs_leave``). ``empty_column``: "king", only a King (with
    the cards on it) may go into an empty column; "any", any face-up card may.
    """

    name: str  # the slug used by the API: "scorpion", "wasp", ...
    title: str
    decks: int
    column_sizes: tuple[int, ...]  # cards dealt to each column, left to right
    hidden: tuple[int, ...]  # of which face down, at the bottom of each column
    stock_size: int  # dealt, when the player asks, one card to each of the first columns
    reserve_size: int  # cards dealt face up to a reserve, from which they may be played
    empty_column: EmptyColumn
    build: Build
    runs_leave: bool
    source: str  # where the rules come from
    # Two decks: whether either face-up copy of a face may be the card moved (PySolFC since
    # 3.4.0), or, where both lie face up in one column, only the upper one (this service before,
    # kept by ``double-scorpion-3-2`` so that its games keep the rules they began with).
    either_copy: bool = True
    # Offered for new games (the lobby, the API's list, the terminal client). A variant that is
    # not offered is kept only so that the games begun in it replay and go on by its rules.
    offered: bool = True
    # Derived tables, filled in by __post_init__: onto[card] are the cards that may be put
    # on ``card`` (either copy of a face in two decks); moves[card][to] the shared Move objects.
    onto: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    onto_faces: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    # goes_on_faces[face]: the faces a card may be put on (the inverse of onto_faces).
    goes_on_faces: tuple[tuple[int, ...], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.column_sizes) != len(self.hidden):
            raise ValueError("one face-down count per column")
        if self.deck_size != sum(self.column_sizes) + self.stock_size + self.reserve_size:
            raise ValueError(f"the layout of {self.name} does not use {self.deck_size} cards")
        onto_faces: list[tuple[int, ...]] = []
        for face in range(FACES):
            rank = face % 13
            if rank == 0:
                onto_faces.append(())
            elif self.build == "suit":
                onto_faces.append((face - 1,))
            else:
                red = _RED[face // 13]
                onto_faces.append(
                    tuple(suit * 13 + rank - 1 for suit in range(4) if _RED[suit] != red)
                )
        onto = tuple(
            tuple(
                lower + FACES * copy
                for lower in onto_faces[card % FACES]
                for copy in range(self.decks)
            )
            for card in range(self.deck_size)
        )
        object.__setattr__(self, "onto_faces", tuple(onto_faces))
        object.__setattr__(
            self,
            "goes_on_faces",
            tuple(
                tuple(higher for higher in range(FACES) if face in onto_faces[higher])
                for face in range(FACES)
            ),
        )
        object.__setattr__(self, "onto", onto)

    @property
    def deck_size(self) -> int:
        return FACES * self.decks

    @property
    def column_count(self) -> int:
        return len(self.column_sizes)

    @property
    def runs(self) -> int:
        """Runs to collect to win: four per deck."""
        return 4 * self.decks

    @property
    def tableau_size(self) -> int:
        return sum(self.column_sizes)

    @property
    def deal_code_length(self) -> int:
        return 2 * self.deck_size

    def __repr__(self) -> str:
        return f"Variant({self.name!r})"

    def to_dict(self) -> dict[str, object]:
        """The variant as data, for clients that lay out the table themselves."""
        return {
            "name": self.name,
            "title": self.title,
            "decks": self.decks,
            "column_sizes": list(self.column_sizes),
            "hidden": list(self.hidden),
            "stock_size": self.stock_size,
            "reserve_size": self.reserve_size,
            "empty_column": self.empty_column,
            "build": self.build,
            "runs_leave": self.runs_leave,
            "either_copy": self.either_copy,
            "offered": self.offered,
        }


SCORPION = Variant(
    name="scorpion",
    title="Scorpion",
    decks=1,
    column_sizes=(7,) * 7,
    hidden=(3, 3, 3, 3, 0, 0, 0),
    stock_size=3,
    reserve_size=0,
    empty_column="king",
    build="suit",
    runs_leave=True,
    source="PySolFC pysollib/games/spider.py, class Scorpion (game 29)",
)
# PySolFC 3.4.0 (February 2025) dealt Wasp with Scorpion's face-down cards and kept the layout
# Wasp had up to 3.2.0 as "Wasp II"; it dealt Double Scorpion ten by ten with a stock of four.
# The games begun before this service followed 3.4.0 keep their rules: Wasp's as Wasp II (the
# same layout, the same rules), Double Scorpion's as ``double-scorpion-3-2`` (games/migrations,
# docs/rules.md).
PYSOLFC_VERSION = "3.4.0"
WASP = Variant(
    name="wasp",
    title="Wasp",
    decks=1,
    column_sizes=(7,) * 7,
    hidden=(3, 3, 3, 3, 0, 0, 0),
    stock_size=3,
    reserve_size=0,
    empty_column="any",
    build="suit",
    runs_leave=True,
    source="PySolFC 3.4.0+ pysollib/games/spider.py, class Wasp (game 185)",
)
WASP_II = replace(
    WASP,
    name="wasp-ii",
    title="Wasp II",
    hidden=(3, 3, 3, 0, 0, 0, 0),
    source="PySolFC 3.4.0+ pysollib/games/spider.py, class WaspII (Wasp up to 3.2.0)",
)
SCORPION_TAIL = Variant(
    name="scorpion-tail",
    title="Scorpion Tail",
    decks=1,
    column_sizes=(7,) * 7,
    hidden=(3, 3, 3, 3, 0, 0, 0),
    stock_size=3,
    reserve_size=0,
    empty_column="king",
    build="alternate",
    runs_leave=True,
    source="PySolFC pysollib/games/spider.py, class ScorpionTail (game 346)",
)
THREE_BLIND_MICE = Variant(
    name="three-blind-mice",
    title="Three Blind Mice",
    decks=1,
    column_sizes=(5,) * 10,
    hidden=(0,) * 7 + (3, 3, 3),
    stock_size=0,
    reserve_size=2,
    empty_column="king",
    build="suit",
    runs_leave=True,
    source="PySolFC pysollib/games/spider.py, class ThreeBlindMice (game 305)",
)
DOUBLE_SCORPION = Variant(
    name="double-scorpion",
    title="Double Scorpion",
    decks=2,
    column_sizes=(10,) * 10,
    hidden=(4,) * 5 + (0,) * 5,
    stock_size=4,
    reserve_size=0,
    empty_column="king",
    build="suit",
    runs_leave=True,
    source="PySolFC 3.4.0+ pysollib/games/spider.py, class DoubleScorpion (game 511)",
)
# Double Scorpion as PySolFC dealt it up to 3.2.0 (the four cards left dealt at once onto
# columns 1-4, no stock) and as this service played it before (of two face-up copies in one
# column, only the upper one moved). Not offered for new games: the new deal holds it (dealing
# the stock first lays out the same table) and lets either copy move; kept so that the games
# begun in it replay and go on by the rules they began with.
DOUBLE_SCORPION_3_2 = replace(
    DOUBLE_SCORPION,
    name="double-scorpion-3-2",
    title="Double Scorpion 3.2",
    column_sizes=(11,) * 4 + (10,) * 6,
    stock_size=0,
    source="PySolFC 3.2.0 pysollib/games/spider.py, class DoubleScorpion (game 511)",
    either_copy=False,
    offered=False,
)

# Every variant a game may be in, offered or kept for the games begun in it.
VARIANTS: dict[str, Variant] = {
    variant.name: variant
    for variant in (
        SCORPION,
        WASP,
        WASP_II,
        SCORPION_TAIL,
        THREE_BLIND_MICE,
        DOUBLE_SCORPION,
        DOUBLE_SCORPION_3_2,
    )
}
# The variants a new game may be in (the lobby, ``GET /api/v1/variants/``).
OFFERED_VARIANTS: dict[str, Variant] = {
    name: variant for name, variant in VARIANTS.items() if variant.offered
}


def get_variant(name: str) -> Variant:
    """The variant named ``name`` (its slug), or UnknownVariantError listing the known ones."""
    variant = VARIANTS.get(name) if isinstance(name, str) else None
    if variant is None:
        known = ", ".join(VARIANTS)
        raise UnknownVariantError(
            f"{name!r} is not a variant; the variants are {known}",
            {"reason": "unknown_variant", "variants": list(VARIANTS)},
        )
    return variant


# --- Deal codes --------------------------------------------------------------------------------

_CARD_OF = {r + s: suit * 13 + rank for suit, s in enumerate(SUITS) for rank, r in enumerate(RANKS)}


def parse_deal_code(code: object, variant: Variant = SCORPION) -> tuple[int, ...]:
    """The cards of a deal code of ``variant``, in deal-code order.

    One deck: exactly ``games.engine.cards.parse_deal_code`` (52 distinct cards). Two decks: 104
    card codes (208 characters), each face exactly twice; the first occurrence of a face is card
    ``face`` and the second ``face + 52``.
    """
    if variant.decks == 1:
        return cards.parse_deal_code(code)
    length = variant.deal_code_length
    if not isinstance(code, str):
        raise DealCodeError(f"a {variant.title} deal code is a string of {length} characters")
    text = code.strip().upper()
    if len(text) != length:
        raise DealCodeError(
            f"a {variant.title} deal code has {length} characters "
            f"({variant.deck_size} cards of 2), not {len(text)}"
        )
    result: list[int] = []
    seen: dict[int, list[int]] = {}
    for index in range(variant.deck_size):
        pair = text[2 * index : 2 * index + 2]
        face = _CARD_OF.get(pair)
        if face is None:
            raise DealCodeError(
                f"card {index + 1} of the deal code, {pair!r}, is not a card "
                f"(rank {RANKS}, suit {SUITS})"
            )
        places = seen.setdefault(face, [])
        if len(places) == variant.decks:
            where = ", ".join(str(place + 1) for place in places)
            raise DealCodeError(
                f"{pair} appears more than {variant.decks} times in the deal code "
                f"(cards {where} and {index + 1})"
            )
        result.append(face + FACES * len(places))
        places.append(index)
    missing = [card_code(face) for face in range(FACES) if len(seen.get(face, ())) < variant.decks]
    if missing:  # pragma: no cover - the length and the count per face already rule it out
        raise DealCodeError(f"the deal code lacks {', '.join(missing)}")
    return tuple(result)


def format_deal_code(cards_: Sequence[int], variant: Variant = SCORPION) -> str:
    """The deal code of a deal's cards (the inverse of ``parse_deal_code``)."""
    if variant.decks == 1:
        return cards.format_deal_code(cards_)
    if sorted(card % FACES for card in cards_) != sorted(
        face for face in range(FACES) for _ in range(variant.decks)
    ):
        raise DealCodeError(f"a {variant.title} deal is each of the 52 cards {variant.decks} times")
    return "".join(card_code(card % FACES) for card in cards_)


def deal_code_for_seed(seed: int, variant: Variant = SCORPION) -> str:
    """The deal code of a seed for ``variant`` (docs/deals.md, "Seeds").

    One deck: ``games.engine.deals.deal_code_for_seed`` exactly (the same shuffle, the same code,
    read with the variant's layout). Two decks: the same algorithm on cards 0..103 (the starting
    deck is AS..KC twice), swaps for ``i`` from 103 down to 1.
    """
    if variant.decks == 1:
        return deals.deal_code_for_seed(seed)
    rng = deals.SplitMix64(deals._check_seed(seed))
    deck = list(range(variant.deck_size))
    for i in range(variant.deck_size - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return "".join(card_code(card % FACES) for card in deck)


def describe(variant: Variant) -> str:
    """A one-line summary, for tools: "Wasp: 7 columns, 1 deck, stock 3, any card to a gap"."""
    empty = "Kings only" if variant.empty_column == "king" else "any card"
    return (
        f"{variant.title}: {variant.column_count} columns, {variant.decks} deck(s), "
        f"stock {variant.stock_size}, reserve {variant.reserve_size}, builds by {variant.build}, "
        f"{empty} to an empty column"
    )
