"""Games left behind: abandoned by a new game of the same kind or a restart, counted as played
and not won once they had a move, and the existing data migrated to the same figures."""

from __future__ import annotations

import datetime
import importlib

import pytest
from django.apps import apps

from games import history, services
from games.engine.cards import parse_deal_code
from games.history import Command
from games.models import Game, GameEvent
from games.selectors import game_state_at
from stats import services as stats_services
from tests.stats.conftest import (
    CODE,
    Clock,
    make_user,
    new_game,
    oracle,
    row,
    rows,
    run,
    step,
    win,
)

pytestmark = pytest.mark.django_db


def status(game: Game) -> str:
    game.refresh_from_db()
    return game.status


def test_a_new_game_of_the_same_kind_abandons_the_one_left_open(clock: Clock) -> None:
    user = make_user("ann")
    left = new_game(user)
    step(left)
    other_kind = new_game(user, "random")
    clock.advance(minutes=2)
    new_game(user)
    assert status(left) == "abandoned"
    assert status(other_kind) == "playing"  # another kind of deal: still the player's to play
    assert left.finished_at == clock.now
    # The log says so: an abandon event, and the projection is its fold.
    assert list(left.events.values_list("type", flat=True)) == ["move", "abandon"]
    assert game_state_at(game=left, version=left.version - 1).to_dict() != left.state
    assert game_state_at(game=left, version=left.version).to_dict() == left.state
    assert left.state["abandoned"] is True
    stats = row(user)
    assert (stats.won, stats.resigned, stats.abandoned, stats.current_streak) == (0, 0, 1, 0)
    assert rows(user) == oracle(user)


def test_a_restart_abandons_the_game_it_restarts(clock: Clock) -> None:
    user = make_user("ben")
    original = new_game(user)
    step(original)
    restarted = services.game_restart(owner=user, game_id=original.pk)
    assert status(original) == "abandoned"
    assert status(restarted) == "playing"
    assert row(user, "seeded").abandoned == 1


def test_a_game_left_untouched_counts_for_nothing(clock: Clock) -> None:
    user = make_user("cat")
    untouched = new_game(user)
    new_game(user)
    assert status(untouched) == "abandoned"
    assert rows(user) == oracle(user)
    stats_services.stats_recompute(user=user)
    assert row(user).abandoned == 0


def test_an_abandoned_game_refuses_commands(clock: Clock) -> None:
    user = make_user("dan")
    left = new_game(user)
    step(left)
    new_game(user)
    with pytest.raises(history.GameFinishedError, match="abandoned"):
        run(left, Command("undo"))


def test_an_abandonment_ends_the_streak(clock: Clock) -> None:
    user = make_user("eli")
    win(new_game(user))
    clock.advance(minutes=1)
    left = new_game(user)
    step(left)
    clock.advance(minutes=1)
    third = new_game(user)  # leaves `left` behind
    clock.advance(minutes=1)
    win(third)
    assert (row(user).current_streak, row(user).best_streak) == (1, 1)
    assert (row(user).won, row(user).abandoned) == (2, 1)
    incremental = rows(user)
    stats_services.stats_recompute(user=user)
    assert rows(user) == incremental == oracle(user)


def test_the_migration_abandons_what_was_left_and_recounts_like_rebuild_stats(
    clock: Clock,
) -> None:
    """Data from before abandoning existed: open games with later games of their kind. The
    migrations abandon them and recount; the rows then equal ``rebuild_stats``'s."""
    abandon = importlib.import_module("games.migrations.0009_abandon_left_behind")
    recount = importlib.import_module("stats.migrations.0004_recount_abandoned")
    user = make_user("old")
    start = clock.now
    won = new_game(user, "random")
    win(won)
    # Three seeded games open at once, as the old code allowed (made directly in the table).
    games = []
    for minutes, moved in ((1, True), (2, False), (3, True)):
        clock.set(start + datetime.timedelta(minutes=minutes))
        game = Game.objects.create(
            owner=user,
            mode="seeded",
            deal_code=CODE,
            state=history.new_game_state(parse_deal_code(CODE)).to_dict(),
            status="playing",
            deal_supplied=True,
        )
        if moved:
            step(game)
        games.append(game)
    abandon.abandon_left_behind(apps, None)
    recount.recount(apps, None)
    assert [status(g) for g in games] == ["abandoned", "abandoned", "playing"]
    assert games[0].finished_at == games[1].created_at
    assert GameEvent.objects.filter(game=games[0], type="abandon").count() == 1
    migrated = rows(user)
    assert migrated == oracle(user)
    assert (row(user).won, row(user).abandoned) == (1, 1)
    stats_services.stats_rebuild()
    assert rows(user) == migrated


def test_a_stuck_game_left_behind_counts_as_played(clock: Clock) -> None:
    user = make_user("stu")
    stuck = new_game(user)
    step(stuck)
    Game.objects.filter(pk=stuck.pk).update(status="stuck")  # no moves left, as the engine says
    new_game(user)
    assert status(stuck) == "abandoned"
    assert (row(user).abandoned, row(user).resigned) == (1, 0)
    assert rows(user) == oracle(user)
