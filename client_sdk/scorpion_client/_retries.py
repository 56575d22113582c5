"""When and how long to wait before re-sending a request: the retry policy, what may always
be re-sent, and the server's ``Retry-After``."""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass

import httpx

DEFAULT_MAX_RETRIES = 2


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before re-sending a request.

    Retried: connection errors and timeouts, 429 (after ``Retry-After`` when the server sends
    one), 500, 502, 503 and 504; each wait is "full jitter" exponential backoff, a random time
    between 0 and ``min(backoff_max, backoff_base * 2**attempt)``. A request that may already
    have been applied by the server is re-sent only when that is harmless: GET and DELETE, and
    the POSTs that carry an ``Idempotency-Key`` (commands, creating and restarting a game: the
    server answers a re-sent one from its record). Other POSTs (sign-up, log-in, the OAuth token
    endpoint) are re-sent only when the server surely did not act on them (the connection was
    refused, 429, 503). A ``Retry-After`` longer than ``max_retry_after`` is not waited
    for: ``RateLimited`` is raised at once with ``retry_after`` set.

    ``pace``: when the last answer said no request is left in the rate limit's window
    (``client.rate_limit``), wait until the window ends before sending the next one, rather
    than meet a 429 (a wait longer than ``max_retry_after`` is not made: the request goes and
    its 429 is raised).
    """

    max_retries: int = DEFAULT_MAX_RETRIES
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    max_retry_after: float = 60.0
    pace: bool = True
    retry_statuses: frozenset[int] = frozenset({429, 500, 502, 503, 504})

    def backoff(self, attempt: int) -> float:
        return random.uniform(0.0, min(self.backoff_max, self.backoff_base * 2**attempt))


# Statuses for which the server did nothing, whatever the request: it may always be re-sent.
NOT_PROCESSED_STATUSES = frozenset({429, 503})
# 503s that re-sending within a call does not mend: no worker computes analyses (one may be
# back in minutes, past any wait worth making here; the caller asks again when it likes).
LASTING_503 = frozenset({"analysis_needs_worker"})
# Transport errors raised before the request left: it may always be re-sent.
NOT_SENT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` in seconds: a number of seconds or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
