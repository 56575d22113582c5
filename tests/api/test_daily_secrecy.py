"""The daily challenge stays unknowable while it is played: its deal is hidden until its UTC
day and the next are over (in every answer, for every attempt, finished or not), and only a
player's first attempt of the day ranks; later attempts are practice (docs/api.md, "The daily
challenge")."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from games.models import DailyDeal, Game
from tests.api.conftest import WON_DEAL, Player
from tests.api.test_event_store import race
from tests.conftest import require_service, small_chances

pytestmark = pytest.mark.django_db

CODE = WON_DEAL["code"]
LINE = WON_DEAL["line"]
SEED = 4242424242


@pytest.fixture
def today_deal() -> DailyDeal:
    return DailyDeal.objects.create(
        date=timezone.now().date(),
        seed=SEED,
        candidate=0,
        deal_code=CODE,
        certificate=LINE,
    )


def every_answer_about(player: Player, game_id: str) -> dict[str, Any]:
    """Everything the API tells the player that concerns one game."""
    detail = player.get(f"/api/v1/games/{game_id}/").json()
    listing = player.get("/api/v1/games/?page_size=100").json()
    events = player.get(f"/api/v1/games/{game_id}/events/").json()["results"]
    states = [
        player.get(f"/api/v1/games/{game_id}/states/{version}/").json()
        for version in range(detail["version"] + 1)
    ]
    # The same states a page at a time, and the whole log as a download.
    states_page = player.get(f"/api/v1/games/{game_id}/states/?limit=100").json()["results"]
    events_export = json.loads(
        b"".join(player.get(f"/api/v1/games/{game_id}/events/export/").streaming_content)
    )
    export = player.get("/api/v1/me/export/").json()
    daily = player.get("/api/v1/daily/").json()
    # A daily's post-game analysis is refused (409) until its deal is revealed.
    analysis = player.get(f"/api/v1/games/{game_id}/analysis/").json()
    return {
        "analysis": analysis,
        "detail": detail,
        "listing": listing,
        "events": events,
        "states": states,
        "states_page": states_page,
        "events_export": events_export,
        "export": export,
        "daily": daily,
    }


def assert_deal_hidden(answers: dict[str, Any]) -> None:
    text = json.dumps(answers)
    assert CODE not in text
    assert str(SEED) not in text
    assert "certificate" not in text
    assert answers["detail"]["code"] is None
    assert answers["analysis"]["code"] in ("game_not_finished", "deal_not_revealed")
    assert answers["detail"]["seed"] is None
    for game in answers["listing"]["results"]:
        assert (game["code"], game["seed"]) == (None, None)
    for state in [*answers["states"], *answers["states_page"]]:
        assert (state["code"], state["seed"]) == (None, None)
    for game in answers["export"]["games"]:
        assert (game["code"], game["seed"]) == (None, None)


def play_line(player: Player, game_id: str, steps: list[dict[str, Any]]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for step in steps:
        response = player.command(game_id, step)
        assert response.status_code == 200, response.content
        body = response.json()
    return body


def move_to(days_ago: int, *games: str) -> None:
    """Move games (and their deal) ``days_ago`` days into the past."""
    day = timezone.now().date() - datetime.timedelta(days=days_ago)
    DailyDeal.objects.filter(deal_code=CODE).update(date=day)
    Game.objects.filter(pk__in=games).update(daily_date=day)


# --- The deal stays hidden until the day (and the next) are over ---


def test_resigning_a_daily_does_not_reveal_its_deal(player: Player, today_deal: DailyDeal) -> None:
    # Before: the resign answer carried the code and seed, and a second account (or the
    # player's own next attempt) could then solve the day's deal offline.
    game = player.new_game(mode="daily")
    play_line(player, game["id"], LINE[:5])
    resigned = player.command(game["id"], {"type": "resign"}).json()
    assert resigned["status"] == "resigned"
    assert (resigned["code"], resigned["seed"]) == (None, None)
    assert_deal_hidden(every_answer_about(player, game["id"]))


def test_winning_a_daily_does_not_reveal_its_deal_either(
    player: Player, today_deal: DailyDeal
) -> None:
    game = player.new_game(mode="daily")
    won = play_line(player, game["id"], LINE)
    assert won["status"] == "won"
    assert (won["code"], won["seed"]) == (None, None)
    answers = every_answer_about(player, game["id"])
    # The game's own moves stay visible: the events are the whole line, in order.
    assert [event["seq"] for event in answers["events"]] == list(range(1, len(LINE) + 1))
    assert [event["type"] for event in answers["events"]] == [step["type"] for step in LINE]
    moved = [event["card"] for event in answers["events"] if event["type"] == "move"]
    assert moved == [step["card"] for step in LINE if step["type"] == "move"]
    assert answers["detail"]["collected"]  # the won table is shown
    # Only the deal itself (the code, the seed) is held back.
    assert CODE not in json.dumps(answers)
    assert str(SEED) not in json.dumps(answers)


def test_a_restart_and_a_new_attempt_keep_the_deal_hidden(
    player: Player, today_deal: DailyDeal
) -> None:
    first = player.new_game(mode="daily")
    player.command(first["id"], {"type": "resign"})
    restarted = player.post(f"/api/v1/games/{first['id']}/restart/").json()
    again = player.new_game(mode="daily")
    for game in (restarted, again):
        assert (game["code"], game["seed"]) == (None, None)
        player.command(game["id"], {"type": "resign"})
        assert_deal_hidden(every_answer_about(player, game["id"]))


def test_the_deal_stays_secret_while_yesterdays_ranked_attempts_can_still_rank(
    player: Player, make_player: Callable[[], Player], today_deal: DailyDeal
) -> None:
    # An attempt begun at 23:59 can be won after midnight and rank for its day: were the
    # deal shown at midnight, a second account's finished attempt would hand it over.
    late = player.new_game(mode="daily")
    scout = make_player()
    scouted = scout.new_game(mode="daily")
    scout.command(scouted["id"], {"type": "resign"})
    move_to(1, late["id"], scouted["id"])
    assert_deal_hidden(every_answer_about(scout, scouted["id"]))
    assert_deal_hidden(every_answer_about(player, late["id"]))


def test_the_deal_is_shown_once_its_day_and_the_next_are_over(
    player: Player, today_deal: DailyDeal
) -> None:
    finished = player.new_game(mode="daily")
    player.command(finished["id"], {"type": "resign"})
    unfinished = player.new_game(mode="daily")
    move_to(2, finished["id"], unfinished["id"])
    detail = player.get(f"/api/v1/games/{finished['id']}/").json()
    assert (detail["code"], detail["seed"]) == (CODE, SEED)
    # A game still on keeps it, as any deal the player did not supply: played blind.
    answers = every_answer_about(player, unfinished["id"])
    assert (answers["detail"]["code"], answers["detail"]["seed"]) == (None, None)
    listed = {g["id"]: g for g in answers["listing"]["results"]}
    assert (listed[unfinished["id"]]["code"], listed[finished["id"]]["code"]) == (None, CODE)
    export = {g["id"]: g for g in player.get("/api/v1/me/export/").json()["games"]}
    assert export[unfinished["id"]]["code"] is None
    player.command(unfinished["id"], {"type": "resign"})
    detail = player.get(f"/api/v1/games/{unfinished['id']}/").json()
    assert (detail["code"], detail["seed"]) == (CODE, SEED)


def test_another_players_finished_attempt_tells_nothing(
    player: Player, make_player: Callable[[], Player], today_deal: DailyDeal
) -> None:
    scout = make_player()
    scouted = scout.new_game(mode="daily")
    scout.command(scouted["id"], {"type": "resign"})
    game = player.new_game(mode="daily")
    assert_deal_hidden(every_answer_about(scout, scouted["id"]))
    assert_deal_hidden(every_answer_about(player, game["id"]))


# --- Only the first attempt of the day ranks ---


def test_only_the_first_attempt_of_the_day_is_ranked(player: Player, today_deal: DailyDeal) -> None:
    first = player.new_game(mode="daily")
    assert first["ranked"] is True
    player.command(first["id"], {"type": "resign"})
    second = player.new_game(mode="daily")
    # Won before the restart below, which would leave it behind (one daily game in play).
    play_line(player, second["id"], LINE)
    restarted = player.post(f"/api/v1/games/{first['id']}/restart/").json()
    assert second["ranked"] is False
    assert restarted["ranked"] is False
    other = player.new_game(code=CODE)
    assert other["ranked"] is False
    ranked = {g["id"]: g["ranked"] for g in player.get("/api/v1/games/").json()["results"]}
    assert ranked == {
        first["id"]: True,
        second["id"]: False,
        restarted["id"]: False,
        other["id"]: False,
    }

    # A practice win never reaches the leaderboard: the player's ranked attempt was resigned.
    board = player.get(f"/api/v1/daily/{timezone.now().date().isoformat()}/leaderboard/").json()
    assert board["count"] == 0
    assert board["me"] is None


def test_the_daily_summary_names_the_ranked_attempt(player: Player, today_deal: DailyDeal) -> None:
    today = timezone.now().date().isoformat()
    assert player.get("/api/v1/daily/").json() == {
        "date": today,
        "game": None,
        "status": None,
        "ranked_game": None,
        "ranked_status": None,
        "solved": False,
        "ranked_available": True,
        "attempts": 0,
        "deal_ready": True,
        # The fixture's deal is not rated (tests/api/test_difficulty.py shows a rated one).
        "difficulty": None,
        "difficulty_score": None,
    }
    first = player.new_game(mode="daily")
    player.command(first["id"], {"type": "resign"})
    second = player.new_game(mode="daily")
    play_line(player, second["id"], LINE)
    summary = player.get("/api/v1/daily/").json()
    assert summary["game"] == second["id"]
    assert summary["status"] == "won"
    assert summary["ranked_game"] == first["id"]
    assert summary["ranked_status"] == "resigned"
    assert summary["solved"] is True  # some attempt was won (a practice one)
    assert summary["attempts"] == 2


def test_the_database_allows_one_ranked_attempt_per_player_and_day(
    player: Player, today_deal: DailyDeal
) -> None:
    first = Game.objects.get(pk=player.new_game(mode="daily")["id"])
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(
            owner=first.owner,
            mode="daily",
            daily_date=first.daily_date,
            deal_code=CODE,
            state=first.state,
            ranked=True,
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(owner=first.owner, mode="random", deal_code=CODE, state={}, ranked=True)


@pytest.mark.django_db(transaction=True)
def test_two_devices_starting_the_daily_at_once_get_one_ranked_attempt(
    today_deal: DailyDeal,
) -> None:
    require_service("PostgreSQL", connection.vendor == "postgresql")
    from games import services
    from games.services import DealChoice

    owner = User.objects.create_user("both", "both@example.com", "pw")
    results = race([lambda: services.game_create(owner=owner, choice=DealChoice(mode="daily"))] * 4)
    assert all(isinstance(result, Game) for result in results), results
    assert sorted(game.ranked for game in results) == [False, False, False, True]
    assert Game.objects.filter(owner=owner, ranked=True).count() == 1


# --- Future days ---


def test_no_endpoint_serves_a_future_day_to_a_player(player: Player, today_deal: DailyDeal) -> None:
    tomorrow = timezone.now().date() + datetime.timedelta(days=1)
    future = DailyDeal.objects.create(
        date=tomorrow, seed=SEED + 1, candidate=0, deal_code=CODE[2:] + CODE[:2], certificate=[]
    )
    response = player.get(f"/api/v1/daily/{tomorrow.isoformat()}/leaderboard/")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["date"]
    assert future.deal_code not in response.content.decode()
    game = player.new_game(mode="daily")
    assert game["daily_date"] == timezone.now().date().isoformat()
    assert player.get("/api/v1/daily/").json()["date"] == timezone.now().date().isoformat()
    everything = json.dumps(every_answer_about(player, game["id"]))
    assert future.deal_code not in everything
    assert tomorrow.isoformat() not in everything


def test_a_dailys_winning_chances_come_from_the_visible_table_alone(
    player: Player, today_deal: DailyDeal, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Served while the daily is on, so they must not depend on its hidden cards: the answer is
    # the one a deal with the unseen cards in any other order would get (same game, version).
    from games.engine.chances import VisibleTable, chances
    from games.selectors import game_state
    from games.services import chances as chances_services
    from tests.engine.random_play import unseen_cards, with_unseen

    small_chances(monkeypatch, samples=6, node_budget=3_000)
    game = player.new_game(mode="daily")
    play_line(player, game["id"], LINE[:4])
    answer = player.get(f"/api/v1/games/{game['id']}/chances/")
    assert answer.status_code == 200
    assert CODE not in json.dumps(answer.json())
    position = game_state(game=Game.objects.get(pk=game["id"])).position
    for order in (sorted(unseen_cards(position)), list(reversed(unseen_cards(position)))):
        other = with_unseen(position, order)
        expected = chances(
            VisibleTable.of(other),
            samples=6,
            seed=chances_services.chance_seed(game_id=game["id"], version=4),
            node_budget=3_000,
        )
        assert answer.json()["actions"] == [entry.to_dict() for entry in expected]
