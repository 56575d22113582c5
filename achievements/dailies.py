"""Reads of the daily calendar: a month of a player's daily challenges, their streak of days
won, and their monthly badges (docs/api.md, "The daily calendar").

Fair play: nothing here tells a card. A day says whether, when and how fast the player won
its daily and where their ranked win stands, never the deal: its code, seed, difficulty
measures or cards stay where ``Game.reveals_deal`` guards them (a game's own answers).

Only the player's own games count, and never a bot's (``Game.app_kind``). A day is *won* by
any win of its daily, on the day or late (a late one may be of a known deal); a *streak day*
is a day won with a game begun on that UTC day, not of a known deal (``achievements.services.
streak_day``), so a streak cannot be filled in afterwards. A month's *badge* needs every day
of the month won, late wins included: a missed day can be made up, as in Microsoft
Solitaire Collection.
"""

from __future__ import annotations

import calendar
import datetime
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.db.models import QuerySet

from accounts.models import AppKind
from achievements.services import streak_days
from games.models import PLAYED, Game, GameMode, GameStatus, daily_late_playable
from stats.selectors import daily_leaderboard


@dataclass(frozen=True, slots=True)
class CalendarDay:
    date: datetime.date
    playable: bool  # can be started now: today's, or a past day played late
    played: bool
    in_play: bool
    won: bool
    won_on_the_day: bool  # a streak day
    time: datetime.timedelta | None  # of the fastest win
    moves: int | None  # of the fastest win
    rank: int | None  # of the ranked win on the day's leaderboard
    game_id: UUID | None  # the fastest win, else the latest game of the day

    @property
    def late(self) -> bool:
        """Won, but not on the day: only by games begun after it, or of a known deal."""
        return self.won and not self.won_on_the_day


@dataclass(frozen=True, slots=True)
class Badge:
    month: str  # YYYY-MM
    earned_at: datetime.datetime  # when the win that completed the month finished
    game_id: UUID


@dataclass(frozen=True, slots=True)
class Streaks:
    current: int
    best: int


@dataclass(frozen=True, slots=True)
class CalendarMonth:
    month: str
    days: list[CalendarDay]
    streaks: Streaks
    badge: Badge | None


def _daily_games(*, user: User) -> QuerySet[Game]:
    return Game.objects.filter(owner=user, mode=GameMode.DAILY).exclude(app_kind=AppKind.BOT)


def _win_time(values: dict[str, Any]) -> datetime.timedelta:
    finished: datetime.datetime = values["finished_at"]
    return max(datetime.timedelta(0), finished - (values["started_at"] or finished))


def month_days(year: int, month: int) -> list[datetime.date]:
    last = calendar.monthrange(year, month)[1]
    return [datetime.date(year, month, day) for day in range(1, last + 1)]


_GAME_FIELDS = (
    "id",
    "daily_date",
    "status",
    "ranked",
    "moves",
    "known_deal",
    "created_at",
    "started_at",
    "finished_at",
)


def calendar_month(*, user: User, year: int, month: int, today: datetime.date) -> CalendarMonth:
    """The player's month of dailies, day by day (a day after today only says it is not
    playable), with their streaks and the month's badge if earned."""
    days = month_days(year, month)
    games = (
        _daily_games(user=user)
        .filter(daily_date__gte=days[0], daily_date__lte=min(days[-1], today))
        .order_by("created_at", "pk")
    )
    counted = set(games.filter(PLAYED).values_list("pk", flat=True))
    by_day: dict[datetime.date, list[dict[str, Any]]] = {}
    for values in games.values(*_GAME_FIELDS):
        by_day.setdefault(values["daily_date"], []).append(values)
    on_the_day = streak_days(user_id=user.pk, since=days[0], until=days[-1])
    label = f"{year:04d}-{month:02d}"
    return CalendarMonth(
        month=label,
        days=[
            _day(
                user=user,
                day=day,
                games=by_day.get(day, []),
                counted=counted,
                on_the_day=day in on_the_day,
                today=today,
            )
            for day in days
        ],
        streaks=streaks_of(user=user, today=today),
        badge=next((badge for badge in badges_of(user=user) if badge.month == label), None),
    )


def _day(
    *,
    user: User,
    day: datetime.date,
    games: list[dict[str, Any]],
    counted: set[UUID],
    on_the_day: bool,
    today: datetime.date,
) -> CalendarDay:
    wins = [values for values in games if values["status"] == GameStatus.WON]
    best = min(wins, key=lambda values: (_win_time(values), values["moves"]), default=None)
    rank = None
    if any(values["ranked"] for values in wins):
        # The leaderboard's own rule decides whether the ranked win counts (begun on the
        # day, won before the reveal, the account active): one COUNT of the better wins.
        board = daily_leaderboard(day=day, page=1, page_size=1, user=user)
        rank = board.me.rank if board.me is not None else None
    latest = games[-1]["id"] if games else None
    return CalendarDay(
        date=day,
        playable=day == today or daily_late_playable(day, today=today),
        played=any(values["id"] in counted for values in games),
        in_play=any(values["finished_at"] is None for values in games),
        won=best is not None,
        won_on_the_day=on_the_day,
        time=None if best is None else _win_time(best),
        moves=None if best is None else best["moves"],
        rank=rank,
        game_id=best["id"] if best is not None else latest,
    )


def streaks_of(*, user: User, today: datetime.date) -> Streaks:
    """The player's runs of streak days: the one still going (through today, or through
    yesterday while today's daily may still be won) and the longest."""
    days = sorted(streak_days(user_id=user.pk))
    best = run = 0
    previous: datetime.date | None = None
    for day in days:
        run = run + 1 if previous is not None and day - previous == ONE_DAY else 1
        best = max(best, run)
        previous = day
    current = run if previous is not None and today - previous <= ONE_DAY else 0
    return Streaks(current=current, best=best)


ONE_DAY = datetime.timedelta(days=1)


def badges_of(*, user: User) -> list[Badge]:
    """The player's monthly badges, oldest first: a month every day of which they won (on
    the day or late), earned when the win that completed it finished."""
    first_win: dict[datetime.date, tuple[datetime.datetime, UUID]] = {}
    wins = (
        _daily_games(user=user)
        .filter(status=GameStatus.WON)
        .order_by("finished_at", "pk")
        .values_list("daily_date", "finished_at", "id")
    )
    for day, finished_at, game_id in wins.iterator(chunk_size=2000):
        if day is not None and finished_at is not None:  # a won daily has both
            first_win.setdefault(day, (finished_at, game_id))
    months: dict[tuple[int, int], list[tuple[datetime.datetime, UUID]]] = {}
    for day, win in first_win.items():
        months.setdefault((day.year, day.month), []).append(win)
    badges = []
    for (year, month), month_wins in sorted(months.items()):
        if len(month_wins) == calendar.monthrange(year, month)[1]:
            earned_at, game_id = max(month_wins)
            badges.append(
                Badge(month=f"{year:04d}-{month:02d}", earned_at=earned_at, game_id=game_id)
            )
    return badges
