"""Statistics kept incrementally as games end equal statistics recomputed from the games."""

from __future__ import annotations

import datetime
import random
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import transaction
from django.db.models import F

from games.history import Command
from games.models import Game, GameEvent
from stats import services
from stats.models import PlayerStats
from tests.stats.conftest import (
    WON,
    Clock,
    ensure_daily_deal,
    ensure_winnable_pool,
    line_of,
    make_user,
    new_game,
    oracle,
    resign,
    row,
    rows,
    run,
    step,
    win,
)

pytestmark = pytest.mark.django_db
ZERO = datetime.timedelta(0)


def assert_incremental_is_recomputed(user: User) -> None:
    incremental = rows(user)
    assert incremental == oracle(user)
    services.stats_recompute(user=user)
    assert rows(user) == incremental


# --- Random play: many sequences of create / play / undo / redo / hint / resign / win ---


class RandomPlay:
    def __init__(self, rng: random.Random, clock: Clock, users: list[User]) -> None:
        self.rng = rng
        self.clock = clock
        self.users = users
        self.open: dict[int, list[Game]] = {user.pk: [] for user in users}
        self.winnable_played: dict[int, int] = {user.pk: 0 for user in users}

    def tick(self) -> None:
        roll = self.rng.random()
        if roll < 0.15:
            return  # no time passes: ties in finished_at
        if roll < 0.3:
            # A server whose clock is behind, or a command that commits after a later one:
            # the next finish may sort before the last one counted.
            self.clock.advance(seconds=-self.rng.uniform(1, 900))
            return
        self.clock.advance(seconds=self.rng.uniform(0.001, 400))

    def create(self, user: User) -> None:
        modes = ["random", "seeded", "daily"]
        if self.winnable_played[user.pk] < len(WON):
            modes.append("winnable")
        mode = self.rng.choice(modes)
        if mode == "daily":
            ensure_daily_deal(self.clock.now.date(), self.rng.choice(WON))
        if mode == "winnable":
            self.winnable_played[user.pk] += 1
        game = new_game(user, mode, self.rng.choice(WON))
        # The games of the same kind left open are abandoned, and count if they had a move.
        still_open = Game.objects.filter(status__in=["playing", "stuck"])
        self.open[user.pk] = [g for g in self.open[user.pk] if still_open.filter(pk=g.pk).exists()]
        self.open[user.pk].append(game)
        assert rows(user) == oracle(user)

    def act(self) -> None:
        user = self.rng.choice(self.users)
        games = self.open[user.pk]
        self.tick()
        if not games or (len(games) < 3 and self.rng.random() < 0.25):
            self.create(user)
            return
        game = self.rng.choice(games)
        game.refresh_from_db()
        roll = self.rng.random()
        if roll < 0.27:
            games.remove(game)
            resign(game) if roll < 0.12 else win(game)
            # Not only in the end: after every finish, the rows say what the games say.
            assert rows(user) == oracle(user)
        elif roll < 0.37 and game.state["line"]:
            run(game, Command("undo"))
        elif roll < 0.42 and game.state["redo"]:
            run(game, Command("redo"))
        elif roll < 0.47:
            Game.objects.filter(pk=game.pk).update(hint_count=F("hint_count") + 1)
        else:
            for _ in range(self.rng.randint(1, 8)):
                game.refresh_from_db()
                if game.moves >= len(line_of(game)) - 12:
                    break
                step(game)


@pytest.mark.parametrize("seed", range(6))
def test_incremental_equals_recomputed_after_random_play(clock: Clock, seed: int) -> None:
    ensure_winnable_pool()
    users = [make_user(f"rand{seed}a"), make_user(f"rand{seed}b")]
    play = RandomPlay(random.Random(seed), clock, users)
    for _ in range(70):
        play.act()
    for user in users:
        assert_incremental_is_recomputed(user)
    finished = Game.objects.filter(owner__in=users, status__in=["won", "resigned"])
    assert finished.filter(status="won").exists()
    assert finished.filter(status="resigned").exists()


# --- Definitions, case by case ---


