"""The games of the Scorpion family a game may be, each with its layout and rules."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from scorpion_client.models._fields import _extra, _int, _opt_str, _str
from scorpion_client.models.games import Variant


@dataclass
class VariantInfo:
    """One game of the Scorpion family (``client.variants()``): its layout and rules in
    brief. ``build``: "suit" (a card goes on the next higher card of its suit) or
    "alternate" (of the other colour); ``empty_column``: "king" or "any"; ``reserve``: face-up
    reserve cards (a game's ``reserve``)."""

    name: Variant
    title: str
    decks: int
    columns: int
    column_sizes: list[int]
    face_down: list[int]
    stock: int
    reserve: int
    build: Literal["suit", "alternate"]
    empty_column: Literal["king", "any"]
    summary: str
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> VariantInfo:
        def ints(value: Any) -> list[int]:
            return [_int(item) for item in value] if isinstance(value, list) else []

        return cls(
            name=cast(Variant, _str(data["name"])),
            title=_str(data["title"]),
            decks=_int(data["decks"]),
            columns=_int(data["columns"]),
            column_sizes=ints(data.get("column_sizes")),
            face_down=ints(data.get("face_down")),
            stock=_int(data.get("stock", 0)),
            reserve=_int(data.get("reserve", 0)),
            build=cast(Literal["suit", "alternate"], _str(data.get("build", "suit"))),
            empty_column=cast(Literal["king", "any"], _str(data.get("empty_column", "king"))),
            summary=_opt_str(data.get("summary")) or "",
            extra=_extra(
                data,
                (
                    "name",
                    "title",
                    "decks",
                    "columns",
                    "column_sizes",
                    "face_down",
                    "stock",
                    "reserve",
                    "build",
                    "empty_column",
                    "summary",
                ),
            ),
        )
