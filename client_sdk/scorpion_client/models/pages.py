"""A page of a paginated list."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from scorpion_client.models._fields import _list_of, _mapping, _opt_int, _opt_str

T = TypeVar("T")


@dataclass
class Page(Generic[T]):
    """One page of a paginated list: ``results`` and the links to its neighbours."""

    results: list[T]
    count: int | None = None
    next: str | None = None
    previous: str | None = None

    @classmethod
    def from_json(cls, data: Any, parse: Callable[[Mapping[str, Any]], T]) -> Page[T]:
        if isinstance(data, list):  # an unpaginated list is one page
            return cls(results=_list_of(data, parse), count=len(data))
        body = _mapping(data)
        return cls(
            results=_list_of(body.get("results"), parse),
            count=_opt_int(body.get("count")),
            next=_opt_str(body.get("next")),
            previous=_opt_str(body.get("previous")),
        )
