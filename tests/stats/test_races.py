"""Concurrent finishes of one player's games lose no update (real threads, PostgreSQL)."""

from __future__ import annotations

import pytest
from django.db import connection

from games.history import Command
from games.services import CommandResult
from stats import services
from tests.api.test_event_store import race
from tests.conftest import require_service
from tests.stats.conftest import (
    as_command,
    line_of,
    make_user,
    new_game,
    oracle,
    rows,
    run,
    step,
)


@pytest.fixture
def postgres() -> None:
    require_service("PostgreSQL", connection.vendor == "postgresql")


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres")
def test_two_games_of_one_player_finishing_at_once_are_both_counted() -> None:
    for round_ in range(6):
        # A new player each round: at their first finishes the statistics rows do not exist
        # yet, and both transactions try to create them.
        owner = make_user(f"racer{round_}")
        for _ in range(3):
            # Two kinds of deal: a new game of one kind abandons the open one of that kind.
            resigning, winning = new_game(owner, "random"), new_game(owner)
            step(resigning)
            for action in line_of(winning)[:-1]:
                run(winning, as_command(action))
            results = race(
                [
                    lambda g=resigning: run(g, Command("resign")),
                    lambda g=winning: run(g, as_command(line_of(g)[-1])),
                ]
            )
            assert all(isinstance(result, CommandResult) for result in results), results
            assert rows(owner) == oracle(owner)
        finished = rows(owner)["all"]
        assert (finished[0], finished[1]) == (3, 3)  # won, resigned: no update lost


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres")
def test_a_rebuild_racing_a_finish_misses_nothing() -> None:
    owner = make_user("rebuilt")
    for _ in range(5):
        game = new_game(owner)
        for action in line_of(game)[:-1]:
            run(game, as_command(action))
        results = race(
            [
                lambda g=game: run(g, as_command(line_of(g)[-1])),
                lambda: services.stats_recompute(user=owner),
            ]
        )
        assert not any(isinstance(result, Exception) for result in results), results
        assert rows(owner) == oracle(owner)
    assert rows(owner)["all"][0] == 5
