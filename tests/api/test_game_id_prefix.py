"""``GET /api/v1/games/?id_prefix=``: the caller's games whose id starts with some hex digits,
for clients that let a player type the short id they were shown (``scorpion analyse c52caf3a``)
instead of paging through every game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest

from games.models import Game
from tests.api.conftest import Player
from tests.api.test_games import CODE, problem

pytestmark = pytest.mark.django_db


def listed(player: Player, query: str) -> list[str]:
    response = player.get(f"/api/v1/games/?{query}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["count"] == len(body["results"])
    return [game["id"] for game in body["results"]]


def game_with_id(player: Player, game_id: str) -> str:
    """A new game of ``player``'s, given the id ``game_id`` (ids are random otherwise)."""
    made = player.new_game(code=CODE, mode="seeded")
    Game.objects.filter(pk=made["id"]).update(id=UUID(game_id))
    return game_id


def test_the_prefix_finds_the_callers_game_in_any_case_and_at_any_length(player: Player) -> None:
    games = [player.new_game()["id"] for _ in range(3)]
    for game_id in games:
        digits = game_id.replace("-", "")
        for length in (4, 8, 13, 32):
            found = listed(player, f"id_prefix={digits[:length]}")
            assert game_id in found
            assert all(other.replace("-", "").startswith(digits[:length]) for other in found)
        assert listed(player, f"id_prefix={digits[:8].upper()}") == [game_id]


def test_the_prefix_is_a_range_of_ids_with_exact_ends(player: Player) -> None:
    inside = [
        game_with_id(player, "abcd0000-0000-0000-0000-000000000000"),
        game_with_id(player, "abcd7777-0000-4000-8000-000000000000"),
        game_with_id(player, "abcdffff-ffff-ffff-ffff-ffffffffffff"),
    ]
    game_with_id(player, "abccffff-ffff-ffff-ffff-ffffffffffff")
    game_with_id(player, "abce0000-0000-0000-0000-000000000000")
    assert sorted(listed(player, "id_prefix=abcd")) == inside
    assert listed(player, "id_prefix=abcd0") == inside[:1]
    assert listed(player, "id_prefix=abcdffffffffffffffffffffffffffff") == inside[2:]
    assert listed(player, "id_prefix=abcd7777&status=won") == []


def test_another_players_games_are_never_found(
    player: Player, make_player: Callable[[], Player]
) -> None:
    theirs = make_player().new_game()["id"]
    mine = player.new_game()["id"]
    digits = theirs.replace("-", "")
    for length in (4, 8, 32):
        assert theirs not in listed(player, f"id_prefix={digits[:length]}")
    assert listed(player, f"id_prefix={digits}") == []
    assert mine in listed(player, f"id_prefix={mine[:4]}")


@pytest.mark.parametrize(
    "value",
    [
        "",
        "abc",  # too short: most players' games would match
        "ghij",
        "6e49-5f3a",  # the id's hyphens are left out
        "6e495f3a-e63f",
        " 6e49",
        "6e49%20",
        "6e49%0A",  # a regex's "$" would let a final newline through
        "6e49%00",
        "%EF%BC%96e49",  # a fullwidth digit
        "a" * 33,
        "a" * 5000,
        "6e49&id_prefix=6e49",
    ],
)
def test_a_prefix_that_is_not_4_to_32_hex_digits_is_a_validation_error(
    player: Player, value: str
) -> None:
    player.new_game()
    body = problem(player.get(f"/api/v1/games/?id_prefix={value}"), 400, "validation_error")
    assert list(body["errors"]) == ["id_prefix"]
    assert len(body["detail"]) < 200  # the value is not echoed back


def test_the_prefix_needs_credentials(client: Any) -> None:
    problem(client.get("/api/v1/games/?id_prefix=abcd"), 401, "not_authenticated")
