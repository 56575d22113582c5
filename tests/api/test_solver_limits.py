"""Solver runs a player's requests start are limited per account (``THROTTLE_SOLVER``): each
costs up to seconds of CPU, so the request throttle alone would let one account keep cores
busy (move, undo, ask for the chances of each new version; exhaust a difficulty band, then
have every create certify deals on the spot). A run already stored or queued costs nothing
and is never refused (docs/api.md, "Limits")."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache

from games import services
from games.models import WinnableDeal
from games.services import analysis as analysis_services
from games.services import certification as certification_services
from games.services import chances as chances_services
from games.services import solver_runs as solver_runs_services
from games.services import workers as workers_services
from tests.api.conftest import WON_DEAL, Player
from tests.api.test_limits import redis_down  # noqa: F401 (a fixture)
from tests.conftest import small_chances
from tests.difficulty_data import banded_pool

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def small_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    small_chances(monkeypatch, samples=4, node_budget=2_000)
    monkeypatch.setitem(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "solver", "3/min")
    # The limit counts in fixed windows of a minute, so a test whose requests straddled a
    # window's end would see the count start again (a fourth analysis served, once, at
    # 12:59:56). Each test's requests all fall in one window: the clock the count reads is
    # stopped where the test starts.
    clock = SolverClock(time.time())
    monkeypatch.setattr(solver_runs_services, "time", clock)
    monkeypatch.setattr(chances_services, "time", clock)


class SolverClock(SimpleNamespace):
    """The ``time`` module as ``games.services`` sees it, with a clock that moves only when a
    test moves it."""

    def __init__(self, now: float) -> None:
        super().__init__(now=now, process_time=time.process_time, perf_counter=time.perf_counter)

    def time(self) -> float:
        return float(self.now)


def chances(player: Player, game: dict[str, Any]) -> Any:
    return player.get(f"/api/v1/games/{game['id']}/chances/")


def new_version(player: Player, game: dict[str, Any]) -> None:
    assert player.command(game["id"], {"type": "deal"}).status_code == 200
    assert player.command(game["id"], {"type": "undo"}).status_code == 200


def chances_past_the_limit(player: Player, game: dict[str, Any]) -> Any:
    """The answer to a request for chances once three new versions' chances were computed."""
    for _ in range(3):
        assert chances(player, game).status_code == 200
        new_version(player, game)
    return chances(player, game)


