"""Writes of statistics: recompute a player's rows from their games, or update them as a game ends.

The rows are a cache of what the player's finished games say (``stats.models`` has the
definitions); ``stats_recompute`` is the definition in code and ``stats_record_game_finished``
the fast path, and a test plays random games to check the two agree.

Concurrency. One player can finish two games at once (two tabs, two devices). Every write of a
player's rows first locks all of them with ``SELECT ... FOR UPDATE`` in one fixed order (by
mode, so "all" first): a second transaction waits for the first to commit, then reads the rows
as the first left them. A plain read-modify-write would lose one of the two updates; atomic
``F()`` increments alone would keep the counts but not the streak, which depends on the order
in which games finish. That order is ``(finished_at, id)``, and two racing commands may commit
in the other order than their ``finished_at`` (the time is taken before the commit): so a
finish that sorts before the last game already counted is not applied incrementally but makes
the locked transaction recompute the player's rows from the games, which it can then all see
(READ COMMITTED: each statement after the lock sees the other transaction's committed game).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Min, Q, QuerySet, Sum

from accounts.locks import account_lock
from games.models import FINISHED_STATUSES, PLAYED, Game, GameStatus
from stats.models import ALL_MODES, PlayerStats, StatsMode, stats_mode, stats_mode_expression
from stats.selectors import win_time_expression

ZERO = datetime.timedelta(0)


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What the statistics need of a finished game."""

    id: UUID
    mode: str  # the stats row (stats_mode): the game's mode, or daily_practice
    status: str
    moves: int
    undo_count: int
    hint_count: int
    started_at: datetime.datetime | None
    finished_at: datetime.datetime
    known_deal: bool = False  # begun on a deal the player had seen whole: no records (stats.models)

    @property
    def won(self) -> bool:
        return self.status == GameStatus.WON

    @property
    def win_time(self) -> datetime.timedelta:
        """From the first move or deal to the end; 0 s if the game was never started (or if
        clocks of two servers disagreed so much that the end seems to come first)."""
        return max(ZERO, self.finished_at - (self.started_at or self.finished_at))

    @property
    def clean(self) -> bool:
        return self.won and not self.known_deal and self.undo_count == 0 and self.hint_count == 0

    @property
    def order_key(self) -> tuple[datetime.datetime, UUID]:
        return (self.finished_at, self.id)


def counted_games(*, user_id: int) -> QuerySet[Game]:
    """The player's games that count as played: won, resigned, or abandoned after at least
    one move or deal (an untouched game left behind counts for nothing)."""
    return Game.objects.filter(PLAYED, owner_id=user_id)


def _lock_rows(*, user_id: int) -> dict[str, PlayerStats]:
    """The player's rows, one per mode and "all", created if missing, locked until commit.

    Locked in one fixed order (by mode) so that two transactions of one player can never each
    hold a row the other waits for.
    """
    rows = _select_for_update(user_id=user_id)
    if len(rows) < len(StatsMode.values):
        # Two first finishes may race here: the unique (user, mode) constraint keeps one row
        # each, and ignore_conflicts makes the loser's insert a no-op instead of an error (on
        # PostgreSQL it waits for the winner to commit, then finds its rows and locks them).
        missing = [mode for mode in StatsMode.values if mode not in rows]
        PlayerStats.objects.bulk_create(
            [PlayerStats(user_id=user_id, mode=mode) for mode in missing], ignore_conflicts=True
        )
        rows = _select_for_update(user_id=user_id)
    return rows


def _select_for_update(*, user_id: int) -> dict[str, PlayerStats]:
    locked = PlayerStats.objects.select_for_update().filter(user_id=user_id).order_by("mode")
    return {row.mode: row for row in locked}


def _require_transaction() -> None:
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("statistics are written inside the transaction that changes the game")


def stats_record_game_finished(*, game: Game) -> None:
    """Count a game that has just been won, resigned or abandoned, in the transaction that
    finished it (an abandoned game only if it had a move or deal: docs in stats.models).

    The game's row is read again: the caller's instance may predate the UPDATE that finished
    it. A game that is not finished is ignored; one already counted, or one that finished
    "before" the last game counted (a race), makes the player's rows be recomputed instead.
    """
    _require_transaction()
    fresh = (
        Game.objects.filter(pk=game.pk)
        .only(
            "owner_id",
            "mode",
            "ranked",
            "status",
            "moves",
            "undo_count",
            "hint_count",
            "started_at",
            "finished_at",
            "known_deal",
        )
        .first()
    )
    if fresh is None or fresh.status not in FINISHED_STATUSES or fresh.finished_at is None:
        return
    if fresh.status == GameStatus.ABANDONED and fresh.started_at is None:
        return  # left untouched: not played
    finished = FinishedGame(
        id=fresh.id,
        mode=stats_mode(mode=fresh.mode, ranked=fresh.ranked),
        status=fresh.status,
        moves=fresh.moves,
        undo_count=fresh.undo_count,
        hint_count=fresh.hint_count,
        started_at=fresh.started_at,
        finished_at=fresh.finished_at,
        known_deal=fresh.known_deal,
    )
    user_id = fresh.owner_id
    rows = _lock_rows(user_id=user_id)
    overall = rows[ALL_MODES]
    last_at, last_game = overall.last_finished_at, overall.last_finished_game
    if last_at is not None and last_game is not None and (last_at, last_game) >= finished.order_key:
        # Already counted, or it finished before the last game counted: recompute.
        _recompute_locked(user_id=user_id, rows=rows)
        return
    for stats in (overall, rows[finished.mode]):
        _count(stats, finished)
        stats.save()


