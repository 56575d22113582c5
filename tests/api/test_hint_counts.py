"""Hints are counted without a write of the game per request: the first at once (it decides
whether a win is clean), the rest in Redis, written to the games in batches."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.models import Game
from games.services import hints as hints_services
from stats.models import PlayerStats
from tests.api.conftest import WON_DEAL, Player
from tests.conftest import require_service

pytestmark = pytest.mark.django_db

CODE = WON_DEAL["code"]
LINE = WON_DEAL["line"]


@pytest.fixture
def with_redis() -> None:
    require_service("Redis (REDIS_URL)", bool(settings.REDIS_URL))


def hints(player: Player, game: dict[str, Any]) -> None:
    assert player.get(f"/api/v1/games/{game['id']}/hints/").status_code == 200


def stored(game: dict[str, Any]) -> int:
    return Game.objects.get(pk=game["id"]).hint_count


def writes(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if q["sql"].startswith("UPDATE")]


def test_the_first_hint_is_written_at_once(player: Player) -> None:
    game = player.new_game(code=CODE)
    hints(player, game)
    assert stored(game) == 1


def test_later_hints_write_nothing_until_the_flush(player: Player, with_redis: None) -> None:
    game = player.new_game(code=CODE)
    hints(player, game)
    with CaptureQueriesContext(connection) as queries:
        for _ in range(5):
            hints(player, game)
    assert writes(queries) == []
    assert stored(game) == 1
    assert services.hint_counts_flush() == 5
    assert stored(game) == 6
    assert services.hint_counts_flush() == 0  # taken once: a second flush adds nothing
    assert stored(game) == 6


def test_hints_of_many_games_are_flushed_to_their_own_games(
    make_player: Any, with_redis: None
) -> None:
    games = []
    for asked in (2, 3, 4):
        player = make_player()
        game = player.new_game(code=CODE)
        for _ in range(asked):
            hints(player, game)
        games.append((game, asked))
    assert services.hint_counts_flush(batch=2) == 1 + 2 + 3
    assert [stored(game) for game, _ in games] == [asked for _, asked in games]


def test_without_redis_every_hint_is_written_at_once(player: Player, settings: Any) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    game = player.new_game(code=CODE)
    for _ in range(3):
        hints(player, game)
    assert stored(game) == 3


def test_with_redis_failing_every_hint_is_written_at_once(
    player: Player, with_redis: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis

    class Down:
        def pipeline(self, **kwargs: Any) -> Any:
            raise redis.ConnectionError("Redis is down")

    game = player.new_game(code=CODE)
    hints(player, game)
    monkeypatch.setattr(hints_services, "redis_client", lambda cache: Down())
    hints(player, game)
    hints(player, game)
    assert stored(game) == 3


def test_a_win_after_hints_is_not_clean_even_if_the_batched_counts_are_lost(
    player: Player,
) -> None:
    game = player.new_game(code=CODE)
    for _ in range(3):
        hints(player, game)
    # The counts waiting in Redis are never flushed (say Redis restarted): the first hint
    # was written at once, and that is what makes the win not clean.
    for step in LINE:
        assert player.command(game["id"], step).status_code == 200
    row = PlayerStats.objects.get(user__email=player.email, mode="all")
    assert (row.won, row.clean_wins) == (1, 0)


def test_a_finished_game_counts_no_more_hints(player: Player) -> None:
    game = player.new_game(code=CODE)
    player.command(game["id"], {"type": "resign"})
    hints(player, game)
    services.hint_counts_flush()
    assert stored(game) == 0