def test_chances_computed_in_the_request_are_limited_per_account(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    refused = chances_past_the_limit(player, game)
    assert refused.status_code == 429, refused.content
    assert refused.json()["code"] == "throttled"
    assert 1 <= int(refused["Retry-After"]) <= 60
    # Chances already computed are still served, however often.
    other = player.new_game(code=WON_DEAL["code"])
    assert chances(player, other).status_code == 429


def test_chances_already_stored_are_served_past_the_limit(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    assert chances(player, game).status_code == 200
    for _ in range(6):
        assert chances(player, game).status_code == 200


def test_chances_queued_for_a_worker_count_once_per_task_sent(
    player: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[Any, ...]] = []
    from infrastructure import background

    monkeypatch.setattr(workers_services, "worker_available", lambda _queue: True)
    monkeypatch.setattr(background, "enqueue", lambda task, *args: sent.append(args) or True)
    monkeypatch.setattr(settings, "CHANCES_REQUEST_MS", 0)  # each version to the worker
    game = player.new_game(code=WON_DEAL["code"])
    for _ in range(3):
        for _ in range(3):  # asking again while it is queued sends nothing and costs nothing
            assert player.post(f"/api/v1/games/{game['id']}/chances/").status_code == 202
        new_version(player, game)
        cache.delete(
            chances_services._chances_key("queued", game["id"])
        )  # the worker got through it
    assert len(sent) == 3
    # One more version would fill the queue further: refused.
    refused = player.post(f"/api/v1/games/{game['id']}/chances/")
    assert refused.status_code == 429, refused.content
    assert len(sent) == 3


def test_one_account_at_its_limit_does_not_limit_another(player: Player, make_player: Any) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    for _ in range(3):
        chances(player, game)
        new_version(player, game)
    assert chances(player, game).status_code == 429
    other = make_player()
    assert chances(other, other.new_game(code=WON_DEAL["code"])).status_code == 200


def test_an_exhausted_band_certifies_on_the_spot_only_within_the_limit(
    player: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    banded_pool()
    runs: list[str] = []
    monkeypatch.setattr(certification_services, "BAND_INLINE_ATTEMPTS", 2)
    real = certification_services._certify
    monkeypatch.setattr(
        certification_services, "_certify", lambda code, **kw: runs.append(code) or real(code, **kw)
    )
    hard = WinnableDeal.objects.filter(difficulty_band="hard").count()
    for _ in range(hard):
        player.new_game(mode="winnable", difficulty="hard")
    answers = [
        player.post("/api/v1/games/", {"mode": "winnable", "difficulty": "hard"}) for _ in range(6)
    ]
    codes = [answer.status_code for answer in answers]
    assert codes.count(429) >= 3, codes
    assert set(codes) <= {201, 503, 429}, codes
    # Three requests certified (at most 2 deals each); the refused ones none.
    assert len(runs) <= 3 * 2


def test_only_one_band_certification_runs_on_the_spot_at_a_time(
    player: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    banded_pool()
    monkeypatch.setattr(certification_services, "BAND_INLINE_ATTEMPTS", 2)
    hard = WinnableDeal.objects.filter(difficulty_band="hard").count()
    for _ in range(hard):
        player.new_game(mode="winnable", difficulty="hard")
    # Another request (any account's) is certifying right now.
    cache.add(services.BAND_INLINE_LOCK, "busy", 60)
    monkeypatch.setattr(
        certification_services,
        "_certify",
        lambda *a, **k: pytest.fail("certified while another does"),
    )
    response = player.post("/api/v1/games/", {"mode": "winnable", "difficulty": "hard"})
    assert response.status_code == 503, response.content
    assert response.json()["code"] == "difficulty_unavailable"


def test_analyses_computed_in_the_request_are_limited_per_account(player: Player) -> None:
    finished = []
    for _ in range(4):
        game = player.new_game(code=WON_DEAL["code"])
        assert player.command(game["id"], {"type": "resign"}).status_code == 200
        finished.append(game)
    for game in finished[:3]:
        assert player.get(f"/api/v1/games/{game['id']}/analysis/").status_code == 200
    refused = player.get(f"/api/v1/games/{finished[3]['id']}/analysis/")
    assert refused.status_code == 429, refused.content
    # A stored analysis is still served.
    assert player.get(f"/api/v1/games/{finished[0]['id']}/analysis/").status_code == 200


def test_the_count_starts_again_in_the_next_window(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    refused = chances_past_the_limit(player, game)
    assert refused.status_code == 429
    clock = solver_runs_services.time
    assert isinstance(clock, SolverClock)
    clock.now += int(refused["Retry-After"])
    assert chances(player, game).status_code == 200


def test_another_players_game_is_a_404_on_chances_and_analysis_and_costs_them_nothing(
    player: Player, make_player: Any
) -> None:
    mine = player.new_game(code=WON_DEAL["code"])
    finished = player.new_game(variant="wasp", seed=3)
    assert player.command(finished["id"], {"type": "resign"}).status_code == 200
    intruder = make_player()
    for _ in range(5):
        for path in (
            f"/api/v1/games/{mine['id']}/chances/",
            f"/api/v1/games/{finished['id']}/analysis/",
        ):
            assert intruder.get(path).status_code == 404
        assert intruder.post(f"/api/v1/games/{mine['id']}/chances/").status_code == 404
    # The owner's solver budget is untouched by the intruder's requests.
    assert chances(player, mine).status_code == 200
    assert player.get(f"/api/v1/games/{finished['id']}/analysis/").status_code == 200


def test_games_ended_past_the_limit_do_not_queue_their_analysis(
    player: Player, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    sent: list[str] = []
    monkeypatch.setattr(workers_services, "broker_configured", lambda: True)
    monkeypatch.setattr(
        analysis_services, "_analysis_enqueue", lambda game_id: sent.append(game_id) or True
    )
    ended = []
    for _ in range(5):  # create and resign, as a script would
        game = player.new_game(code=WON_DEAL["code"])
        with django_capture_on_commit_callbacks(execute=True):
            resigned = player.command(game["id"], {"type": "resign"})
        assert resigned.status_code == 200  # the game ends whatever the limit
        ended.append(game["id"])
    assert sent == ended[:3]


@pytest.mark.usefixtures("redis_down")
def test_the_solver_limit_and_the_band_lock_hold_while_redis_is_down(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    for _ in range(3):
        assert chances(player, game).status_code == 200
        new_version(player, game)
    assert chances(player, game).status_code == 429
    # The lock is held in this process instead of failing open.
    assert cache.add(services.BAND_INLINE_LOCK, True, 60)
    assert not cache.add(services.BAND_INLINE_LOCK, True, 60)
