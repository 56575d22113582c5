"""Cards, card codes and deal codes.

A card is a small int, ``suit * 13 + rank``, with ``rank`` 0 for the Ace up to 12 for the
King and ``suit`` the index in ``SUITS``. Ints keep positions cheap to copy and hash, and make
"same suit, one rank higher" a single addition: the successor of card ``c`` is ``c + 1``
whenever ``c`` is not a King.

A card code is rank + suit (``"TH"``, ten of hearts). A deal code is the 52 card codes
concatenated: the tableau column by column, each bottom to top, then the three stock cards in
the order they are dealt (docs/rules.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from games.engine.errors import DealCodeError, UnknownCardError

RANKS = "A23456789TJQK"
SUITS = "SHDC"
DECK_SIZE = 52
KING = 12
ACE = 0

DEAL_CODE_LENGTH = 2 * DECK_SIZE

# The run that a suit's collection removes, bottom to top: King down to Ace.
SUIT_RUNS = tuple(tuple(range(suit * 13 + KING, suit * 13 - 1, -1)) for suit in range(len(SUITS)))

_CODE_OF = tuple(r + s for s in SUITS for r in RANKS)
_CARD_OF = {code: card for card, code in enumerate(_CODE_OF)}


def rank(card: int) -> int:
    return card % 13


def suit(card: int) -> int:
    return card // 13


def is_king(card: int) -> bool:
    return card % 13 == KING


def card_code(card: int) -> str:
    """``card_code(21) == "9H"``; a two-deck card (52-103) is named by its face."""
    return _CODE_OF[card % DECK_SIZE]


def parse_card(code: object) -> int:
    """The card a code names; case-insensitive (``"8h"`` is ``"8H"``).

    Raises UnknownCardError with the offending text for anything else.
    """
    if not isinstance(code, str):
        raise UnknownCardError(f"a card is a 2-character code such as 8H, not {code!r}")
    card = _CARD_OF.get(code.strip().upper())
    if card is None:
        raise UnknownCardError(
            f"{code!r} is not a card: a card is a rank ({RANKS}) then a suit ({SUITS}), e.g. 8H"
        )
    return card


def suit_code(suit_index: int) -> str:
    return SUITS[suit_index]


def parse_suit(code: object) -> int:
    """The suit a one-letter code names (stored positions and records); ValueError otherwise."""
    if not isinstance(code, str) or len(code) != 1 or code.upper() not in SUITS:
        raise ValueError(f"a suit is one of {SUITS}, not {code!r}")
    return SUITS.index(code.upper())


def parse_deal_code(code: object) -> tuple[int, ...]:
    """The 52 cards of a deal code, in deal-code order.

    Each error names what is wrong: the length expected, the position of an unknown card,
    the card that appears twice, the cards that are missing.
    """
    if not isinstance(code, str):
        raise DealCodeError(f"a deal code is a string of {DEAL_CODE_LENGTH} characters")
    text = code.strip().upper()
    if len(text) != DEAL_CODE_LENGTH:
        raise DealCodeError(
            f"a deal code has {DEAL_CODE_LENGTH} characters (52 cards of 2), not {len(text)}"
        )
    cards: list[int] = []
    first_seen: dict[int, int] = {}
    for index in range(DECK_SIZE):
        pair = text[2 * index : 2 * index + 2]
        card = _CARD_OF.get(pair)
        if card is None:
            raise DealCodeError(
                f"card {index + 1} of the deal code, {pair!r}, is not a card "
                f"(rank {RANKS}, suit {SUITS})"
            )
        if card in first_seen:
            raise DealCodeError(
                f"{pair} appears twice in the deal code (cards {first_seen[card] + 1} "
                f"and {index + 1})"
            )
        first_seen[card] = index
        cards.append(card)
    return tuple(cards)


def format_deal_code(cards: Sequence[int]) -> str:
    """The deal code of 52 distinct cards (the inverse of ``parse_deal_code``)."""
    if len(cards) != DECK_SIZE or len(set(cards)) != DECK_SIZE:
        raise DealCodeError("a deal is 52 distinct cards")
    return "".join(_CODE_OF[card] for card in cards)


def format_cards(cards: Iterable[int]) -> list[str]:
    return [_CODE_OF[card % DECK_SIZE] for card in cards]
