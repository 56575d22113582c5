"""GET /api/v1/stats/ and GET /api/v1/daily/{date}/leaderboard/ through the API."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import DailyDeal, Game
from tests.api.conftest import Player
from tests.stats.conftest import CODE, LINE, WON, certified, daily_win, make_user


def make_staff(player: Player) -> None:
    """Through save(), as the admin does: the user cached with the session is dropped
    (accounts/sessions.py; a QuerySet.update() would leave it)."""
    user = User.objects.get(email=player.email)
    user.is_staff = True
    user.save(update_fields=["is_staff"])


pytestmark = pytest.mark.django_db

FIGURES = {
    "played",
    "won",
    "resigned",
    "abandoned",
    "in_play",
    "win_rate",
    "current_streak",
    "best_streak",
    "best_time",
    "fewest_moves",
    "average_win_time",
    "clean_wins",
}


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    return body


def user_of(player: Player) -> User:
    return User.objects.get(email=player.email)


def play_to_win(player: Player, game_id: str) -> dict[str, Any]:
    response = None
    for step in LINE:
        response = player.command(game_id, step)
        assert response.status_code == 200, response.content
    assert response is not None
    body: dict[str, Any] = response.json()
    assert body["status"] == "won"
    return body


def daily_win_played(player: Player, seconds: int) -> str:
    """The player's daily game of today, won through the API, its time set to ``seconds``."""
    game = player.new_game(mode="daily")
    play_to_win(player, game["id"])
    finished = Game.objects.get(pk=game["id"]).finished_at
    assert finished is not None
    Game.objects.filter(pk=game["id"]).update(
        started_at=finished - datetime.timedelta(seconds=seconds)
    )
    return str(game["id"])


def win_seconds(game_id: str) -> float:
    game = Game.objects.get(pk=game_id)
    assert game.started_at is not None
    assert game.finished_at is not None
    return (game.finished_at - game.started_at).total_seconds()


# --- /api/v1/stats/ ---


def test_a_new_player_has_empty_statistics(player: Player) -> None:
    response = player.get("/api/v1/stats/")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == FIGURES | {"modes", "variants", "difficulty"}
    assert set(body["modes"]) == {"random", "seeded", "daily", "winnable", "daily_practice"}
    assert body["variants"][0]["variant"] == "scorpion"
    assert all(row["played"] == row["in_play"] == 0 for row in body["variants"])
    for figures in (body, *body["modes"].values()):
        assert set(figures) - {"modes", "variants", "difficulty"} == FIGURES
        assert figures["played"] == figures["won"] == figures["current_streak"] == 0
        assert figures["win_rate"] is None
        assert figures["best_time"] is None
        assert figures["average_win_time"] is None
    assert body["difficulty"] == {
        band: {"played": 0, "won": 0, "win_rate": None} for band in ("easy", "medium", "hard")
    }


def test_statistics_after_playing(player: Player) -> None:
    won = player.new_game(code=CODE)
    play_to_win(player, won["id"])
    resigned = player.new_game(mode="random")
    player.command(resigned["id"], {"type": "resign"})
    left = player.new_game(mode="random")
    player.command(left["id"], {"type": "deal"})
    untouched = player.new_game(mode="random")  # leaves `left` behind after a deal: played
    player.new_game(mode="random")  # leaves `untouched` behind without a move: not played
    second = player.new_game(code=CODE)
    player.command(second["id"], LINE[0])
    player.command(second["id"], {"type": "undo"})
    play_to_win(player, second["id"])

    assert player.get(f"/api/v1/games/{left['id']}/").json()["status"] == "abandoned"
    assert player.get(f"/api/v1/games/{untouched['id']}/").json()["status"] == "abandoned"
    body = player.get("/api/v1/stats/").json()
    times = [win_seconds(g["id"]) for g in (won, second)]
    # Played: 2 won, 1 resigned, 1 abandoned after a move; the latest random game is in play.
    assert (body["played"], body["won"], body["resigned"], body["abandoned"]) == (4, 2, 1, 1)
    assert body["in_play"] == 1
    assert body["win_rate"] == 0.5
    # `second` deals what `won` showed: a game of a known deal, which the streak skips and
    # which sets no best time, but whose time counts in the average.
    assert player.get(f"/api/v1/games/{second['id']}/").json()["known_deal"] is True
    assert (body["current_streak"], body["best_streak"]) == (0, 1)
    assert body["best_time"] == round(times[0], 3)
    assert body["average_win_time"] == pytest.approx(sum(times) / 2, abs=0.001)
    assert body["fewest_moves"] == len(LINE)
    assert body["clean_wins"] == 1
    seeded, random_mode = body["modes"]["seeded"], body["modes"]["random"]
    assert (seeded["played"], seeded["won"], seeded["resigned"]) == (2, 2, 0)
    assert seeded["win_rate"] == 1.0
    assert (random_mode["played"], random_mode["won"], random_mode["abandoned"]) == (2, 0, 1)
    assert (random_mode["resigned"], random_mode["in_play"]) == (1, 1)
    assert random_mode["win_rate"] == 0.0
    assert body["modes"]["daily"]["played"] == 0


