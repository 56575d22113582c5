"""The SDK reads the server's ``RateLimit-*`` fields (``client.rate_limit``) and paces itself:
with no request left in the window, it waits for the window's end instead of meeting a 429.
On the live server, with real requests."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from rest_framework.throttling import SimpleRateThrottle
from scorpion_client import RateLimited, RetryPolicy, Scorpion

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def rates(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    chosen = {"anon": "1000/min", "user": "1000/min", "ip": "1000/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", chosen)
    return chosen


def test_the_client_exposes_where_it_stands(
    make_client: Callable[..., Scorpion], rates: dict[str, str]
) -> None:
    rates["user"] = "50/hour"
    client = make_client()
    assert client.rate_limit is None  # nothing counted yet: the sign-up is allauth's

    client.me.get()
    first = client.rate_limit
    client.me.get()
    second = client.rate_limit

    assert first is not None
    assert second is not None
    assert (first.limit, second.limit) == (50, 50)
    assert second.remaining == first.remaining - 1
    assert 0 < second.resets_in <= 3600
    # A view made by with_options shares what the client learns.
    view = client.with_options(timeout=5)
    view.me.get()
    assert client.rate_limit is not None
    assert client.rate_limit.remaining == second.remaining - 1


def test_a_paced_client_waits_for_the_window_instead_of_meeting_a_429(
    make_client: Callable[..., Scorpion], rates: dict[str, str]
) -> None:
    rates["user"] = "2/s"
    paced = make_client(retry=RetryPolicy(max_retries=0))  # no retry: a 429 would be raised
    started = time.monotonic()
    for _ in range(5):
        paced.me.get()
    assert time.monotonic() - started >= 1.0  # it waited for at least one window's end

    unpaced = make_client(retry=RetryPolicy(max_retries=0, pace=False))
    answered = 0
    with pytest.raises(RateLimited) as refused:  # noqa: PT012 (the 429 comes within 10 calls)
        for _ in range(10):  # more than a slow machine could spread over windows of 2
            unpaced.me.get()
            answered += 1
    assert answered < 10
    assert refused.value.retry_after is not None
    assert unpaced.rate_limit is not None
    assert unpaced.rate_limit.remaining == 0
