"""GET /api/v1/games/{id}/analysis/: served once the game is over, for a daily only once its
deal is revealed, computed once and stored (docs/api.md, "Analysis")."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from games import analysis, services, tasks
from games.engine.cards import card_code, parse_deal_code
from games.engine.legal import status
from games.engine.position import initial_position
from games.models import DailyDeal, Game, GameAnalysis
from games.selectors import game_state_at
from games.services import analysis as analysis_services
from games.services import workers as workers_services
from infrastructure import background
from tests.api.conftest import WON_DEAL, Player
from tests.api.test_daily_secrecy import CODE, LINE, SEED, move_to, play_line
from tests.data import DEALS
from tests.engine.test_analysis import first_losing_point
from tests.engine.test_solver import play_line as play_engine_line

pytestmark = pytest.mark.django_db


def analysis_path(game_id: str) -> str:
    return f"/api/v1/games/{game_id}/analysis/"


def lost_game(player: Player, **create: Any) -> tuple[str, int]:
    """A game that follows the winning line, then makes a losing move and resigns:
    (game id, the version before the losing move)."""
    game = player.new_game(**create)
    log, action = first_losing_point(WON_DEAL["code"], WON_DEAL["line"])
    before = len(log.events)
    play_line(player, game["id"], WON_DEAL["line"][:before])
    play_line(
        player,
        game["id"],
        [{"type": "move", "card": card_code(action.card), "to": action.to}, {"type": "resign"}],
    )
    return game["id"], before


def test_a_game_still_on_is_refused_with_game_not_finished(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    play_line(player, game["id"], WON_DEAL["line"][:3])

    response = player.get(analysis_path(game["id"]))

    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "game_not_finished"
    assert not GameAnalysis.objects.exists()


def test_another_players_game_is_not_found(
    player: Player, make_player: Callable[[], Player]
) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    player.command(game["id"], {"type": "resign"})

    response = make_player().get(analysis_path(game["id"]))

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_a_won_game_gets_a_winning_line_from_the_deal(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    play_line(player, game["id"], WON_DEAL["line"])

    body = player.get(analysis_path(game["id"])).json()

    assert body["status"] == "ready"
    assert (body["deal"], body["outcome"]) == ("won", "won")
    assert body["last_winnable_version"] is None
    assert body["losing_event"] is None
    assert body["line_version"] == 0
    assert body["version"] == len(WON_DEAL["line"])
    commands = [step["command"] for step in body["line"]]
    final = play_engine_line(initial_position(parse_deal_code(WON_DEAL["code"])), commands)
    assert status(final) == "won"
    assert len(body["line"][-1]["collected"]) == 4


def test_a_lost_game_names_the_last_winnable_version_and_the_move_that_lost_it(
    player: Player,
) -> None:
    game_id, before = lost_game(player, code=WON_DEAL["code"])

    response = player.get(analysis_path(game_id))

    assert response.status_code == 200
    body = response.json()
    assert (body["deal"], body["outcome"]) == ("won", "slipped")
    assert body["last_winnable_version"] == before
    assert body["line_version"] == before
    events = player.get(f"/api/v1/games/{game_id}/events/").json()["results"]
    assert body["losing_event"] == events[before]  # event before + 1, the losing move
    assert body["losing_event"]["type"] == "move"
    # The line, played from the state at that version, wins.
    position = game_state_at(game=Game.objects.get(pk=game_id), version=before).position
    assert status(play_engine_line(position, [s["command"] for s in body["line"]])) == "won"


def test_the_analysis_is_computed_once_and_then_served_from_storage(
    player: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _ = lost_game(player, code=WON_DEAL["code"])
    first = player.get(analysis_path(game_id)).json()

    def no_solver(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the stored analysis must be served, not recomputed")

    monkeypatch.setattr(analysis_services, "analyse", no_solver)
    second = player.get(analysis_path(game_id)).json()

    assert second == first
    assert GameAnalysis.objects.filter(game_id=game_id).count() == 1


def test_an_unwinnable_deal_is_said_so(player: Player) -> None:
    game = player.new_game(code=DEALS["lost"][0]["code"])
    player.command(game["id"], {"type": "resign"})

    body = player.get(analysis_path(game["id"])).json()

    assert (body["deal"], body["outcome"]) == ("lost", "unwinnable")
    assert body["line"] == []
    assert body["line_version"] is None


def test_with_a_live_worker_the_answer_is_pending_and_a_task_is_sent(
    player: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    player.command(game["id"], {"type": "resign"})
    sent: list[str] = []
    monkeypatch.setattr(workers_services, "worker_available", lambda _queue: True)
    monkeypatch.setattr(
        analysis_services, "_analysis_enqueue", lambda game_id: sent.append(game_id) or True
    )

    response = player.get(analysis_path(game["id"]))

    assert response.status_code == 202
    assert response["Retry-After"] == "2"
    assert response.json() == {"status": "pending", "game": game["id"], "retry_after": 2}
    assert sent == [game["id"]]
    assert not GameAnalysis.objects.exists()


def test_a_task_already_sent_is_not_sent_again_while_pending(
    player: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    player.command(game["id"], {"type": "resign"})
    sent: list[str] = []
    monkeypatch.setattr(workers_services, "worker_available", lambda _queue: True)
    monkeypatch.setattr(background, "enqueue", lambda task, game_id: sent.append(game_id) or True)

    answers = [player.get(analysis_path(game["id"])).status_code for _ in range(3)]

    assert answers == [202, 202, 202]
    assert sent == [game["id"]]


def test_a_broker_that_refuses_the_task_falls_back_to_computing_inline(
    player: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    player.command(game["id"], {"type": "resign"})
    monkeypatch.setattr(workers_services, "worker_available", lambda _queue: True)
    monkeypatch.setattr(analysis_services, "_analysis_enqueue", lambda game_id: False)

    response = player.get(analysis_path(game["id"]))

    assert response.status_code == 200
    assert response.json()["outcome"] == "ended_winnable"


def no_live_worker_and_tiny_request_budgets(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deployment with a broker whose worker is away, and a request's budgets that cannot
    decide WON_DEAL's games (the worker's still can)."""
    monkeypatch.setattr(workers_services, "broker_configured", lambda: True)
    monkeypatch.setattr(workers_services, "worker_available", lambda _queue: False)
    monkeypatch.setitem(analysis.VARIANT_INLINE_ANALYSIS_BUDGETS, "scorpion", (5, 5))


