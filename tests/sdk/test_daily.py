"""The daily challenge, its leaderboard and the statistics through the SDK."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from scorpion_client import GameHandle, Scorpion, ValidationError

from games.models import DailyDeal

pytestmark = pytest.mark.django_db(transaction=True)


def play_certificate(game: GameHandle) -> None:
    """Win today's deal with the solver's certificate (which the test reads from the database:
    the API never tells a player how to win)."""
    assert game.daily_date is not None
    deal = DailyDeal.objects.get(date=game.daily_date)
    for command in deal.certificate:
        if command["type"] == "deal":
            game.deal()
        else:
            game.move(command["card"], to=command["to"])


def test_daily_win_leaderboard_and_stats(make_client: Callable[..., Scorpion]) -> None:
    winner, other = make_client(), make_client()
    before = winner.daily.today()
    assert (before.game, before.solved, before.attempts) == (None, False, 0)

    game = winner.daily.play()
    assert game.mode == "daily"
    assert game.daily_date == before.date
    assert game.code is None  # hidden information while the game is on
    assert game.ranked is True
    assert not game.is_practice
    assert other.games.create(mode="daily").columns == game.columns  # the same deal for all

    play_certificate(game)
    assert game.is_won
    assert game.code is None  # still secret: the day (and the next) are not over

    today = winner.daily.today()
    assert (today.game, today.status, today.solved, today.attempts) == (game.id, "won", True, 1)
    assert (today.ranked_game, today.ranked_status) == (game.id, "won")

    board = winner.daily.leaderboard()  # today's, by default
    assert board.date == today.date
    assert board.count == 1
    assert board.next is None
    [entry] = board.results
    assert entry.rank == 1
    assert entry.is_me
    assert entry.moves == game.moves
    assert entry.time is not None
    assert entry.player
    assert "@" not in entry.player
    assert board.me is not None
    assert board.me.rank == 1

    seen_by_other = other.daily.leaderboard(today.date.isoformat(), page_size=1)
    assert [e.is_me for e in seen_by_other.results] == [False]
    assert seen_by_other.me is None
    assert [e.rank for e in other.daily.iter_leaderboard(page_size=1)] == [1]
    assert winner.daily.leaderboard("2001-01-01").results == []

    with pytest.raises(ValidationError) as caught:
        winner.daily.leaderboard("yesterday")
    assert "date" in caught.value.errors

    practice = winner.daily.play()
    assert practice.is_practice
    practice.resign()
    assert practice.code is None
    assert winner.daily.today().ranked_game == game.id

    stats = winner.stats.get()
    assert (stats.played, stats.won, stats.win_rate) == (2, 1, 0.5)
    assert stats.daily_practice is not None
    assert (stats.daily_practice.played, stats.daily_practice.resigned) == (1, 1)
    assert stats.best_time is not None
    assert stats.fewest_moves == game.moves
    assert stats.daily is not None
    assert stats.daily.won == 1
    assert stats.modes["random"].played == 0
