"""Every write refuses a body field it does not know, the same way: those that take a body
(a create, a command, a name) and those that take none (chances prepared, a restart, a
guest, the deletions), which used to ignore whatever they were sent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from games.models import Game, GameEvent
from tests.api.conftest import Player
from tests.api.test_games import CODE, problem

pytestmark = pytest.mark.django_db

UNKNOWN = {"bogus": 1}


def refused(response: Any) -> None:
    body = problem(response, 400, "validation_error")
    assert body["errors"] == {"bogus": ["unknown field"]}
    assert body["detail"] == "bogus: unknown field"


def writes(player: Player, game_id: str) -> dict[str, Callable[[Any], Any]]:
    """Each write of the API, sending ``body`` as JSON."""
    client = player.client

    def send(method: str, path: str) -> Callable[[Any], Any]:
        return lambda body: getattr(client, method)(path, body, format="json")

    return {
        "create": send("post", "/api/v1/games/"),
        "command": send("post", f"/api/v1/games/{game_id}/commands/"),
        "prepare chances": send("post", f"/api/v1/games/{game_id}/chances/"),
        "restart": send("post", f"/api/v1/games/{game_id}/restart/"),
        "guest": send("post", "/api/v1/guest/"),
        "rename": send("patch", "/api/v1/me/"),
        "erase data": send("delete", "/api/v1/me/data/"),
        "close account": send("delete", "/api/v1/me/"),
        "revoke app": send("delete", "/api/v1/me/apps/some-app/"),
    }


@pytest.mark.parametrize(
    "write",
    [
        "create",
        "command",
        "prepare chances",
        "restart",
        "guest",
        "rename",
        "erase data",
        "close account",
        "revoke app",
    ],
)
def test_every_write_refuses_an_unknown_field_alike_and_changes_nothing(
    player: Player, write: str
) -> None:
    game = player.new_game(code=CODE)
    refused(writes(player, game["id"])[write](UNKNOWN))
    assert Game.objects.count() == 1
    assert not GameEvent.objects.exists()
    assert Game.objects.get(pk=game["id"]).status == "playing"
    assert User.objects.count() == 1
    assert player.get("/api/v1/me/").status_code == 200


@pytest.mark.parametrize("write", ["prepare chances", "restart", "guest", "erase data"])
@pytest.mark.parametrize("body", [[], "x", 3])
def test_a_write_without_a_body_refuses_a_body_that_is_no_object(
    player: Player, write: str, body: Any
) -> None:
    game = player.new_game(code=CODE)
    response = writes(player, game["id"])[write](body)
    problem(response, 400, "validation_error")
    assert Game.objects.count() == 1


def test_a_write_without_a_body_takes_none_or_an_empty_object(player: Player) -> None:
    game = player.new_game(code=CODE)
    path = f"/api/v1/games/{game['id']}"
    assert player.client.post(f"{path}/chances/").status_code == 202
    assert player.client.post(f"{path}/chances/", {}, format="json").status_code == 202
    again = player.client.post(f"{path}/restart/")
    assert again.status_code == 201, again.content
    third = player.client.post(f"/api/v1/games/{again.json()['id']}/restart/", {}, format="json")
    assert third.status_code == 201, third.content
    assert player.client.post("/api/v1/guest/", {}, format="json").status_code == 200


def test_a_guest_is_not_made_from_a_body_with_fields() -> None:
    client = APIClient()
    refused(client.post("/api/v1/guest/", UNKNOWN, format="json"))
    assert not User.objects.exists()
    assert client.post("/api/v1/guest/").status_code == 201
