"""The daily leaderboard: who counts for which day, ranking, the caller's own rank, cost."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Game
from stats.selectors import Leaderboard, daily_leaderboard, display_name
from tests.stats.conftest import UTC, daily_win, make_user

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 3, 14)
NEXT = DAY + datetime.timedelta(days=1)


def at(day: datetime.date, hh: int, mm: int, ss: int = 0, us: int = 0) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time(hh, mm, ss, us), tzinfo=UTC)


def board(day: datetime.date = DAY, page: int = 1, size: int = 20, **kw: User) -> Leaderboard:
    return daily_leaderboard(day=day, page=page, page_size=size, user=kw.get("user"))


def ranking(result: Leaderboard) -> list[tuple[int, int, float]]:
    return [(e.rank, e.user_id, e.time.total_seconds()) for e in result.entries]


def test_ranked_by_time_then_moves_then_who_finished_first() -> None:
    a, b, c, d, e = (make_user(name) for name in "abcde")
    noon = at(DAY, 12, 0)
    daily_win(a, DAY, seconds=100, moves=60, finished=noon)
    daily_win(b, DAY, seconds=90, moves=70)
    daily_win(c, DAY, seconds=90, moves=55)
    daily_win(d, DAY, seconds=100, moves=60, finished=noon + datetime.timedelta(seconds=1))
    daily_win(e, DAY, seconds=100, moves=60, finished=noon)  # equal to a in every way
    result = board()
    assert result.count == 5
    assert [(entry.rank, entry.user_id) for entry in result.entries] == [
        (1, c.pk),
        (2, b.pk),
        *sorted([(3, a.pk), (3, e.pk)], key=lambda pair: _game_of(pair[1])),
        (5, d.pk),
    ]


def _game_of(user_id: int) -> str:
    return str(Game.objects.get(owner_id=user_id).id)


def test_only_the_first_attempt_of_the_day_ranks() -> None:
    # Before: each player's best win of the day ranked, so a player could resign, learn the
    # deal, and win a second attempt fast.
    a, b, c = make_user("a"), make_user("b"), make_user("c")
    daily_win(a, DAY, seconds=300, moves=50)  # a's first attempt: the one that ranks
    daily_win(a, DAY, seconds=120, moves=80)  # practice, however fast
    daily_win(a, DAY, seconds=60, status="resigned")
    daily_win(b, DAY, seconds=200)
    daily_win(c, DAY, seconds=60, status="resigned")  # c's first attempt was resigned...
    daily_win(c, DAY, seconds=10)  # ...so c's win is practice and c is not on the board
    result = board(user=c)
    assert result.count == 2
    assert [(e.user_id, e.time.total_seconds(), e.moves) for e in result.entries] == [
        (b.pk, 200.0, 60),
        (a.pk, 300.0, 50),
    ]
    assert result.me is None


def test_only_wins_on_the_days_daily_deal_count() -> None:
    a = make_user("a")
    daily_win(a, DAY, seconds=60, status="resigned")
    daily_win(a, DAY, seconds=60, mode="random")
    daily_win(a, DAY, seconds=60, mode="seeded")
    daily_win(a, NEXT, seconds=60, created=at(NEXT, 1, 0))
    assert board().count == 0
    assert board(NEXT).count == 1


def test_a_win_after_midnight_counts_for_the_day_of_the_deal() -> None:
    a, b = make_user("a"), make_user("b")
    # Begun at 23:59:30 on DAY, won at 00:01 the next day: it is DAY's deal and DAY's win.
    late = daily_win(a, DAY, seconds=60, created=at(DAY, 23, 59, 30), finished=at(NEXT, 0, 1))
    # Begun just before midnight, to the microsecond.
    daily_win(b, DAY, seconds=30, created=at(DAY, 23, 59, 59, 999_999), finished=at(NEXT, 0, 2))
    assert late.finished_at is not None
    assert late.finished_at.date() == NEXT
    assert {e.user_id for e in board(DAY).entries} == {a.pk, b.pk}
    assert board(NEXT).count == 0


def test_a_win_after_the_deal_is_shown_does_not_count() -> None:
    # The deal of DAY is shown from 00:00 UTC two days later; a ranked attempt won after that
    # could have been played from the published deal.
    a, b = make_user("a"), make_user("b")
    after = DAY + datetime.timedelta(days=2)
    daily_win(a, DAY, seconds=30, created=at(DAY, 23, 0), finished=at(after, 0, 0))
    daily_win(b, DAY, seconds=30, created=at(DAY, 23, 0), finished=at(NEXT, 23, 59, 59, 999_999))
    assert {e.user_id for e in board(DAY).entries} == {b.pk}


def test_a_game_begun_at_midnight_belongs_to_the_new_day() -> None:
    a = make_user("a")
    daily_win(a, NEXT, seconds=60, created=at(NEXT, 0, 0))
    assert board(NEXT).count == 1
    assert board(DAY).count == 0


def test_a_restart_of_an_old_daily_deal_does_not_count() -> None:
    """Restarting DAY's deal the next day keeps its daily_date, but by then the deal has been
    shown (a game reveals its deal when it ends): it counts for no day's leaderboard."""
    a = make_user("a")
    daily_win(a, DAY, seconds=60, created=at(NEXT, 9, 0), ranked=False)
    assert board(DAY).count == 0
    assert board(NEXT).count == 0