def _count(stats: PlayerStats, game: FinishedGame) -> None:
    """Add one finished game, the latest by (finished_at, id), to a row (in memory). A game of
    a known deal counts as played (and won or not) and in the average time, and touches no
    record: best time, fewest moves, clean wins, streaks (stats.models)."""
    if game.won:
        stats.won += 1
        stats.total_win_time += game.win_time
    elif game.status == GameStatus.ABANDONED:
        stats.abandoned += 1
    else:
        stats.resigned += 1
    if not game.known_deal:
        _count_records(stats, game)
    stats.last_finished_at = game.finished_at
    stats.last_finished_game = game.id


def _count_records(stats: PlayerStats, game: FinishedGame) -> None:
    if not game.won:
        stats.current_streak = 0
        return
    stats.current_streak += 1
    stats.best_streak = max(stats.best_streak, stats.current_streak)
    time = game.win_time
    stats.best_time = time if stats.best_time is None else min(stats.best_time, time)
    stats.fewest_moves = (
        game.moves if stats.fewest_moves is None else min(stats.fewest_moves, game.moves)
    )
    if game.clean:
        stats.clean_wins += 1


def stats_recompute(*, user: User) -> dict[str, PlayerStats]:
    """Rebuild the player's rows from their games; returns them by mode ("all" included), or
    none if the account was closed meanwhile (its rows cannot be created again: the account
    lock makes a recomputation and a deletion of the player's data run one after the other)."""
    with transaction.atomic():
        if not account_lock(user_id=user.pk):
            return {}
        rows = _lock_rows(user_id=user.pk)
        return _recompute_locked(user_id=user.pk, rows=rows)


def _recompute_locked(*, user_id: int, rows: dict[str, PlayerStats]) -> dict[str, PlayerStats]:
    """The rows recomputed from the games: sums and minimums aggregated by the database,
    streaks from one pass over the statuses of finished games in order of finishing."""
    finished = counted_games(user_id=user_id)
    won = Q(status=GameStatus.WON)
    record = won & Q(known_deal=False)  # a game of a known deal sets no record (stats.models)
    aggregates: dict[str, Any] = {
        "won": Count("pk", filter=won),
        "resigned": Count("pk", filter=Q(status=GameStatus.RESIGNED)),
        "abandoned": Count("pk", filter=Q(status=GameStatus.ABANDONED)),
        "clean_wins": Count("pk", filter=record & Q(undo_count=0, hint_count=0)),
        "best_time": Min(win_time_expression(), filter=record),
        "fewest_moves": Min("moves", filter=record),
        "total_win_time": Sum(win_time_expression(), filter=won),
    }
    figures: dict[str, dict[str, Any]] = {
        values["row"]: dict(values)
        for values in finished.order_by()
        .annotate(row=stats_mode_expression())
        .values("row")
        .annotate(**aggregates)
    }
    figures[ALL_MODES] = finished.aggregate(**aggregates)

    streaks = {mode: _Streak() for mode in StatsMode.values}
    ordered = (
        finished.annotate(row=stats_mode_expression())
        .order_by("finished_at", "pk")
        .values_list("row", "status", "finished_at", "pk", "known_deal")
    )
    for mode, status, finished_at, game_id, known_deal in ordered.iterator(chunk_size=2000):
        assert finished_at is not None  # a finished game has its time (a check constraint)
        for key in (mode, ALL_MODES):
            streaks[key].add(
                won=status == GameStatus.WON,
                finished_at=finished_at,
                game=game_id,
                known_deal=known_deal,
            )

    for mode, stats in rows.items():
        values = figures.get(mode, {})
        streak = streaks[mode]
        stats.won = values.get("won") or 0
        stats.resigned = values.get("resigned") or 0
        stats.abandoned = values.get("abandoned") or 0
        stats.clean_wins = values.get("clean_wins") or 0
        stats.best_time = values.get("best_time")
        stats.fewest_moves = values.get("fewest_moves")
        stats.total_win_time = values.get("total_win_time") or ZERO
        stats.current_streak = streak.current
        stats.best_streak = streak.best
        stats.last_finished_at = streak.last_finished_at
        stats.last_finished_game = streak.last_game
        stats.save()
    return rows


class _Streak:
    def __init__(self) -> None:
        self.current = 0
        self.best = 0
        self.last_finished_at: datetime.datetime | None = None
        self.last_game: UUID | None = None

    def add(
        self, *, won: bool, finished_at: datetime.datetime, game: UUID, known_deal: bool = False
    ) -> None:
        if not known_deal:  # a game of a known deal neither extends nor ends a streak
            self.current = self.current + 1 if won else 0
            self.best = max(self.best, self.current)
        self.last_finished_at = finished_at
        self.last_game = game


def stats_delete(*, user: User) -> int:
    """Remove the player's rows (their games are gone or going); returns how many."""
    deleted, _ = PlayerStats.objects.filter(user=user).delete()
    return deleted


def stats_rebuild(*, users: QuerySet[User] | None = None) -> int:
    """Recompute every player who has games or statistics (or just ``users``), one short
    transaction per player so that no lock is held for long. Returns how many were rebuilt."""
    if users is None:
        users = User.objects.filter(Q(games__isnull=False) | Q(stats__isnull=False)).distinct()
    count = 0
    for user in users.order_by("pk").iterator(chunk_size=500):
        stats_recompute(user=user)
        count += 1
    return count