def test_the_win_rate_never_exceeds_one_whatever_is_left_open(player: Player) -> None:
    """The issue's "Played 5 · Won 2 · Win rate 100%": the rate is won over played, and
    played counts every game that ended or was left after a move."""
    for _ in range(2):
        game = player.new_game(code=CODE)
        play_to_win(player, game["id"])
    for _ in range(3):
        game = player.new_game(mode="random")
        player.command(game["id"], {"type": "deal"})  # then left behind by the next one
    body = player.get("/api/v1/stats/").json()
    assert (body["played"], body["won"], body["abandoned"], body["in_play"]) == (4, 2, 2, 1)
    assert body["win_rate"] == 0.5
    assert body["won"] <= body["played"]


def test_daily_figures_are_kept_apart(player: Player) -> None:
    DailyDeal.objects.create(
        date=timezone.now().date(), candidate=0, **certified({"code": CODE, "line": LINE}, 5)
    )
    game = player.new_game(mode="daily")
    play_to_win(player, game["id"])
    body = player.get("/api/v1/stats/").json()
    assert body["modes"]["daily"]["won"] == 1
    assert body["modes"]["seeded"]["won"] == 0
    assert body["won"] == 1


def test_practice_attempts_count_apart_from_the_ranked_daily_attempt(player: Player) -> None:
    DailyDeal.objects.create(
        date=timezone.now().date(), candidate=0, **certified({"code": CODE, "line": LINE}, 5)
    )
    first = player.new_game(mode="daily")
    player.command(first["id"], {"type": "resign"})
    again = player.new_game(mode="daily")
    play_to_win(player, again["id"])
    restarted = player.post(f"/api/v1/games/{again['id']}/restart/").json()
    assert (first["ranked"], again["ranked"], restarted["ranked"]) == (True, False, False)
    body = player.get("/api/v1/stats/").json()
    daily, practice = body["modes"]["daily"], body["modes"]["daily_practice"]
    # The challenge itself: one attempt that day, resigned.
    assert (daily["played"], daily["won"], daily["resigned"]) == (1, 0, 1)
    assert daily["win_rate"] == 0.0
    # Practice: one attempt won, one (the restart) still in play; they count overall too.
    assert (practice["played"], practice["won"], practice["resigned"]) == (1, 1, 0)
    assert practice["in_play"] == 1
    assert (body["played"], body["won"], body["resigned"]) == (2, 1, 1)


def test_statistics_are_the_callers_own(make_player: Callable[[], Player]) -> None:
    one, two = make_player(), make_player()
    game = one.new_game(code=CODE)
    play_to_win(one, game["id"])
    assert one.get("/api/v1/stats/").json()["won"] == 1
    assert two.get("/api/v1/stats/").json()["won"] == 0


def test_statistics_need_credentials() -> None:
    problem(APIClient().get("/api/v1/stats/"), 401, "not_authenticated")
    problem(APIClient().get("/api/v1/daily/2026-03-14/leaderboard/"), 401, "not_authenticated")


# --- /api/v1/daily/{date}/leaderboard/ ---


