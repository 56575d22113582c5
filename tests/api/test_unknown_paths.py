"""Every path under /api/ answers problem+json, DEBUG on (``make run``'s default) or off.

With DEBUG on, Django answers a 404 raised by its URL resolver with its HTML debug page, never
with handler404: an API client got HTML for a mistyped path.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import Player
from tests.api.test_games import CODE, problem

pytestmark = pytest.mark.django_db

GAME = "6e495f3a-e63f-46b3-948c-75ba73fd41af"
UNKNOWN_PATHS = [
    "/api/v1/nope/",
    "/api/v1/nope",
    f"/api/v1/games/{GAME}/nope/",
    "/api/v1/games/not-a-uuid/",
    "/api/v1/daily/2026%2F01/leaderboard/",
    "/api/nope",
    "/api/",
    "/api/problems/no_such_code/",
    "/api/problems/a.b/",
]


@pytest.fixture(params=[True, False], ids=["debug", "no-debug"])
def debug(request: pytest.FixtureRequest, settings: Any) -> bool:
    settings.DEBUG = request.param
    return bool(request.param)


@pytest.mark.parametrize("path", UNKNOWN_PATHS)
@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete"])
def test_an_unknown_api_path_is_a_404_problem_whatever_the_method(
    player: Player, debug: bool, path: str, method: str
) -> None:
    body = problem(getattr(player.client, method)(path), 404, "not_found")
    assert "<" not in body["detail"]


@pytest.mark.parametrize("path", ["/api/v1/nope/", f"/api/v1/games/{GAME}/nope/"])
def test_an_unknown_api_path_is_a_404_problem_signed_out_with_a_csrf_checking_client(
    debug: bool, path: str
) -> None:
    # A browser's POST without a CSRF token: no HTML 403 page either.
    client = APIClient(enforce_csrf_checks=True)
    problem(client.get(path), 404, "not_found")
    problem(client.post(path, {"a": 1}, format="json"), 404, "not_found")


def test_a_path_without_its_final_slash_is_redirected_for_a_read_only(
    player: Player, debug: bool
) -> None:
    response = player.client.get("/api/v1/games?status=won")
    assert response.status_code == 301
    assert response["Location"] == "/api/v1/games/?status=won"
    # A redirect would lose the body: a 404 naming the path to use (was a 500 with DEBUG on).
    body = problem(player.client.post("/api/v1/games", {}, format="json"), 404, "not_found")
    assert "/api/v1/games/" in body["detail"]


def test_a_wrong_method_is_a_405_problem(player: Player, debug: bool) -> None:
    game = player.new_game(code=CODE)
    problem(player.client.delete(f"/api/v1/games/{game['id']}/"), 405, "method_not_allowed")
    problem(player.client.put(f"/api/v1/games/{game['id']}/chances/"), 405, "method_not_allowed")
    problem(player.client.get(f"/api/v1/games/{game['id']}/restart/"), 405, "method_not_allowed")
    client = APIClient(enforce_csrf_checks=True)
    response = client.post("/api/problems/not_found/")
    problem(response, 405, "method_not_allowed")
    assert response["Allow"] == "GET, HEAD"


def test_a_problem_type_is_still_described(debug: bool) -> None:
    response = APIClient().get("/api/problems/not_found/")
    assert response.status_code == 200
    assert response.json() == {"code": "not_found", "status": 404, "title": "Not found"}
