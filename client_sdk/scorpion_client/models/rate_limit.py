"""Where the client stands with the server's rate limit."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RateLimit:
    """Where the client stands with the server's rate limit, as the last answer said it
    (``RateLimit-Limit``, ``RateLimit-Remaining``, ``RateLimit-Reset``; the tightest of the
    server's counters): ``limit`` requests a window, ``remaining`` of them left, the window
    ending ``reset`` seconds after the answer was read (``read_at``, ``time.monotonic()``)."""

    limit: int
    remaining: int
    reset: float
    read_at: float

    @property
    def resets_in(self) -> float:
        """Seconds from now until the window ends (0 once it has)."""
        return max(0.0, self.read_at + self.reset - time.monotonic())

    @classmethod
    def from_headers(cls, headers: Mapping[str, str]) -> RateLimit | None:
        """The fields of an answer, or None when it has none (or they do not parse)."""
        try:
            return cls(
                limit=int(headers["RateLimit-Limit"]),
                remaining=int(headers["RateLimit-Remaining"]),
                reset=float(headers["RateLimit-Reset"]),
                read_at=time.monotonic(),
            )
        except (KeyError, ValueError):
            return None
