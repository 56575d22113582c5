"""One API call as data: everything needed to send it (again, on a retry or for the next
page) and to read its answer."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

import httpx

T = TypeVar("T")


@dataclass(frozen=True)
class Spec(Generic[T]):
    """One logical API call: everything needed to send it (again) and to read its answer.

    A spec is built once per call, so its ``Idempotency-Key`` header is the same on every
    attempt the retry policy makes.
    """

    method: str
    url: str
    parse: Callable[[httpx.Response], T]
    params: Mapping[str, str | int] | None = None
    json: Any = None
    data: Mapping[str, str] | None = None  # a form (the OAuth endpoints)
    headers: Mapping[str, str] = field(default_factory=dict)
    # May be re-sent even when the server may already have acted on it.
    replay_safe: bool = True
    authenticated: bool = True
    # Non-2xx statuses that are answers, handed to ``parse`` (304 of a conditional GET, ...).
    ok_statuses: frozenset[int] = frozenset()

    def follow(self, next_url: str, base_url: httpx.URL) -> Spec[T]:
        """The same call for a ``next`` link: its path and query on our own base URL (a
        server behind a proxy may write links with another scheme or host)."""
        target = httpx.URL(next_url)
        url = base_url.copy_with(raw_path=target.raw_path)
        return replace(self, url=str(url), params=None)
