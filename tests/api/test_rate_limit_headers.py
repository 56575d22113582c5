"""Every answer the API's throttles counted says where the client stands: ``RateLimit-Limit``,
``RateLimit-Remaining`` and ``RateLimit-Reset`` of the counter nearest to being spent, a 429
included (with ``Retry-After``, the same wait), so a client can pace itself before a 429."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from infrastructure.throttles import window_counter
from social.services import limits
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The throttles' rates (DRF reads them once: patch what they consult), and their clock
    frozen, so that no window ends in the middle of a test."""
    chosen = {"anon": "1000/min", "user": "1000/min", "ip": "1000/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", chosen)
    monkeypatch.setattr(SimpleRateThrottle, "timer", staticmethod(lambda: 1_000_000.0))
    return chosen


def standing(response: Any) -> tuple[int, int, int]:
    return (
        int(response["RateLimit-Limit"]),
        int(response["RateLimit-Remaining"]),
        int(response["RateLimit-Reset"]),
    )


def test_each_answer_counts_down_the_players_limit_and_the_429_says_when(
    player: Player, rates: dict[str, str]
) -> None:
    rates["user"] = "4/min"
    answers = [player.get("/api/v1/me/") for _ in range(5)]

    assert [answer.status_code for answer in answers] == [200, 200, 200, 200, 429]
    assert [standing(answer)[:2] for answer in answers] == [(4, 3), (4, 2), (4, 1), (4, 0), (4, 0)]
    resets = {standing(answer)[2] for answer in answers}
    assert len(resets) == 1  # one window, one end
    (reset,) = resets
    assert 1 <= reset <= 60
    assert answers[-1]["Retry-After"] == str(reset)


def test_the_tightest_counter_is_the_one_shown(player: Player, rates: dict[str, str]) -> None:
    rates["ip"] = "3/min"  # the address's limit, tighter than the player's
    first = player.get("/api/v1/me/")
    assert standing(first)[:2] == (3, 2)
    rates["ip"] = "1000/min"
    rates["user"] = "10/min"
    second = player.get("/api/v1/me/")
    assert standing(second)[:2] == (10, 8)  # the player's second request in the window


def test_error_answers_and_anonymous_callers_carry_the_fields_too(rates: dict[str, str]) -> None:
    rates["anon"] = "2/min"
    client = APIClient()
    answers = [client.get("/api/v1/games/") for _ in range(3)]
    assert [answer.status_code for answer in answers] == [401, 401, 429]
    assert [standing(answer)[:2] for answer in answers] == [(2, 1), (2, 0), (2, 0)]
    assert answers[-1]["Retry-After"] == answers[-1]["RateLimit-Reset"]
    public = APIClient().get("/api/v1/variants/")
    assert public.status_code == 429
    assert standing(public)[:2] == (2, 0)


def test_a_per_action_limit_refuses_with_its_own_wait_and_leaves_the_request_counters_fields(
    player: Player, rates: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 429 of a limit on one kind of action (here invites a day; challenges, friend requests,
    solver runs and the stream cap alike) says in ``Retry-After`` when that action is allowed
    again, while the ``RateLimit-*`` fields stay those of the request counters, which every
    other request still has left: a client pacing by them (the SDK) must not stop all its
    requests for the rest of the day because one kind of action is spent."""
    rates["user"] = "10/min"
    monkeypatch.setitem(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "invite", "1/day")
    monkeypatch.setattr(limits, "time", SimpleNamespace(time=lambda: 1_000_000.0))
    made = player.post("/api/v1/invites/")
    refused = player.post("/api/v1/invites/")
    assert (made.status_code, refused.status_code) == (201, 429)
    assert refused.json()["code"] == "throttled"
    user_id = player.get("/api/v1/me/").json()["id"]
    _, day_left = window_counter(f"throttle:invite:{user_id}", 86400, 1_000_000.0)
    assert refused["Retry-After"] == str(math.ceil(day_left))  # the invites' window
    assert standing(made)[:2] == (10, 9)
    assert standing(refused)[:2] == (10, 8)  # the request counter, not the invites'
    assert 1 <= standing(refused)[2] <= 60
    assert player.get("/api/v1/me/").status_code == 200  # nothing else is held up (above too)