def test_a_win_counts_time_moves_and_clean_win(clock: Clock) -> None:
    user = make_user("ada")
    game = new_game(user)
    clock.advance(seconds=5)  # before the first move: not part of the time
    step(game)
    for _ in range(len(WON[0]["line"]) - 1):
        clock.advance(seconds=2)
        step(game)
    game.refresh_from_db()
    assert game.status == "won"
    overall, seeded = row(user), row(user, "seeded")
    for stats in (overall, seeded):
        assert stats.won == 1
        assert stats.resigned == 0
        assert stats.current_streak == stats.best_streak == 1
        assert stats.best_time == datetime.timedelta(seconds=2 * (len(WON[0]["line"]) - 1))
        assert stats.fewest_moves == len(WON[0]["line"])
        assert stats.total_win_time == stats.best_time
        assert stats.clean_wins == 1
        assert stats.last_finished_game == game.id
    assert row(user, "random").won == 0
    assert_incremental_is_recomputed(user)


def test_an_undo_or_a_hint_spoils_a_clean_win(clock: Clock) -> None:
    user = make_user("bea")
    undone = new_game(user)
    step(undone)
    run(undone, Command("undo"))
    win(undone)
    hinted = new_game(user)
    Game.objects.filter(pk=hinted.pk).update(hint_count=1)
    win(hinted)
    assert row(user).won == 2
    assert row(user).clean_wins == 0
    assert_incremental_is_recomputed(user)


def test_fewest_moves_counts_the_current_line_not_undone_moves(clock: Clock) -> None:
    user = make_user("cy")
    game = new_game(user)
    step(game)
    step(game)
    run(game, Command("undo"))
    run(game, Command("redo"))
    win(game)
    assert row(user).fewest_moves == len(WON[0]["line"])
    assert_incremental_is_recomputed(user)


def test_resigning_ends_the_streak(clock: Clock) -> None:
    user = make_user("dee")
    for outcome in ("won", "won", "resigned", "won"):
        clock.advance(minutes=1)
        game = new_game(user)
        step(game)
        win(game) if outcome == "won" else resign(game)
    stats = row(user)
    assert (stats.won, stats.resigned, stats.current_streak, stats.best_streak) == (3, 1, 1, 2)
    assert_incremental_is_recomputed(user)


def test_games_still_being_played_do_not_break_a_streak(clock: Clock) -> None:
    user = make_user("eve")
    win(new_game(user))
    left_open = new_game(user, "random")  # another kind: the seeded games leave it open
    step(left_open)
    clock.advance(minutes=1)
    win(new_game(user))
    assert row(user).current_streak == 2
    assert row(user).resigned == 0
    assert_incremental_is_recomputed(user)


def test_a_resignation_without_a_move_is_a_finished_game_without_a_time(clock: Clock) -> None:
    user = make_user("fay")
    game = resign(new_game(user))
    assert game.started_at is None
    stats = row(user)
    assert (stats.won, stats.resigned, stats.best_time, stats.fewest_moves) == (0, 1, None, None)
    assert_incremental_is_recomputed(user)


def test_streaks_follow_the_order_of_finishing_not_of_starting(clock: Clock) -> None:
    user = make_user("gus")
    first, second = new_game(user, "random"), new_game(user)
    clock.advance(minutes=1)
    win(second)
    clock.advance(minutes=1)
    resign(first)  # started first, finished last: it ends the streak
    assert (row(user).current_streak, row(user).best_streak) == (0, 1)
    assert_incremental_is_recomputed(user)

    third, fourth = new_game(user, "random"), new_game(user)
    clock.advance(minutes=1)
    resign(fourth)
    clock.advance(minutes=1)
    win(third)
    assert (row(user).current_streak, row(user).best_streak) == (1, 1)
    assert_incremental_is_recomputed(user)


def test_a_finish_that_sorts_before_the_last_one_counted_is_recomputed(clock: Clock) -> None:
    """Two commands racing: the one that finished later (by the clock) committed first."""
    user = make_user("hal")
    early, late = new_game(user, "random"), new_game(user)
    step(early)
    step(late)
    start = clock.now
    clock.set(start + datetime.timedelta(minutes=10))
    win(late)
    clock.set(start + datetime.timedelta(minutes=5))
    with mock.patch.object(services, "_recompute_locked", wraps=services._recompute_locked) as spy:
        resign(early)
    assert spy.called
    # In order of finishing: resigned (minute 5), then won (minute 10).
    assert (row(user).current_streak, row(user).best_streak) == (1, 1)
    assert row(user).last_finished_game == late.id
    assert_incremental_is_recomputed(user)


