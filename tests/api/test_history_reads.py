"""Bounded reads of a game's history: events a page at a time (a cursor by seq), the whole log
only as a streamed export, and pages of consecutive states for a replay."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User

from games import services
from games.engine.cards import parse_card
from games.history import Command
from games.models import SNAPSHOT_INTERVAL
from tests.api.conftest import WON_DEAL, Player

pytestmark = pytest.mark.django_db

CODE = WON_DEAL["code"]
LINE = WON_DEAL["line"]


def long_game(player: Player, pairs: int) -> dict[str, Any]:
    """A game of ``2 * pairs + 1`` events: a move and its undo, again and again, then the
    move (through the service: the same writes as the API, much faster)."""
    game = player.new_game(code=CODE)
    owner = User.objects.get(email=player.email)
    move = Command("move", parse_card(LINE[0]["card"]), LINE[0].get("to"))
    for _ in range(pairs):
        services.game_execute_command(owner=owner, game_id=game["id"], command=move)
        services.game_execute_command(owner=owner, game_id=game["id"], command=Command("undo"))
    services.game_execute_command(owner=owner, game_id=game["id"], command=move)
    return player.get(f"/api/v1/games/{game['id']}/").json()  # type: ignore[no-any-return]


def problem_code(response: Any, status: int) -> str:
    assert response.status_code == status, response.content
    return str(response.json()["code"])


def test_events_come_a_page_at_a_time_following_next(player: Player) -> None:
    game = long_game(player, 60)
    url: str | None = f"/api/v1/games/{game['id']}/events/?limit=50"
    seqs: list[int] = []
    pages = 0
    while url:
        page = player.get(url).json()
        assert page["version"] == 121
        assert len(page["results"]) <= 50
        seqs += [event["seq"] for event in page["results"]]
        url = page["next"]
        pages += 1
    assert seqs == list(range(1, 122))
    assert pages == 3


def test_an_events_page_starts_after_the_cursor(player: Player) -> None:
    game = long_game(player, 10)
    page = player.get(f"/api/v1/games/{game['id']}/events/?after=15&limit=3").json()
    assert [event["seq"] for event in page["results"]] == [16, 17, 18]
    assert page["next"].endswith(f"/api/v1/games/{game['id']}/events/?after=18&limit=3")
    last = player.get(f"/api/v1/games/{game['id']}/events/?after=19").json()
    assert [event["seq"] for event in last["results"]] == [20, 21]
    assert last["next"] is None
    beyond = player.get(f"/api/v1/games/{game['id']}/events/?after=500").json()
    assert (beyond["results"], beyond["next"]) == ([], None)


def test_the_default_events_page_is_a_hundred(player: Player) -> None:
    game = long_game(player, 60)
    page = player.get(f"/api/v1/games/{game['id']}/events/").json()
    assert len(page["results"]) == 100
    assert page["next"].endswith("?after=100&limit=100")


@pytest.mark.parametrize(
    "query", ["?limit=0", "?limit=1001", "?after=-1", "?after=x", "?after=1&after=2", "?page=2"]
)
def test_bad_events_queries_are_refused(player: Player, query: str) -> None:
    game = player.new_game(code=CODE)
    response = player.get(f"/api/v1/games/{game['id']}/events/{query}")
    assert problem_code(response, 400) == "validation_error"


def test_the_export_streams_the_whole_log(player: Player) -> None:
    game = long_game(player, 300)
    response = player.get(f"/api/v1/games/{game['id']}/events/export/")
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Disposition"].startswith("attachment;")
    chunks = list(response.streaming_content)
    assert len(chunks) > 3  # written as it is read, not built whole
    body = json.loads(b"".join(chunks))
    assert (body["id"], body["version"]) == (game["id"], 601)
    assert [event["seq"] for event in body["events"]] == list(range(1, 602))
    paged = player.get(f"/api/v1/games/{game['id']}/events/?limit=1000").json()["results"]
    assert body["events"] == paged


def test_the_log_is_read_in_chunks_by_seq_up_to_the_version_read(player: Player) -> None:
    """No server-side cursor (a pooler in transaction mode cannot keep one): ranges of seq,
    each chunk after the last, and nothing written after the game was read."""
    from games import selectors
    from games.models import Game

    game = Game.objects.get(pk=long_game(player, 10)["id"])
    seqs = [event.seq for event in selectors.game_events_all(game=game, chunk=7)]
    assert seqs == list(range(1, 22))
    services.game_execute_command(
        owner=game.owner, game_id=game.pk, command=Command("undo")
    )  # the log grows: the game as it was read still ends at 21
    assert [event.seq for event in selectors.game_events_all(game=game, chunk=5)][-1] == 21


def test_the_export_of_a_new_game_is_empty(player: Player) -> None:
    game = player.new_game(code=CODE)
    response = player.get(f"/api/v1/games/{game['id']}/events/export/")
    body = json.loads(b"".join(response.streaming_content))
    assert body == {"id": game["id"], "version": 0, "events": []}


def test_another_players_history_is_not_found(player: Player, make_player: Any) -> None:
    game = player.new_game(code=CODE)
    other = make_player()
    for path in ("events/", "events/export/", "states/", "states/0/"):
        assert problem_code(other.get(f"/api/v1/games/{game['id']}/{path}"), 404) == "not_found"


def test_states_come_in_pages_equal_to_each_single_state(player: Player) -> None:
    game = long_game(player, 2 * SNAPSHOT_INTERVAL)
    version = game["version"]
    url: str | None = f"/api/v1/games/{game['id']}/states/?start={SNAPSHOT_INTERVAL - 3}&limit=40"
    seen = []
    while url:
        page = player.get(url).json()
        assert page["version"] == version
        seen += page["results"]
        url = page["next"]
    assert [state["version"] for state in seen] == list(range(SNAPSHOT_INTERVAL - 3, version + 1))
    events = {
        e["seq"]: e
        for e in player.get(f"/api/v1/games/{game['id']}/events/?limit=1000").json()["results"]
    }
    for state in seen[::7] + seen[-2:]:
        single = player.get(f"/api/v1/games/{game['id']}/states/{state['version']}/").json()
        event = state.pop("event")
        # elapsed_seconds runs on while the game is on: the two answers came at two moments.
        assert state.pop("elapsed_seconds") <= single.pop("elapsed_seconds")
        assert state == single
        assert event == events[state["version"]]


def test_the_first_state_of_a_page_from_the_deal_has_no_event(player: Player) -> None:
    game = long_game(player, 2)
    page = player.get(f"/api/v1/games/{game['id']}/states/").json()
    assert [state["version"] for state in page["results"]] == [0, 1, 2, 3, 4, 5]
    assert page["results"][0]["event"] is None
    assert page["results"][1]["event"]["type"] == "move"
    assert page["next"] is None


def test_states_show_no_hidden_card(player: Player) -> None:
    game = player.new_game()  # a random deal: secret while the game is on
    for body in [{"type": "deal"}, {"type": "undo"}, {"type": "redo"}]:
        assert player.command(game["id"], body).status_code == 200
    page = player.get(f"/api/v1/games/{game['id']}/states/").json()
    assert len(page["results"]) == 4
    for state in page["results"]:
        single = player.get(f"/api/v1/games/{game['id']}/states/{state['version']}/").json()
        assert state["columns"] == single["columns"]
        assert state["code"] is None
        assert state["seed"] is None
        assert isinstance(state["stock"], int)


@pytest.mark.parametrize("query", ["?start=-1", "?limit=0", "?limit=101", "?from=0"])
def test_bad_states_queries_are_refused(player: Player, query: str) -> None:
    game = player.new_game(code=CODE)
    response = player.get(f"/api/v1/games/{game['id']}/states/{query}")
    assert problem_code(response, 400) == "validation_error"


def test_a_states_page_past_the_end_is_not_found(player: Player) -> None:
    game = long_game(player, 1)
    response = player.get(f"/api/v1/games/{game['id']}/states/?start=4")
    assert problem_code(response, 404) == "not_found"