def test_the_callers_rank_even_outside_the_page() -> None:
    players = [make_user(f"p{i:02}") for i in range(25)]
    for i, user in enumerate(players):
        daily_win(user, DAY, seconds=100 + i)
    me = players[16]
    first = board(page=1, size=10, user=me)
    assert first.count == 25
    assert [e.rank for e in first.entries] == list(range(1, 11))
    assert me.pk not in {e.user_id for e in first.entries}
    assert first.me is not None
    assert (first.me.rank, first.me.time.total_seconds()) == (17, 116.0)
    second = board(page=2, size=10, user=me)
    assert [e.rank for e in second.entries] == list(range(11, 21))
    assert next(e for e in second.entries if e.user_id == me.pk).rank == 17
    third = board(page=3, size=10, user=me)
    assert [e.rank for e in third.entries] == [21, 22, 23, 24, 25]
    assert not third.has_next
    assert third.has_previous


def test_the_callers_rank_is_shared_on_a_tie_and_absent_without_a_win() -> None:
    a, b, c = make_user("a"), make_user("b"), make_user("c")
    noon = at(DAY, 12, 0)
    daily_win(a, DAY, seconds=50)
    daily_win(b, DAY, seconds=80, finished=noon)
    daily_win(c, DAY, seconds=80, finished=noon)
    by_rank = {e.user_id: e.rank for e in board().entries}
    assert by_rank == {a.pk: 1, b.pk: 2, c.pk: 2}
    me = board(user=c).me
    assert me is not None
    assert me.rank == 2
    assert board(user=make_user("d")).me is None


def test_a_page_costs_the_same_queries_however_many_players_won() -> None:
    few = [make_user(f"f{i}") for i in range(3)]
    for i, user in enumerate(few):
        daily_win(user, DAY, seconds=10 + i)
    with CaptureQueriesContext(connection) as small:
        board(user=few[-1])
    many = [make_user(f"m{i}") for i in range(40)]
    for i, user in enumerate(many):
        daily_win(user, DAY, seconds=100 + i)
        daily_win(user, DAY, seconds=200 + i)
    with CaptureQueriesContext(connection) as large:
        result = board(size=5, page=3, user=many[-1])
    assert len(large.captured_queries) == len(small.captured_queries) <= 4
    assert result.me is not None
    assert result.me.rank == 43
    assert [e.rank for e in result.entries] == [11, 12, 13, 14, 15]


def test_display_names_reveal_no_email() -> None:
    user = make_user("margaret.hamilton")
    name = display_name(user_id=user.pk, email=user.email)
    assert "@" not in name
    assert "margaret" not in name.lower()
    assert "example" not in name
    assert name.startswith("M***#")
    assert name == display_name(user_id=user.pk, email=user.email)
    other = make_user("mary")
    assert display_name(user_id=other.pk, email=other.email) != name
