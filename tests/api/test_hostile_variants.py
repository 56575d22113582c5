"""Hostile input aimed at this round's fields and endpoints (a game's variant, a move's
"from", a winnable game's difficulty, winning chances, the variants list): every one is a
clean 4xx problem answer, never a 500 or a hang (tests/api/test_hostile_input.py has the
parser's own checks)."""

from __future__ import annotations

import pytest

from tests.api.conftest import WON_DEAL, Player
from tests.api.test_hostile_input import PROBLEM, nested, post_raw, problem

pytestmark = pytest.mark.django_db

HUGE = "9" * 5000
LONG = "9" * 100  # the longest number the body check lets through to the serializer
NEW_FIELDS = ["from", "to", "seed", "difficulty", "variant", "pysol_number"]


def command_path(game_id: str) -> str:
    return f"/api/v1/games/{game_id}/commands/"


@pytest.mark.parametrize("field", NEW_FIELDS)
@pytest.mark.parametrize("number", [HUGE, LONG, "-" + LONG, "1.5", "1e400"])
@pytest.mark.parametrize("variant", ["scorpion", "double-scorpion"])
def test_an_outsized_number_in_a_new_field_is_a_400(
    player: Player, field: str, number: str, variant: str
) -> None:
    game = player.new_game(variant=variant)
    command = f'{{"type": "move", "card": "8H", "{field}": {number}}}'
    create = f'{{"mode": "winnable", "{field}": {number}}}'
    for path, body in ((command_path(game["id"]), command), ("/api/v1/games/", create)):
        response = post_raw(player.client, path, body.encode())
        assert response.status_code == 400, (path, response.content)
        assert response["Content-Type"] == PROBLEM


@pytest.mark.parametrize(
    "value", ['"x"', "true", "[]", "{}", '"' + "w" * 60_000 + '"', '"wasp\\u0000"', "-1"]
)
@pytest.mark.parametrize("field", ["variant", "difficulty", "from"])
def test_a_new_field_of_the_wrong_type_or_size_is_a_400(
    player: Player, field: str, value: str
) -> None:
    game = player.new_game(variant="double-scorpion")
    command = f'{{"type": "move", "card": "8H", "{field}": {value}}}'
    create = f'{{"mode": "random", "{field}": {value}}}'
    for path, body in ((command_path(game["id"]), command), ("/api/v1/games/", create)):
        response = post_raw(player.client, path, body.encode())
        assert response.status_code == 400, (path, response.content)
        assert response["Content-Type"] == PROBLEM


def test_the_chances_endpoint_refuses_a_body_nested_a_thousand_deep(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    path = f"/api/v1/games/{game['id']}/chances/"
    problem(post_raw(player.client, path, nested(1000)), 400, "json_too_deep")


@pytest.mark.parametrize("header", ["Idempotency-Key", "If-Match", "Last-Event-ID"])
def test_a_5000_digit_header_on_the_new_endpoints_is_never_a_server_error(
    player: Player, header: str
) -> None:
    game = player.new_game(variant="wasp", seed=7)
    for path in (
        f"/api/v1/games/{game['id']}/chances/",
        f"/api/v1/games/{game['id']}/analysis/",
        "/api/v1/variants/",
        "/api/v1/daily/",
    ):
        response = player.get(path, **{header: HUGE})
        assert response.status_code < 500, (header, path, response.content)
    created = player.post("/api/v1/games/", {"variant": "wasp"}, **{header: HUGE})
    moved = player.command(game["id"], {"type": "move", "card": "8H", "from": 0}, **{header: HUGE})
    if header == "Idempotency-Key":
        problem(created, 400, "validation_error")
        problem(moved, 400, "validation_error")
    elif header == "If-Match":
        assert created.status_code == 201
        problem(moved, 400, "validation_error")
    else:
        assert created.status_code == 201
        assert moved.status_code in (200, 422), moved.content


@pytest.mark.parametrize("query", ["variant=" + "x" * 100_000, "variant=" + HUGE, "variant=%00"])
def test_a_variant_filter_naming_no_variant_is_a_400(player: Player, query: str) -> None:
    problem(player.get("/api/v1/games/?" + query), 400, "validation_error")


def test_the_variants_list_ignores_a_huge_query(player: Player) -> None:
    assert player.get("/api/v1/variants/?x=" + HUGE).status_code == 200


@pytest.mark.parametrize(
    "query",
    [
        "events/?after=" + HUGE,
        "events/?limit=" + HUGE,
        "states/?start=" + HUGE,
        "states/?limit=" + HUGE,
    ],
)
def test_a_5000_digit_query_number_is_a_400(player: Player, query: str) -> None:
    game = player.new_game(variant="double-scorpion")
    problem(player.get(f"/api/v1/games/{game['id']}/{query}"), 400, "validation_error")


@pytest.mark.parametrize("query", ["page=" + HUGE, "page_size=" + HUGE])
def test_a_5000_digit_page_of_a_variant_filtered_list_is_a_400(player: Player, query: str) -> None:
    player.new_game(variant="wasp")
    problem(player.get("/api/v1/games/?variant=wasp&" + query), 400, "validation_error")
