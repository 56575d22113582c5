"""STAND-IN until branch vareng lands games/engine/variants.py (its interface, Scorpion only).

Replaced wholesale by the engine's module on merge.
"""

from __future__ import annotations

from dataclasses import dataclass


class UnknownVariantError(ValueError):
    code = "unknown_variant"


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    title: str
    columns: int
    decks: int


SCORPION = Variant("scorpion", "Scorpion", 7, 1)
VARIANTS: tuple[Variant, ...] = (SCORPION,)


def get_variant(name: str) -> Variant:
    for variant in VARIANTS:
        if variant.name == name:
            return variant
    raise UnknownVariantError(f"no variant named {name!r}")
