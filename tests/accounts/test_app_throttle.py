"""The per-app rate limit: every request with any token of one app counts, whichever player
it acts for; the per-user limit still counts each player's requests, through apps too."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.throttling import SimpleRateThrottle

from tests.accounts.conftest import App, authorize, bearer, register
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def low_rates(monkeypatch: pytest.MonkeyPatch) -> None:
    # DRF reads the rates once at import; patch the class attribute the throttles consult.
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {"anon": "100/min", "user": "5/min", "ip": "100/min", "app": "4/min"},
    )
    # The throttles count in fixed windows: freeze their clock, so that no window ends by
    # chance in the middle of a test.
    monkeypatch.setattr(SimpleRateThrottle, "timer", staticmethod(lambda: 1_000_000.0))


@pytest.mark.usefixtures("low_rates")
def test_an_app_is_limited_across_all_its_players(
    make_player: Callable[[], Player], app: App
) -> None:
    first, second = make_player(), make_player()
    tokens = [authorize(p, app, "games:read").access_token for p in (first, second)]
    statuses = [bearer(tokens[n % 2]).get("/api/v1/daily/").status_code for n in range(5)]
    assert statuses == [200, 200, 200, 200, 429]
    limited = bearer(tokens[1]).get("/api/v1/daily/")
    assert limited.json()["code"] == "throttled"
    assert 1 <= int(limited["Retry-After"]) <= 60
    # Another app, and the players' own sessions, are not held back by this app's limit.
    other = authorize(first, register(name="Other"), "games:read").access_token
    assert bearer(other).get("/api/v1/daily/").status_code == 200
    assert second.get("/api/v1/daily/").status_code == 200


@pytest.mark.usefixtures("low_rates")
def test_a_players_requests_through_apps_count_for_the_player(player: Player) -> None:
    apps = [register(name=f"App {n}") for n in range(3)]
    tokens = [authorize(player, app, "games:read").access_token for app in apps]
    statuses = [bearer(tokens[n % 3]).get("/api/v1/daily/").status_code for n in range(6)]
    assert statuses == [200, 200, 200, 200, 200, 429]


@pytest.mark.usefixtures("low_rates")
def test_the_app_limit_is_one_atomic_counter_per_window(player: Player, app: App) -> None:
    """A fixed-window counter (infrastructure/throttles.py), not DRF's list of timestamps."""
    from django.core.cache import cache

    from infrastructure.throttles import window_counter

    token = authorize(player, app, "games:read").access_token
    for _ in range(3):
        assert bearer(token).get("/api/v1/daily/").status_code == 200
    counter, _ = window_counter(f"throttle:app:{app.client_id}", 60, 1_000_000.0)
    assert cache.get(counter) == 3
