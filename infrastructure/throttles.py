"""The API's throttles: fixed-window counters, one atomic increment per request and scope.

DRF's ``SimpleRateThrottle`` keeps, per key, the list of the timestamps of every request in
the window: it reads the list, trims it and writes it back. Concurrent requests read the same
list and each writes back its own, so counts are lost (8 threads of one user got 35% over the
limit through gunicorn, 220% calling the throttle directly: ``bench/throttle.py``), and the
list grows with the traffic (a read and a write of 6,000 floats per request at 6,000 requests
a window). Here each key has one integer counter per window, increased by one atomic ``INCR``
with its ``EXPIRE`` in the same round trip (``FailOpenRedisCache.incr_counter``; ``add`` and
``incr`` under LocMemCache's lock in the embedded default). The cost of a request does not
depend on the traffic, and concurrent requests cannot both be counted as the last one allowed.

A fixed window allows a burst of up to twice the rate across the boundary of two windows (the
end of one and the start of the next); that is the price of one counter. Each key's windows are
offset by a hash of the key, so the windows of all clients do not end, and a crowd of throttled
clients does not come back, at the same instant.

A denied request is counted too, but that cannot extend the block beyond the window's end,
and ``Retry-After`` says exactly when that is.
"""

from __future__ import annotations

import math
import zlib
from typing import TYPE_CHECKING

from rest_framework.throttling import SimpleRateThrottle

from infrastructure.cache import incr_counter
from infrastructure.client_ip import rate_limit_ident

if TYPE_CHECKING:  # importing rest_framework.views here would be circular at settings load
    from rest_framework.request import Request
    from rest_framework.views import APIView


def window_counter(key: str, duration: int, now: float) -> tuple[str, float]:
    """The key of the counter of ``key``'s window that holds ``now``, and the seconds left in
    that window. The window's number is in the key, so each window starts from zero by itself.
    A key's windows start at an offset of its hash (``0 <= offset < duration`` seconds)."""
    offset = zlib.crc32(key.encode()) % duration
    window, elapsed = divmod(now - offset, duration)
    return f"{key}:{int(window)}", duration - elapsed


class FixedWindowRateThrottle(SimpleRateThrottle):
    """A ``SimpleRateThrottle`` (same rates, scopes and settings) counting per fixed window."""

    cache_format = "throttle:%(scope)s:%(ident)s"
    num_requests: int | None  # set by SimpleRateThrottle.__init__ from the rate
    duration: int | None
    remaining: float = 0.0

    def get_ident(self, request: Request) -> str:
        # The client's address as NUM_PROXIES vouches for it (infrastructure/client_ip.py);
        # IPv6 by its /64, so that one subscriber cannot take a fresh limit per address.
        return rate_limit_ident(request)

    def allow_request(self, request: Request, view: APIView) -> bool:
        if self.rate is None or self.duration is None or self.num_requests is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        counter, self.remaining = window_counter(key, self.duration, self.timer())
        # The counter outlives its window by a second at most.
        count = incr_counter(self.cache, counter, ttl=math.ceil(self.remaining) + 1)
        return count <= self.num_requests

    def wait(self) -> float:
        """Seconds until the current window ends (asked for only after a denial)."""
        return self.remaining


class AnonRateThrottle(FixedWindowRateThrottle):
    """Anonymous callers, per address (DRF's ``AnonRateThrottle``, counted atomically)."""

    scope = "anon"

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class UserRateThrottle(FixedWindowRateThrottle):
    """Signed-in callers per account, anyone else per address (DRF's ``UserRateThrottle``)."""

    scope = "user"

    def get_cache_key(self, request: Request, view: APIView) -> str:
        if request.user and request.user.is_authenticated:
            ident = str(request.user.pk)
        else:
            ident = self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class IPRateThrottle(FixedWindowRateThrottle):
    """Counts every request from one address, whoever is signed in, so that many accounts
    on one address cannot multiply the per-user limit."""

    scope = "ip"

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class GuestRateThrottle(FixedWindowRateThrottle):
    """Guest accounts made per address (``POST /api/v1/guest/``, accounts/guests.py): one more
    counter of the same kind, so that a script cannot mint accounts faster than sign-ups."""

    scope = "guest"

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def rate_parts(rate: str) -> tuple[int, int]:
    """``"12/min"`` as (12, 60): DRF's reading of a rate (``SimpleRateThrottle.parse_rate``)."""
    count, period = rate.split("/")
    return int(count), {"s": 1, "m": 60, "h": 3600, "d": 86400}[period[0]]


def take(key: str, rate: str, *, now: float) -> float | None:
    """Count one use of ``key`` against ``rate`` in a fixed window, as the throttles count a
    request; None if allowed, else the seconds until the window ends. For work a request may
    or may not start (a solver run), counted by the service only when it does start."""
    limit, duration = rate_parts(rate)
    counter, remaining = window_counter(f"throttle:{key}", duration, now)
    # The default cache, as the throttles use (SimpleRateThrottle.cache).
    from django.core.cache import cache

    count = incr_counter(cache, counter, ttl=math.ceil(remaining) + 1)
    return None if count <= limit else remaining