def test_leaderboard_of_a_day_played_through_the_api(make_player: Callable[[], Player]) -> None:
    today = timezone.now().date()
    DailyDeal.objects.create(date=today, candidate=0, **certified({"code": CODE, "line": LINE}, 5))
    fast, slow, loser = make_player(), make_player(), make_player()
    for who, seconds in ((fast, 60), (slow, 90)):
        daily_win_played(who, seconds)
    lost = loser.new_game(mode="daily")
    loser.command(lost["id"], {"type": "resign"})

    response = slow.get(f"/api/v1/daily/{today.isoformat()}/leaderboard/")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"date", "count", "next", "previous", "results", "me", "me_hidden"}
    assert body["date"] == today.isoformat()
    assert body["count"] == 2
    assert body["next"] is None
    assert body["previous"] is None
    first, second = body["results"]
    assert set(first) == {"rank", "player", "time", "moves", "finished_at", "is_me"}
    assert (first["rank"], first["time"], first["is_me"]) == (1, 60.0, False)
    assert first["moves"] == len(LINE)
    assert (second["rank"], second["time"], second["is_me"]) == (2, 90.0, True)
    assert body["me"] == {
        "rank": 2,
        "time": 90.0,
        "moves": len(LINE),
        "finished_at": second["finished_at"],
    }
    for entry in body["results"]:
        assert "@" not in entry["player"]
        assert "stats" not in entry["player"]  # the e-mails' local parts are statsN
    assert loser.get(f"/api/v1/daily/{today.isoformat()}/leaderboard/").json()["me"] is None


def test_leaderboard_pages_with_the_callers_rank(player: Player) -> None:
    day = datetime.date(2026, 3, 14)
    others = [make_user(f"other{i}") for i in range(7)]
    for i, user in enumerate(others):
        daily_win(user, day, seconds=10 + i)
    daily_win(user_of(player), day, seconds=100)
    url = f"/api/v1/daily/{day.isoformat()}/leaderboard/"
    first = player.get(f"{url}?page_size=3").json()
    assert first["count"] == 8
    assert [e["rank"] for e in first["results"]] == [1, 2, 3]
    assert first["previous"] is None
    assert first["next"].endswith(f"{url}?page=2&page_size=3")
    assert first["me"]["rank"] == 8
    second = player.get(first["next"]).json()
    assert [e["rank"] for e in second["results"]] == [4, 5, 6]
    assert second["previous"].endswith(f"{url}?page_size=3")
    last = player.get(second["next"]).json()
    assert [e["rank"] for e in last["results"]] == [7, 8]
    assert last["results"][-1]["is_me"] is True
    assert last["next"] is None
    problem(player.get(f"{url}?page=4&page_size=3"), 404, "not_found")


def test_an_empty_day_has_an_empty_leaderboard(player: Player) -> None:
    body = player.get("/api/v1/daily/2020-01-01/leaderboard/").json()
    assert body == {
        "date": "2020-01-01",
        "count": 0,
        "next": None,
        "previous": None,
        "results": [],
        "me": None,
        "me_hidden": None,
    }


def test_a_future_day_is_refused_to_players_saying_why_and_open_to_staff(player: Player) -> None:
    # Before: any future day answered 200 (an empty board), and staff-side certification
    # made it a way to probe which days were prepared; then a 404 "no leaderboard for this
    # day", which did not say why. The answer depends on the dates alone: a day with a deal
    # and a day without one are refused alike.
    today = timezone.now().date()
    tomorrow = today + datetime.timedelta(days=1)
    DailyDeal.objects.create(
        date=tomorrow, candidate=0, **certified({"code": CODE, "line": LINE}, 5)
    )
    answers = []
    for day in (tomorrow, today + datetime.timedelta(days=2), datetime.date(9998, 12, 31)):
        body = problem(
            player.get(f"/api/v1/daily/{day.isoformat()}/leaderboard/"), 400, "validation_error"
        )
        assert body["errors"] == {
            "date": [
                f"{day.isoformat()} is after today ({today.isoformat()}, UTC): a day's "
                "leaderboard opens on that day"
            ]
        }
        answers.append(body["detail"].replace(day.isoformat(), "<day>"))
    assert answers[0] == answers[1] == answers[2]
    assert player.get(f"/api/v1/daily/{today.isoformat()}/leaderboard/").status_code == 200
    make_staff(player)
    staff = player.get(f"/api/v1/daily/{tomorrow.isoformat()}/leaderboard/")
    assert staff.status_code == 200
    assert staff.json()["count"] == 0