def test_an_analysis_a_requests_budgets_leave_undecided_is_not_stored_but_left_to_a_worker(
    player: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _ = lost_game(player, code=WON_DEAL["code"])
    no_live_worker_and_tiny_request_budgets(monkeypatch)

    response = player.get(analysis_path(game_id))

    assert response.status_code == 503
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "analysis_needs_worker"
    assert response["Retry-After"] == str(response.json()["retry_after"])
    assert not GameAnalysis.objects.exists()

    # Asked again, it is known already: no search.
    def no_solver(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a request's undecided analysis must not be searched again")

    with monkeypatch.context() as patched:
        patched.setattr(analysis_services, "analyse", no_solver)
        assert player.get(analysis_path(game_id)).json()["code"] == "analysis_needs_worker"

    # The worker's budgets decide it, and then it is served.
    tasks.analyse_game(game_id)
    body = player.get(analysis_path(game_id)).json()
    assert (body["status"], body["outcome"]) == ("ready", "slipped")


def test_an_analysis_a_requests_budgets_decide_is_stored_as_the_worker_would_store_it(
    player: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _ = lost_game(player, code=WON_DEAL["code"])
    monkeypatch.setattr(workers_services, "broker_configured", lambda: True)
    monkeypatch.setattr(workers_services, "worker_available", lambda _queue: False)
    # A request's budgets as the Python search has them (compiled, they are the full ones).
    monkeypatch.setitem(analysis.VARIANT_INLINE_ANALYSIS_BUDGETS, "scorpion", (100_000, 100_000))
    assert analysis.inline_analysis_budgets("scorpion") < analysis.analysis_budgets("scorpion")

    inline = player.get(analysis_path(game_id)).json()
    GameAnalysis.objects.all().delete()
    tasks.analyse_game(game_id)  # the worker's budgets
    worker = player.get(analysis_path(game_id)).json()

    assert inline["status"] == "ready"
    for key in ("deal", "outcome", "last_winnable_version", "line_version", "line"):
        assert inline[key] == worker[key]
    assert (inline["solver_nodes"], inline["node_budget"]) == (
        worker["solver_nodes"],
        worker["node_budget"],
    )


def test_without_a_broker_a_request_computes_the_analysis_with_the_full_budgets(
    player: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _ = lost_game(player, code=WON_DEAL["code"])
    no_live_worker_and_tiny_request_budgets(monkeypatch)
    monkeypatch.setattr(workers_services, "broker_configured", lambda: False)

    body = player.get(analysis_path(game_id)).json()

    assert (body["status"], body["outcome"]) == ("ready", "slipped")


def test_finishing_a_game_enqueues_its_analysis_on_commit(
    player: Player,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    sent: list[str] = []
    monkeypatch.setattr(
        analysis_services, "_analysis_enqueue", lambda game_id: sent.append(game_id) or True
    )
    with django_capture_on_commit_callbacks(execute=True):
        player.command(game["id"], WON_DEAL["line"][0])
    assert sent == []  # a move that does not end the game sends nothing
    with django_capture_on_commit_callbacks(execute=True):
        player.command(game["id"], {"type": "resign"})
    assert sent == [game["id"]]


# --- Fair play: a daily's analysis waits for its deal to be revealed ---


@pytest.fixture
def today_deal() -> DailyDeal:
    return DailyDeal.objects.create(
        date=timezone.now().date(), seed=SEED, candidate=0, deal_code=CODE, certificate=LINE
    )


@pytest.mark.parametrize("days_ago", [0, 1])
def test_a_finished_daily_is_not_analysed_before_its_deal_is_revealed(
    player: Player, today_deal: DailyDeal, days_ago: int
) -> None:
    game = player.new_game(mode="daily")
    play_line(player, game["id"], LINE[:4])
    player.command(game["id"], {"type": "resign"})
    move_to(days_ago, game["id"])
    # Even when a worker has analysed it already, nothing of it is served.
    services.game_analysis_ensure(game_id=Game.objects.get(pk=game["id"]).pk)

    response = player.get(analysis_path(game["id"]))

    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "deal_not_revealed"
    day = Game.objects.get(pk=game["id"]).daily_date
    assert body["available_at"].startswith((day + datetime.timedelta(days=2)).isoformat())
    assert "line" not in body
    assert CODE not in response.content.decode()


def test_a_daily_still_on_is_refused_as_not_finished_even_once_revealed(
    player: Player, today_deal: DailyDeal
) -> None:
    game = player.new_game(mode="daily")
    move_to(5, game["id"])

    response = player.get(analysis_path(game["id"]))

    assert response.status_code == 409
    assert response.json()["code"] == "game_not_finished"


def test_a_finished_daily_is_analysed_once_its_deal_is_revealed(
    player: Player, today_deal: DailyDeal
) -> None:
    game = player.new_game(mode="daily")
    play_line(player, game["id"], LINE[:4])
    player.command(game["id"], {"type": "resign"})
    move_to(2, game["id"])

    response = player.get(analysis_path(game["id"]))

    assert response.status_code == 200
    assert response.json()["deal"] == "won"
    assert player.get(f"/api/v1/games/{game['id']}/").json()["code"] == CODE


def test_the_analysis_needs_authentication(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    player.client.credentials()

    response = player.get(analysis_path(game["id"]))

    assert response.status_code == 401
