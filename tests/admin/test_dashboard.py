"""The staff dashboard: access, the figures for a known dataset, and a bounded query count."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts import guests
from games import services
from games.history import Command
from games.models import DailyDeal, Game, GameStatus, WinnableDeal
from games.services import DealChoice
from infrastructure import liveness
from staff import selectors
from tests.admin.conftest import (
    NOW,
    TODAY,
    WON,
    Clock,
    daily_deal,
    make_user,
    move_to,
    new_game,
    winnable_deal,
    won_game,
)
from tests.difficulty_data import banded_pool

pytestmark = pytest.mark.django_db

URL = "/staff/dashboard/"


def days_ago(n: int) -> datetime.datetime:
    return NOW - datetime.timedelta(days=n)


def test_url_is_staff_dashboard() -> None:
    assert reverse("staff:dashboard") == URL


@pytest.mark.parametrize("who", ["anonymous", "player"])
def test_non_staff_are_sent_to_the_login(who: str, client: Client, player_client: Client) -> None:
    response = (client if who == "anonymous" else player_client).get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    assert "next=/staff/dashboard/" in response["Location"]


@pytest.fixture
def known_dataset(clock: Clock) -> None:
    """Five players, nine games over 40 days, three daily deals and a pool of three.

    Per day (started / won): today 4 / 2, yesterday 1 / 1, 3 days ago 1 / 0,
    10 days ago 1 / 1, 20 days ago 1 / 0; 40 days ago 1 / 1 (outside the 30 days).
    """
    alice, bob, carol, dave, eve = (
        make_user(f"{name}@example.com") for name in ("alice", "bob", "carol", "dave", "eve")
    )
    make_user("staffer@example.com", staff=True)  # not a player

    daily_deal(TODAY, WON[1], seed=1)
    daily_deal(TODAY + datetime.timedelta(days=1), WON[4], seed=2)
    daily_deal(TODAY + datetime.timedelta(days=2), WON[5], seed=3)
    DailyDeal.objects.filter(date=TODAY).update(created_at=days_ago(3))
    DailyDeal.objects.filter(date=TODAY + datetime.timedelta(days=1)).update(created_at=days_ago(1))
    winnable_deal(WON[2], seed=10)
    winnable_deal(WON[6], seed=11)
    winnable_deal(WON[7], seed=12)
    WinnableDeal.objects.filter(seed=11).update(created_at=days_ago(2))

    # 1. alice wins a seeded game today.
    won_game(alice, WON[0])
    # 2. alice starts a random game 3 days ago and never plays it.
    move_to(new_game(alice, mode="random"), days_ago(3))
    # 3. bob solves today's daily challenge.
    won_game(bob, WON[1], mode="daily")
    # 4. and 5. carol resigns today's daily, then starts it again.
    resigned = new_game(carol, mode="daily")
    services.game_execute_command(owner=carol, game_id=resigned.pk, command=Command("resign"))
    new_game(carol, mode="daily")
    # 6. dave created a game 20 days ago and played it 2 days ago: active this week.
    old = new_game(dave, mode="random")
    move_to(old, days_ago(20))
    Game.objects.filter(pk=old.pk).update(updated_at=days_ago(2))
    # 7. eve won a winnable deal 10 days ago.
    move_to(won_game(eve, WON[2], mode="winnable"), days_ago(10))
    # 8. bob won a seeded game 40 days ago.
    move_to(won_game(bob, WON[3]), days_ago(40))
    # 9. alice solved yesterday's daily challenge (yesterday).
    yesterday = won_game(alice, WON[1], mode="daily")
    move_to(yesterday, days_ago(1), daily_date=TODAY - datetime.timedelta(days=1))


def test_a_practice_win_of_the_daily_is_no_solve(admin_client: Client, clock: Clock) -> None:
    """The leaderboard ranks only a player's first attempt of the day; so do the dashboard's
    solvers: a player who resigned the ranked attempt and won a practice one did not solve it."""
    carol = make_user("carol@example.com")
    daily_deal(TODAY, WON[1], seed=1)
    first = new_game(carol, mode="daily")
    services.game_execute_command(owner=carol, game_id=first.pk, command=Command("resign"))
    practice = won_game(carol, WON[1], mode="daily")
    assert practice.ranked is False

    response = admin_client.get(URL)
    today = {day.day: day for day in response.context["data"].daily}[TODAY]
    assert (today.participants, today.solvers, today.games) == (1, 0, 2)


def test_win_rates_by_variant_list_every_variant_played_or_not(
    admin_client: Client, clock: Clock
) -> None:
    ann = make_user("ann@example.com")
    for variant in ("wasp", "wasp", "double-scorpion"):
        game = services.game_create(owner=ann, choice=DealChoice(mode="random", variant=variant))
        if variant == "double-scorpion":
            services.game_execute_command(owner=ann, game_id=game.pk, command=Command("resign"))
    won_game(ann, WON[0])  # Scorpion

    response = admin_client.get(URL)
    rates = {
        rate.key: (rate.started, rate.won, rate.resigned)
        for rate in response.context["data"].variants
    }
    assert rates == {
        "scorpion": (1, 1, 0),
        "wasp": (2, 0, 0),
        "wasp-ii": (0, 0, 0),
        "scorpion-tail": (0, 0, 0),
        "three-blind-mice": (0, 0, 0),
        "double-scorpion": (1, 0, 1),
        # Kept for the games begun in it (none here): staff still see its row.
        "double-scorpion-3-2": (0, 0, 0),
    }
    section = response.content.decode().split('id="variants"')[1].split("</section>")[0]
    assert "Double Scorpion" in section
    assert "Three Blind Mice" in section
    assert re.search(r'data-key="scorpion"><td>Scorpion</td><td>1</td><td>1</td>', section)


def test_guests_are_counted_apart_from_players(admin_client: Client, clock: Clock) -> None:
    """A guest (one tap on "Play now") is not a player account until it signs up; its games
    still make it active."""
    make_user("ann@example.com")
    guest = guests.guest_create()
    new_game(guest, mode="random")

    response = admin_client.get(URL)
    players = response.context["data"].players
    assert (players.total, players.guests, players.active_today) == (1, 1, 1)
    assert 'data-figure="players-guests">1<' in response.content.decode()


def test_figures_of_a_known_dataset(
    admin_client: Client, known_dataset: None, settings: Any
) -> None:
    settings.REDIS_URL = None
    response = admin_client.get(URL)
    assert response.status_code == 200
    data: selectors.Dashboard = response.context["data"]

    assert data.today == TODAY
    assert data.players == selectors.PlayerCounts(total=5, active_today=3, active_week=4)

    per_day = {day.day: (day.started, day.won) for day in data.games_per_day}
    assert len(data.games_per_day) == 30
    assert data.games_per_day[-1].day == TODAY
    assert data.games_per_day[0].day == TODAY - datetime.timedelta(days=29)
    expected = {0: (4, 2), 1: (1, 1), 3: (1, 0), 10: (1, 1), 20: (1, 0)}
    for offset in range(30):
        day = TODAY - datetime.timedelta(days=offset)
        assert per_day[day] == expected.get(offset, (0, 0)), offset

    modes = {mode.key: (mode.started, mode.won, mode.resigned) for mode in data.modes}
    assert modes == {
        "random": (2, 0, 0),
        "seeded": (2, 2, 0),
        "daily": (4, 2, 1),
        "winnable": (1, 1, 0),
    }
    rates = {mode.key: mode.win_rate for mode in data.modes}
    assert rates == {"random": 0.0, "seeded": 1.0, "daily": 0.5, "winnable": 1.0}

    daily = {day.day: day for day in data.daily}
    assert len(data.daily) == 30
    today = daily[TODAY]
    assert (today.participants, today.solvers, today.games) == (2, 1, 3)
    assert today.solve_rate == 0.5
    yesterday = daily[TODAY - datetime.timedelta(days=1)]
    assert (yesterday.participants, yesterday.solvers, yesterday.solve_rate) == (1, 1, 1.0)
    assert all(day.participants == 0 and day.solve_rate is None for day in data.daily[:-2])

    assert data.queue == selectors.QueueStatus(configured=False)
    supply = data.supply
    assert supply.last_generated_date == TODAY + datetime.timedelta(days=2)
    assert supply.last_generated_at == NOW
    assert supply.today_certified
    assert supply.future_days_certified == 2
    assert supply.certified_through == TODAY + datetime.timedelta(days=2)
    assert (supply.pool_size, supply.pool_added_24h) == (3, 2)

    body = response.content.decode()
    assert 'data-figure="players-total">5<' in body
    assert 'data-figure="players-today">3<' in body
    assert 'data-figure="players-week">4<' in body
    assert "no broker (embedded mode)" in body
    assert 'data-figure="pool-size">3<' in body
    assert 'data-figure="future-days">2<' in body
    for element in ("<svg", "<rect", "<polyline"):
        assert element in body
    # Dependency-free: no script and no third-party host.
    assert "<script" not in body.split('id="content-main"')[1]
    # (A URL, not the letters: a random CSRF token may well contain "cdn".)
    assert not re.search(r"""(?:src|href)=["'](?:https?:)?//""", body)


