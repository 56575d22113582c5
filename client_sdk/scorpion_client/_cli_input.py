"""What the player types: a move (``8h``, ``kh 5``, ``8h from 3 lower``), or the start of a
game's id."""

from __future__ import annotations

from dataclasses import dataclass

from scorpion_client.models import Copy


@dataclass(frozen=True)
class Move:
    card: str
    to: int | None  # 0-based, as the API
    source: int | None = None  # 0-based: the column the card is taken from ("from 3")
    copy: Copy | None = None  # of two copies in that column ("from 3 lower")


# The most places a card is picked from: ten columns and Three Blind Mice's two reserve cards.
MAX_COLUMNS = 12


def parse_move(text: str) -> Move | None:
    """``"8h"`` -> Move("8H", None); ``"kh 5"`` -> Move("KH", 4) (on screen columns are 1-7,
    or 1-10); ``"8h from 3"`` -> Move("8H", None, 2) (the copy in column 3, two decks);
    ``"8h from 3 lower"`` -> Move("8H", None, 2, "lower") (the lower of two copies there); None
    if ``text`` is not a move."""
    parts = text.split()
    source: int | None = None
    copy: Copy | None = None
    if len(parts) >= 4 and parts[-3].lower() == "from" and parts[-1].lower() in ("upper", "lower"):
        copy = "lower" if parts[-1].lower() == "lower" else "upper"
        parts = parts[:-1]
    if len(parts) >= 3 and parts[-2].lower() == "from":
        if not parts[-1].isdigit() or not 1 <= int(parts[-1]) <= MAX_COLUMNS:
            return None
        source = int(parts[-1]) - 1
        parts = parts[:-2]
    if not 1 <= len(parts) <= 2:
        return None
    card = parts[0].upper()
    if card.startswith("10"):
        card = "T" + card[2:]
    if len(card) != 2 or card[0] not in "A23456789TJQK" or card[1] not in "SHDC":
        return None
    to: int | None = None
    if len(parts) == 2:
        if not parts[1].isdigit() or not 1 <= int(parts[1]) <= MAX_COLUMNS:
            return None
        to = int(parts[1]) - 1
    return Move(card, to, source, copy)


_HEX_DIGITS = frozenset("0123456789abcdef")
_ID_SHAPE = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"


def id_start_digits(text: str) -> str | None:
    """The hex digits of the start of a game's id as a player may type it (lower case):
    digits alone, or with the id's hyphens where it has them (8-4-4-4-12); else None."""
    if "-" not in text:
        return text if 0 < len(text) <= 32 and set(text) <= _HEX_DIGITS else None
    if len(text) > len(_ID_SHAPE):
        return None
    for char, shape in zip(text, _ID_SHAPE, strict=False):
        if (char == "-") != (shape == "-") or (char != "-" and char not in _HEX_DIGITS):
            return None
    return text.replace("-", "")
