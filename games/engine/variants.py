"""STAND-IN until branch vareng lands games/engine/variants.py (its interface, Scorpion only).

Replaced wholesale by the engine's module on merge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from games.engine.errors import EngineError

if TYPE_CHECKING:
    from games.engine.position import Position


class UnknownVariantError(EngineError):
    code = "validation_error"


@dataclass(frozen=True, eq=False)
class Variant:
    name: str
    title: str
    decks: int
    column_sizes: tuple[int, ...]
    hidden: tuple[int, ...]
    stock_size: int
    reserve_size: int
    empty_column: str
    build: str
    runs_leave: bool
    source: str

    @property
    def column_count(self) -> int:
        return len(self.column_sizes)


SCORPION = Variant(
    "scorpion", "Scorpion", 1, (7,) * 7, (3, 3, 3, 3, 0, 0, 0), 3, 0, "king", "suit", True, ""
)
VARIANTS: dict[str, Variant] = {SCORPION.name: SCORPION}


def get_variant(name: str) -> Variant:
    variant = VARIANTS.get(name) if isinstance(name, str) else None
    if variant is None:
        raise UnknownVariantError(f"{name!r} is not a variant")
    return variant


def deal_code_for_seed(seed: int, variant: Variant = SCORPION) -> str:
    from games.engine import deals

    return deals.deal_code_for_seed(seed)


def deal_position(code: str, variant: Variant = SCORPION) -> Position:
    from games.engine import position

    return position.deal_position(code)
