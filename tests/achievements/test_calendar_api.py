"""The daily calendar through the API: past dailies played late (practice, never ranked),
the month view, streaks and badges; achievements listed, exported and deleted."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import User
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from achievements.models import Achievement
from games.models import Game
from tests.achievements.conftest import CODE, daily_row
from tests.api.conftest import Player
from tests.stats.conftest import WON, Clock, ensure_daily_deal

pytestmark = pytest.mark.django_db
TODAY = datetime.date(2026, 3, 14)  # the clock fixture's day


def user_of(player: Player) -> User:
    return User.objects.get(email=player.email)


def play_out(player: Player, game_id: str, line: list[dict[str, Any]]) -> None:
    for step in line:
        response = player.command(game_id, step)
        assert response.status_code == 200, response.content


def test_a_past_daily_is_played_late_as_practice_and_shown_late(
    player: Player, clock: Clock
) -> None:
    yesterday = TODAY - datetime.timedelta(days=1)
    ensure_daily_deal(yesterday, WON[1])
    ensure_daily_deal(TODAY, WON[2])
    today_game = player.new_game(mode="daily")
    late = player.new_game(mode="daily", date=yesterday.isoformat())
    assert late["ranked"] is False
    # One daily in play per day: starting yesterday's leaves today's attempt on.
    assert Game.objects.get(pk=today_game["id"]).status == "playing"
    stored = Game.objects.get(pk=late["id"])
    assert (stored.daily_date, stored.known_deal) == (yesterday, False)  # not revealed yet
    play_out(player, late["id"], WON[1]["line"])
    board = player.get(f"/api/v1/daily/{yesterday.isoformat()}/leaderboard/").json()
    assert board["count"] == 0
    assert board["me"] is None
    month = player.get("/api/v1/calendar/2026-03/").json()
    day = month["days"][12]
    assert day["date"] == yesterday.isoformat()
    assert (day["won"], day["late"], day["won_on_the_day"], day["rank"]) == (
        True,
        True,
        False,
        None,
    )
    assert day["game"] == late["id"]
    assert day["time"] is not None
    assert month["days"][13]["in_play"] is True
    assert month["days"][13]["won"] is False
    assert month["days"][14]["playable"] is False  # tomorrow
    assert month["streaks"] == {"current": 0, "best": 0}


def test_a_revealed_past_daily_is_a_known_deal(player: Player, clock: Clock) -> None:
    day = TODAY - datetime.timedelta(days=2)
    ensure_daily_deal(day, WON[3])
    late = player.new_game(mode="daily", date=day.isoformat())
    assert Game.objects.get(pk=late["id"]).known_deal is True
    # Revealed to everyone, yet played blind while the game is on; shown once it ends.
    assert (late["code"], late["seed"]) == (None, None)
    assert player.get(f"/api/v1/games/{late['id']}/").json()["code"] is None
    player.command(late["id"], {"type": "resign"})
    assert player.get(f"/api/v1/games/{late['id']}/").json()["code"] == WON[3]["code"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"mode": "daily", "date": "2026-03-15"}, "date"),  # tomorrow
        ({"mode": "daily", "date": "2025-03-13"}, "date"),  # over 365 days back
        ({"mode": "random", "date": "2026-03-13"}, "date"),
        ({"mode": "daily", "date": "13/03/2026"}, "date"),
        # YYYY-MM-DD in ASCII digits only, as documented (and as the leaderboard's path):
        # not the other forms Python's ISO reader takes (a week date, no dashes, other digits).
        ({"mode": "daily", "date": "2026-3-13"}, "date"),
        ({"mode": "daily", "date": "2026-W11-5"}, "date"),
        ({"mode": "daily", "date": "20260313"}, "date"),
        ({"mode": "daily", "date": "\uff12\uff10\uff12\uff16-03-13"}, "date"),
        ({"mode": "daily", "date": "2026-03-13\n"}, "date"),
    ],
)
def test_a_daily_date_that_cannot_be_played_is_refused(
    player: Player, clock: Clock, body: dict[str, str], field: str
) -> None:
    response = player.post("/api/v1/games/", body)
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]


def test_the_ranked_win_on_the_day_shows_its_rank_and_streak(player: Player, clock: Clock) -> None:
    ensure_daily_deal(TODAY, WON[4])
    game = player.new_game(mode="daily", date=TODAY.isoformat())
    assert game["ranked"] is True
    play_out(player, game["id"], WON[4]["line"])
    day = player.get("/api/v1/calendar/2026-03/").json()["days"][13]
    assert (day["won"], day["won_on_the_day"], day["late"], day["rank"]) == (True, True, False, 1)
    month = player.get("/api/v1/calendar/2026-03/").json()
    assert month["streaks"] == {"current": 1, "best": 1}
    codes = {
        item["code"]: item
        for item in player.get("/api/v1/achievements/").json()["achievements"]
        if item["earned"]
    }
    assert codes["first_win"]["game"] == game["id"]


def test_a_month_won_late_earns_its_badge(player: Player, clock: Clock) -> None:
    owner = user_of(player)
    february = [datetime.date(2026, 2, day) for day in range(1, 29)]
    for day in february[:-1]:
        daily_row(owner, day)
    assert player.get("/api/v1/calendar/2026-02/").json()["badge"] is None
    last = daily_row(owner, february[-1], begun=TODAY)  # the last day made up late
    month = player.get("/api/v1/calendar/2026-02/").json()
    assert month["badge"]["game"] == str(last.pk)
    assert month["streaks"]["best"] == 27
    assert [badge["month"] for badge in player.get("/api/v1/achievements/").json()["badges"]] == [
        "2026-02"
    ]


def test_bad_months_are_refused(player: Player) -> None:
    for month in ("2026-13", "2026-3", "abcd-ef", "0000-01", "9999-12"):
        assert player.get(f"/api/v1/calendar/{month}/").status_code == 400, month


def test_achievements_are_exported_and_deleted_with_the_data(player: Player) -> None:
    owner = user_of(player)
    game = player.new_game(code=CODE)
    play_out(player, game["id"], WON[0]["line"])
    exported = player.get("/api/v1/me/export/").json()
    assert {item["code"] for item in exported["achievements"]} >= {"first_win", "no_undo_win"}
    assert player.client.delete("/api/v1/me/data/").status_code in (200, 204)
    assert not Achievement.objects.filter(user=owner).exists()


_DAYS = [TODAY - datetime.timedelta(days=n) for n in range(0, 20)]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    games=st.lists(
        st.tuples(
            st.sampled_from(_DAYS),
            st.sampled_from(["won", "resigned", "playing", "abandoned"]),
            st.integers(min_value=0, max_value=3),  # begun this many days after its day
        ),
        max_size=8,
    )
)
def test_no_calendar_answer_shows_a_card(
    make_player: Callable[[], Player], games: list[tuple[datetime.date, str, int]]
) -> None:
    """Whatever the player played, the calendar tells results, never a deal: no deal code,
    seed or card, not even of a revealed day; a day not played shows no game at all."""
    evening = datetime.datetime(2026, 3, 14, 18, tzinfo=datetime.UTC)
    with mock.patch("django.utils.timezone.now", return_value=evening):
        player = make_player()
        owner = user_of(player)
        for day, status, late in games:
            daily_row(
                owner, day, begun=min(TODAY, day + datetime.timedelta(days=late)), status=status
            )
        played = {day for day, _, _ in games}
        for month in ("2026-02", "2026-03"):
            answer = player.get(f"/api/v1/calendar/{month}/").json()
            text = json.dumps(answer)
            assert CODE not in text
            assert '"seed"' not in text
            assert "deal" not in text
            for day in answer["days"]:
                assert set(day) == {
                    "date",
                    "playable",
                    "played",
                    "in_play",
                    "won",
                    "won_on_the_day",
                    "late",
                    "time",
                    "moves",
                    "rank",
                    "game",
                }
                if datetime.date.fromisoformat(day["date"]) not in played:
                    assert day["game"] is None
                    assert day["time"] is None
                    assert not day["won"]


@pytest.mark.usefixtures("steady_session_snapshots")
def test_a_month_costs_the_same_queries_however_many_days_were_won(
    player: Player, clock: Clock
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    owner = user_of(player)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert player.get("/api/v1/calendar/2026-02/").status_code == 200
        return len(captured)

    for day in range(1, 4):
        daily_row(owner, datetime.date(2026, 2, day))
    queries()  # the first request of the session also touches it
    few = queries()
    for day in range(4, 29):
        daily_row(owner, datetime.date(2026, 2, day))
    assert queries() == few


def test_a_daily_won_once_its_deal_is_public_is_a_known_deal(player: Player, clock: Clock) -> None:
    """A daily begun on its day can still be played after its deal is revealed (00:00 UTC two
    days later, when every finished game of that day shows its code): won then, it was won
    with the deal to hand. No streak day, no achievement, no record; the day is still won (a
    badge counts it), as a known deal late. Won before the reveal, it is a streak day."""
    evening = datetime.datetime.combine(TODAY, datetime.time(23), tzinfo=datetime.UTC)
    ensure_daily_deal(TODAY, WON[5])
    clock.set(evening)
    kept_open = player.new_game(mode="daily")
    assert kept_open["ranked"] is True
    clock.set(evening + datetime.timedelta(days=1, hours=1, minutes=5))  # 00:05 two days on
    play_out(player, kept_open["id"], WON[5]["line"])
    assert player.get(f"/api/v1/games/{kept_open['id']}/").json()["known_deal"] is True
    month = player.get("/api/v1/calendar/2026-03/").json()
    day = month["days"][13]
    assert (day["won"], day["won_on_the_day"], day["late"]) == (True, False, True)
    assert month["streaks"] == {"current": 0, "best": 0}
    earned = player.get("/api/v1/achievements/").json()["achievements"]
    assert [item["code"] for item in earned if item["earned"]] == []
    assert player.get("/api/v1/stats/").json()["best_time"] is None
    # The day before the reveal: begun at 23:00, won the next day, still the day's own win.
    yesterday = TODAY + datetime.timedelta(days=1)
    ensure_daily_deal(yesterday + datetime.timedelta(days=1), WON[6])
    clock.set(evening + datetime.timedelta(days=2))
    on_time = player.new_game(mode="daily")
    clock.advance(hours=2)
    play_out(player, on_time["id"], WON[6]["line"])
    assert player.get(f"/api/v1/games/{on_time['id']}/").json()["known_deal"] is False
    days = player.get("/api/v1/calendar/2026-03/").json()["days"]
    assert days[15]["won_on_the_day"] is True


def test_a_result_staff_hid_leaves_the_boards_only(player: Player, clock: Clock) -> None:
    """Hiding is a leaderboard decision (docs/fair-play.md): the player's own calendar keeps
    the day won and a streak day (its rank goes, as on the board), and their achievements
    stay, through a rebuild too; no one else sees any of them."""
    from django.core.management import call_command

    from games.services import leaderboard_result_hide

    ensure_daily_deal(TODAY, WON[4])
    game = player.new_game(mode="daily")
    play_out(player, game["id"], WON[4]["line"])
    staff = User.objects.create_user("judge", "judge@example.com")
    leaderboard_result_hide(game_id=game["id"], by=staff.pk, reason="the solver's line")
    call_command("rebuild_achievements")
    month = player.get("/api/v1/calendar/2026-03/").json()
    day = month["days"][13]
    assert (day["won"], day["won_on_the_day"], day["rank"]) == (True, True, None)
    assert month["streaks"] == {"current": 1, "best": 1}
    earned = player.get("/api/v1/achievements/").json()["achievements"]
    assert {item["code"] for item in earned if item["earned"]} == {
        "first_win",
        "no_undo_win",
        "win_scorpion",
    }