def test_ties_in_finished_at_are_ordered_by_game_id(clock: Clock) -> None:
    user = make_user("ida")
    ensure_winnable_pool()
    ensure_daily_deal(clock.now.date())
    # One game of each kind: a new game of a kind abandons the one left open.
    games = [new_game(user, mode) for mode in ("seeded", "random", "winnable", "daily")]
    for game in games:
        step(game)
    clock.advance(minutes=3)
    win(games[0])
    resign(games[1])  # the same instant as the win
    win(games[2])
    resign(games[3])
    finished = sorted(Game.objects.filter(owner=user), key=lambda g: g.id)
    assert len({g.finished_at for g in finished}) == 1
    streak = best = 0
    for game in finished:
        if game.known_deal:
            # The pool may draw a deal the player supplied in another game here: a known deal
            # is skipped by streaks (it neither extends nor ends one).
            continue
        streak = streak + 1 if game.status == "won" else 0
        best = max(best, streak)
    assert (row(user).current_streak, row(user).best_streak) == (streak, best)
    assert_incremental_is_recomputed(user)


def test_daily_games_count_in_their_mode_and_overall(clock: Clock) -> None:
    user = make_user("jo")
    ensure_daily_deal(clock.now.date())
    win(new_game(user, "daily"))
    resign(new_game(user, "random"))
    assert row(user, "daily").won == 1
    assert row(user, "random").resigned == 1
    assert (row(user).won, row(user).resigned) == (1, 1)
    assert_incremental_is_recomputed(user)


def test_players_do_not_share_statistics(clock: Clock) -> None:
    one, two = make_user("kim"), make_user("lee")
    win(new_game(one))
    resign(new_game(two))
    assert (row(one).won, row(one).resigned) == (1, 0)
    assert (row(two).won, row(two).resigned) == (0, 1)


def test_the_update_runs_in_the_commands_transaction(clock: Clock) -> None:
    """If the statistics cannot be written, the command that finished the game is undone."""
    user = make_user("max")
    game = new_game(user)
    step(game)
    with (
        mock.patch.object(services, "stats_record_game_finished", side_effect=RuntimeError),
        pytest.raises(RuntimeError),
    ):
        run(game, Command("resign"))
    game.refresh_from_db()
    assert game.status == "playing"
    assert game.finished_at is None
    assert not GameEvent.objects.filter(game=game, type="resign").exists()


@pytest.mark.django_db(transaction=True)
def test_the_update_refuses_to_run_outside_a_transaction() -> None:
    user = make_user("ned")
    game = new_game(user)
    with pytest.raises(RuntimeError, match="transaction"):
        services.stats_record_game_finished(game=game)


def test_recording_a_game_twice_counts_it_once(clock: Clock) -> None:
    user = make_user("ola")
    game = win(new_game(user))
    with transaction.atomic():
        services.stats_record_game_finished(game=game)
    assert row(user).won == 1
    assert_incremental_is_recomputed(user)


def test_a_game_not_finished_is_ignored(clock: Clock) -> None:
    user = make_user("pia")
    game = new_game(user)
    with transaction.atomic():
        services.stats_record_game_finished(game=game)
    assert not PlayerStats.objects.filter(user=user).exists()


# --- The management command ---


def test_rebuild_stats_repairs_every_player(clock: Clock) -> None:
    one, two = make_user("quin"), make_user("ray")
    win(new_game(one))
    resign(new_game(two))
    expected = {user.pk: rows(user) for user in (one, two)}
    PlayerStats.objects.update(won=7, best_streak=9, current_streak=9)
    call_command("rebuild_stats")
    assert {user.pk: rows(user) for user in (one, two)} == expected


def test_rebuild_stats_for_one_player(clock: Clock) -> None:
    one, two = make_user("sam"), make_user("tess")
    win(new_game(one))
    win(new_game(two))
    PlayerStats.objects.update(won=7)
    call_command("rebuild_stats", "--user", "SAM@example.com")
    assert row(one).won == 1
    assert row(two).won == 7


def test_rebuild_stats_names_an_unknown_player() -> None:
    with pytest.raises(CommandError, match=r"nobody@example\.com"):
        call_command("rebuild_stats", "--user", "nobody@example.com")