def test_queue_lengths_from_redis(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import redis

    class FakeRedis:
        def llen(self, key: str) -> int:
            return {"celery": 7, "hints": 3}[key]

    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    monkeypatch.setattr(redis.Redis, "from_url", classmethod(lambda cls, *a, **k: FakeRedis()))
    assert selectors.queue_status(redis_url=settings.REDIS_URL) == selectors.QueueStatus(
        configured=True, length=7, hints_length=3
    )


def test_the_dashboard_shows_each_queue_and_each_worker(
    admin_client: Client, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live default worker and a hints worker gone for ten minutes: the second is flagged."""
    status = selectors.QueueStatus(configured=True, length=2, hints_length=41)
    state = liveness.Liveness(
        configured=True,
        worker_seen_at=NOW - datetime.timedelta(seconds=20),
        beat_ticked_at=NOW - datetime.timedelta(seconds=5),
        hints_worker_seen_at=NOW - datetime.timedelta(minutes=10),
        now=NOW,
    )
    monkeypatch.setattr(selectors, "queue_status", lambda *, redis_url: status)
    monkeypatch.setattr(selectors.liveness, "read", lambda *, redis_url, now: state)
    body = admin_client.get(URL).content.decode()
    assert 'data-figure="queue">2<' in body
    assert 'data-figure="hints-queue">41<' in body
    assert re.search(r'class="number text" data-figure="worker-seen">[^<]*ago<', body)
    assert re.search(r'class="number text bad" data-figure="hints-worker-seen">10', body)


def test_queue_unreachable_is_reported() -> None:
    status = selectors.queue_status(redis_url="redis://127.0.0.1:1/0")
    assert status.configured
    assert status.length is None
    assert status.error


def _bulk_games(count: int, *, offset: int) -> None:
    """``count`` games across modes, states and days (made fast: state set directly)."""
    players = [make_user(f"bulk{offset + n}@example.com") for n in range(5)]
    for n in range(count):
        owner = players[n % len(players)]
        mode = ("random", "seeded", "daily", "winnable")[n % 4]
        if mode == "seeded":
            game = new_game(owner, code=WON[n % len(WON)]["code"])
        else:
            game = new_game(owner, mode=mode)
        when = NOW - datetime.timedelta(days=n % 35, hours=n % 7)
        extra: dict[str, Any] = {}
        if n % 3 == 0:
            extra = {"status": GameStatus.WON, "finished_at": when}
        elif n % 3 == 1:
            extra = {"status": GameStatus.RESIGNED, "finished_at": when}
        if mode == "daily":
            extra["daily_date"] = when.date()
        move_to(game, when, **extra)


def _dashboard_queries(client: Client) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(URL)
    assert response.status_code == 200
    return len(queries)


@pytest.mark.usefixtures("steady_session_snapshots")
def test_query_count_does_not_grow_with_the_data(
    admin_client: Client,
    clock: Clock,
    settings: Any,
    django_assert_max_num_queries: Any,
) -> None:
    settings.REDIS_URL = None
    daily_deal(TODAY, WON[1], seed=1)
    for n, deal in enumerate(WON):
        winnable_deal(deal, seed=100 + n)

    _bulk_games(10, offset=0)
    assert Game.objects.count() == 10
    # 16 at most: the page's own, and the session's user and language on its first read.
    with django_assert_max_num_queries(16):
        small = admin_client.get(URL)
    assert small.status_code == 200
    small_count = _dashboard_queries(admin_client)

    _bulk_games(90, offset=100)
    assert Game.objects.count() == 100
    with django_assert_max_num_queries(16):
        large = admin_client.get(URL)
    assert large.status_code == 200
    assert _dashboard_queries(admin_client) == small_count
    data: selectors.Dashboard = large.context["data"]
    assert sum(mode.started for mode in data.modes) == 100


def test_win_rates_by_difficulty_band_count_first_attempts(admin_client: Client) -> None:
    """The calibration's check (docs/difficulty.md): first attempts by the band they were
    announced in; a restart is no first attempt, and unrated deals are counted apart."""
    banded_pool()
    dana = make_user("dana@example.com")
    won = won_game(dana, WON[1], mode="winnable")  # drawn at random: some band
    band = won.difficulty
    services.game_restart(owner=dana, game_id=won.pk)
    lost = new_game(dana, mode="winnable")
    services.game_execute_command(owner=dana, game_id=lost.pk, command=Command("resign"))

    response = admin_client.get(URL)
    rows = {row.band: row for row in response.context["bands"].rows}
    assert sum(row.deals for row in rows.values()) == len(WON)
    assert sum(row.games for row in rows.values()) == 2
    assert rows[band].won == 1
    assert response.context["bands"].unrated == 0
    assert f'data-band="{band}"' in response.content.decode()
