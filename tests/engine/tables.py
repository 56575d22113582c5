"""Hand-built positions for the engine's tests, written the way one reads the table.

A column is a picture: card codes bottom to top, the face-down ones before a ``|``:
``"3D 9C | KS QS"`` is two face-down cards under a face-up King and Queen of spades; ``""`` is
an empty column. Hand-built tables hold only the cards a test needs (the rules never ask for
all 52), except where a test says so.
"""

from __future__ import annotations

from games.engine.cards import RANKS, SUITS, card_code, parse_card
from games.engine.position import COLUMN_COUNT, Position


def cards(picture: str) -> tuple[int, ...]:
    return tuple(parse_card(code) for code in picture.split())


def table(*columns: str, stock: str = "", collected: str = "") -> Position:
    """A position from up to seven column pictures (the missing ones are empty)."""
    if len(columns) > COLUMN_COUNT:
        raise ValueError(f"a table has {COLUMN_COUNT} columns")
    pictures = list(columns) + [""] * (COLUMN_COUNT - len(columns))
    parsed = [picture.split("|") if "|" in picture else ["", picture] for picture in pictures]
    return Position(
        columns=tuple(cards(face_down) + cards(face_up) for face_down, face_up in parsed),
        hidden=tuple(len(face_down.split()) for face_down, _ in parsed),
        stock=cards(stock),
        collected=tuple(SUITS.index(suit) for suit in collected),
    )


def pictures(position: Position) -> list[str]:
    """The column pictures of ``position``, as ``table`` reads them."""
    result = []
    for column, hidden in zip(position.columns, position.hidden, strict=True):
        face_down = " ".join(card_code(card) for card in column[:hidden])
        face_up = " ".join(card_code(card) for card in column[hidden:])
        result.append(f"{face_down} | {face_up}" if hidden else face_up)
    return result


def run(suit: str, high: str = "K", low: str = "A") -> str:
    """The picture of a same-suit run from ``high`` down to ``low``: ``run("S", "K", "J")``."""
    ranks = range(RANKS.index(high), RANKS.index(low) - 1, -1)
    return " ".join(RANKS[rank] + suit for rank in ranks)
