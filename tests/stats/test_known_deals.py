"""Games of known deals (issue 25, finding 7: replays): a game begun on a deal the player had
already seen whole (a restart of a finished game, a deal an earlier game showed) counts as
played and won, but sets no best time, fewest moves or clean win, leaves the streak as it was,
and feeds no difficulty calibration; the incremental statistics and the recomputation
agree."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from games import services
from games.models import DailyDeal, Game, WinnableDeal
from stats.services import stats_recompute
from tests.api.conftest import Player
from tests.stats.conftest import CODE, LINE, certified, oracle, rows
from tests.stats.test_api import play_to_win

pytestmark = pytest.mark.django_db


def _slower(game_id: str, seconds: float, moves: int) -> None:
    """Make the game's win ``seconds`` long in ``moves``, in the games and the statistics."""
    game = Game.objects.get(pk=game_id)
    assert game.finished_at is not None
    Game.objects.filter(pk=game_id).update(
        started_at=game.finished_at - datetime.timedelta(seconds=seconds), moves=moves
    )
    stats_recompute(user=game.owner)


def _restart(player: Player, game_id: str) -> dict[str, object]:
    response = player.post(f"/api/v1/games/{game_id}/restart/")
    assert response.status_code == 201, response.content
    return response.json()  # type: ignore[no-any-return]


def test_restarting_a_finished_game_farms_no_records(player: Player) -> None:
    WinnableDeal.objects.create(**certified({"code": CODE, "line": LINE}, 1))
    first = player.new_game(mode="winnable")
    assert first["known_deal"] is False
    player.command(first["id"], LINE[0])
    player.command(first["id"], {"type": "undo"})  # not clean
    play_to_win(player, first["id"])
    _slower(first["id"], 300, moves=len(LINE) + 5)

    game_id = first["id"]
    for _ in range(3):  # the finding: the shown line replayed three times
        again = _restart(player, game_id)
        assert again["known_deal"] is True
        play_to_win(player, again["id"])
        result = player.get(f"/api/v1/games/{again['id']}/result/").json()
        assert (result["best_time"], result["fewest_moves"]) == (False, False)
        game_id = again["id"]

    body = player.get("/api/v1/stats/").json()
    assert (body["played"], body["won"]) == (4, 4)  # played and won like any game
    assert body["clean_wins"] == 0
    assert (body["current_streak"], body["best_streak"]) == (1, 1)
    assert body["best_time"] == 300.0
    assert body["fewest_moves"] == len(LINE) + 5
    assert body["variants"][0]["best_time"] == 300.0
    assert body["variants"][0]["clean_wins"] == 0
    owner = Game.objects.get(pk=first["id"]).owner
    assert rows(owner) == oracle(owner)
    before = rows(owner)
    stats_recompute(user=owner)
    assert rows(owner) == before


def test_a_lost_game_of_a_known_deal_does_not_end_a_streak(player: Player) -> None:
    won = player.new_game(code=CODE)
    play_to_win(player, won["id"])
    again = _restart(player, won["id"])
    assert player.command(again["id"], {"type": "resign"}).status_code == 200
    body = player.get("/api/v1/stats/").json()
    assert (body["played"], body["won"], body["resigned"]) == (2, 1, 1)
    assert (body["current_streak"], body["best_streak"]) == (1, 1)


def test_a_deal_an_earlier_game_showed_is_a_known_deal(player: Player) -> None:
    random_game = player.new_game(mode="random")
    assert random_game["known_deal"] is False
    assert player.command(random_game["id"], {"type": "resign"}).status_code == 200
    shown = player.get(f"/api/v1/games/{random_game['id']}/").json()["code"]
    assert shown is not None
    assert player.new_game(code=shown)["known_deal"] is True
    assert player.new_game(code=CODE)["known_deal"] is False  # a deal never seen
    # A restart of a game still in play is no known_deal: its deal was never shown whole.
    fresh = player.new_game(mode="random")
    assert _restart(player, fresh["id"])["known_deal"] is False


def test_a_daily_practice_after_winning_the_ranked_attempt_is_a_known_deal(player: Player) -> None:
    today = timezone.now().date()
    DailyDeal.objects.create(date=today, candidate=0, **certified({"code": CODE, "line": LINE}, 5))
    ranked = player.new_game(mode="daily")
    assert player.command(ranked["id"], {"type": "resign"}).status_code == 200
    practice = player.new_game(mode="daily")  # the deal not seen whole: no known_deal yet
    assert (ranked["known_deal"], practice["known_deal"]) == (False, False)
    play_to_win(player, practice["id"])
    again = player.new_game(mode="daily")
    assert (again["ranked"], again["known_deal"]) == (False, True)


def test_games_of_known_deals_feed_no_difficulty_calibration() -> None:
    deal = WinnableDeal.objects.create(
        **certified({"code": CODE, "line": LINE}, 1),
        difficulty_band="easy",
        difficulty_score=20,
        difficulty_model_score=20,
    )
    now = timezone.now()
    for n in range(services.CALIBRATION_MIN_GAMES + 10):
        owner = User.objects.create_user(f"r{n}", f"r{n}@example.com", "pw")
        Game.objects.create(
            owner=owner,
            mode="winnable",
            deal_code=CODE,
            state={},
            status="won",
            known_deal=True,
            started_at=now,
            finished_at=now,
        )
    assert services.deal_difficulty_calibrate(today=now.date()) == []
    deal.refresh_from_db()
    assert (deal.difficulty_score, deal.difficulty_games) == (20, 0)