@pytest.mark.parametrize(
    "date",
    [
        "2026-13-01",
        "2026-02-30",
        "2026-3-14",
        "20260314",
        "today",
        "2026-03-14x",
        "9999-12-31",  # its day ends past the last date Python has: was a 500 (OverflowError)
        "10000-01-01",
        "0000-01-01",
        "%EF%BC%92%EF%BC%90%EF%BC%92%EF%BC%96-03-14",  # fullwidth digits
        "2026-03-14%0A",
    ],
)
def test_a_bad_date_is_a_validation_error(player: Player, date: str) -> None:
    body = problem(player.get(f"/api/v1/daily/{date}/leaderboard/"), 400, "validation_error")
    # The form a date takes, and no bound only staff can reach (players' future days have a
    # message of their own).
    assert body["errors"]["date"] == ["a date as YYYY-MM-DD, e.g. 2025-01-31"]


def test_the_first_and_last_days_of_the_calendar_have_empty_leaderboards(player: Player) -> None:
    # Staff may look at any day, future ones included: the day before the last one too.
    make_staff(player)
    for date in ("0001-01-01", "9999-12-30"):
        response = player.get(f"/api/v1/daily/{date}/leaderboard/")
        assert response.status_code == 200, response.content
        assert response.json()["count"] == 0


@pytest.mark.parametrize(
    "query",
    [
        "page=0",
        "page=x",
        "page=",  # a value given must be valid: empty is not "absent"
        "page=%C2%B2",  # "²" passes str.isdigit() but is no number
        "page_size=%C2%B2",
        "page=%201",
        "page=461168601842738792",  # far past the database's OFFSET: 400, not a 500
        "page=1&page=2",
        "page_size=0",
        "page_size=101",
        "page_size=-1",
        "sort=time",
    ],
)
def test_bad_paging_is_a_validation_error(player: Player, query: str) -> None:
    problem(player.get(f"/api/v1/daily/2026-03-14/leaderboard/?{query}"), 400, "validation_error")


# --- /api/v1/games/{id}/result/ (the win moment) ---


def test_the_result_of_a_win_names_new_personal_bests_and_the_streak(player: Player) -> None:
    first = player.new_game(code=CODE)
    play_to_win(player, first["id"])
    result = player.get(f"/api/v1/games/{first['id']}/result/").json()
    assert (result["status"], result["first_win"], result["best_time"]) == ("won", True, True)
    assert result["fewest_moves"] is True
    assert (result["current_streak"], result["best_streak"]) == (1, 1)
    assert result["daily_rank"] is None
    # The next daily opens at the next midnight UTC.
    opens = datetime.datetime.fromisoformat(result["next_daily_at"])
    now = timezone.now()
    assert opens.time() == datetime.time(0)
    assert now < opens <= now + datetime.timedelta(days=1)

    # Another deal (the same one again would be a known deal, which sets no record at all),
    # won in more moves and more slowly: the first win's time stands.
    other = WON[2]
    slower = player.new_game(code=other["code"])
    Game.objects.filter(pk=slower["id"]).update(
        started_at=timezone.now() - datetime.timedelta(hours=1)
    )
    for step in other["line"]:
        assert player.command(slower["id"], step).status_code == 200
    again = player.get(f"/api/v1/games/{slower['id']}/result/").json()
    assert (again["first_win"], again["best_time"], again["fewest_moves"]) == (False, False, False)
    assert again["previous_best_time"] == result["time"]
    assert again["current_streak"] == 2


def test_the_result_of_a_ranked_daily_win_has_its_rank(make_player: Callable[[], Player]) -> None:
    DailyDeal.objects.create(
        date=timezone.now().date(), candidate=0, **certified({"code": CODE, "line": LINE}, 5)
    )
    one, two = make_player(), make_player()
    for who in (one, two):
        game = who.new_game(mode="daily")
        play_to_win(who, game["id"])
    result = two.get(f"/api/v1/games/{game['id']}/result/").json()
    assert result["daily_count"] == 2
    assert result["daily_rank"] in (1, 2)


def test_the_result_of_another_players_game_is_not_found(
    make_player: Callable[[], Player],
) -> None:
    one, two = make_player(), make_player()
    game = one.new_game(code=CODE)
    problem(two.get(f"/api/v1/games/{game['id']}/result/"), 404, "not_found")
