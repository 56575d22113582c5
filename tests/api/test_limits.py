"""Rate limits: DRF throttles on the API, allauth's limits on sign-up and log-in."""

from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from tests.api.conftest import Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def low_rates(monkeypatch: pytest.MonkeyPatch) -> None:
    # DRF reads the rates once at import; patch the class attribute the throttles consult.
    monkeypatch.setattr(
        SimpleRateThrottle, "THROTTLE_RATES", {"anon": "2/min", "user": "3/min", "ip": "5/min"}
    )


@pytest.mark.usefixtures("low_rates")
def test_per_user_throttle_answers_429_with_retry_after(player: Player) -> None:
    statuses = [player.get("/api/v1/me/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    response = player.get("/api/v1/me/")
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 60


@pytest.mark.usefixtures("low_rates")
def test_anonymous_callers_are_throttled_per_address() -> None:
    client = APIClient()
    statuses = [client.get("/api/v1/games/").status_code for _ in range(3)]
    assert statuses == [401, 401, 429]


@pytest.mark.usefixtures("low_rates")
def test_many_accounts_on_one_address_share_the_address_limit(make_player: object) -> None:
    from collections.abc import Callable

    assert callable(make_player)
    factory: Callable[[], Player] = make_player
    players = [factory() for _ in range(3)]
    statuses = [p.get("/api/v1/me/").status_code for p in players for _ in range(2)]
    assert statuses.count(429) == 1  # the sixth request from the address is over 5/min


def test_signup_is_rate_limited_by_allauth() -> None:
    client = APIClient()
    with override_settings(ACCOUNT_RATE_LIMITS={"signup": "2/m/ip"}):
        statuses = [
            client.post(
                "/_allauth/app/v1/auth/signup",
                {"email": f"flood{i}@example.com", "password": "a long password 99"},
                format="json",
            ).status_code
            for i in range(3)
        ]
    assert statuses == [200, 200, 429]


def test_login_attempts_are_rate_limited_by_allauth() -> None:
    client = APIClient()
    with override_settings(ACCOUNT_RATE_LIMITS={"login": "2/m/ip"}):
        statuses = [
            client.post(
                "/_allauth/app/v1/auth/login",
                {"email": "nobody@example.com", "password": "wrong password"},
                format="json",
            ).status_code
            for _ in range(3)
        ]
    assert statuses[-1] == 429
