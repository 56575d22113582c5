"""Reads for the staff dashboard: every figure is one aggregate query in the database.

No function here loops over rows of games, events or users: each returns the result of a
``COUNT``/``GROUP BY`` (Django's ``aggregate``, or ``values`` + ``annotate`` with ``TruncDate``
and filtered counts), so the dashboard issues the same handful of queries however many games
there are. Python only fills in the days a series has no row for (30 iterations at most).

Definitions (shown on the page too):

- A *player* is an account that is not staff. A player is *active* in a period if they created a
  game or a game of theirs changed (a command was accepted) in it: ``updated_at`` moves with
  every command, ``created_at`` covers a game created and never played.
- *Today* is the current UTC day; *this week* is the last 7 UTC days, today included.
- A game is *started* the day it was created and *won* the day it finished won.
- *Win rate* is games won over games started (as desktop solitaire counts it), all time.
- *Daily participation* of a date: players with at least one game on that date's daily deal;
  *solvers*: players who won one of them; *solve rate*: solvers over participants.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Count, Max, Q
from django.db.models.functions import TruncDate

from accounts.models import AppKind
from games.models import DailyDeal, Game, GameMode, GameStatus, WinnableDeal
from games.variants import variant_choices
from infrastructure import liveness
from infrastructure.queues import DEFAULT_QUEUE, HINTS_QUEUE

SERIES_DAYS = 30


def day_start(day: datetime.date) -> datetime.datetime:
    """Midnight UTC at the start of ``day``."""
    return datetime.datetime.combine(day, datetime.time.min, tzinfo=datetime.UTC)


def ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass(frozen=True, slots=True)
class PlayerCounts:
    total: int  # signed-up player accounts (staff and guests excluded)
    active_today: int
    active_week: int
    guests: int = 0  # guest accounts ("Play now", not signed up yet; deleted when idle)


@dataclass(frozen=True, slots=True)
class GamesDay:
    day: datetime.date
    started: int
    won: int


@dataclass(frozen=True, slots=True)
class WinRate:
    """Games started, won and resigned of one mode or one variant (``key``), all time."""

    key: str
    label: str
    started: int
    won: int
    resigned: int

    @property
    def win_rate(self) -> float | None:
        return ratio(self.won, self.started)

    @property
    def win_percent(self) -> float | None:
        return None if self.win_rate is None else 100 * self.win_rate


@dataclass(frozen=True, slots=True)
class DailyDay:
    day: datetime.date
    participants: int
    solvers: int
    games: int

    @property
    def solve_rate(self) -> float | None:
        return ratio(self.solvers, self.participants)

    @property
    def solve_percent(self) -> float | None:
        return None if self.solve_rate is None else 100 * self.solve_rate


@dataclass(frozen=True, slots=True)
class QueueStatus:
    configured: bool
    length: int | None = None  # the default queue
    hints_length: int | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class DealSupply:
    last_generated_date: datetime.date | None
    last_generated_at: datetime.datetime | None
    today_certified: bool
    future_days_certified: int
    certified_through: datetime.date | None
    pool_size: int
    pool_added_24h: int


@dataclass(frozen=True, slots=True)
class BotGames:
    """Games of bots (``Game.app_kind``: an app that plays by itself started or played them):
    counted in the figures above like any game, never ranked on a leaderboard."""

    today: int
    period: int  # in the series' days, today included


@dataclass(frozen=True, slots=True)
class Dashboard:
    now: datetime.datetime
    today: datetime.date
    players: PlayerCounts
    games_per_day: list[GamesDay]
    modes: list[WinRate]
    variants: list[WinRate]
    daily: list[DailyDay]
    queue: QueueStatus
    supply: DealSupply
    liveness: liveness.Liveness
    bots: BotGames


def player_counts(*, today: datetime.date) -> PlayerCounts:
    """Two queries: the number of player accounts (signed up, and guests apart: a guest is made
    by one tap and deleted when idle, so it is not a player yet), and the distinct owners of
    games touched today and in the last 7 days (one conditional aggregate; guests play, so
    they count there)."""
    today_start = day_start(today)
    week_start = day_start(today - datetime.timedelta(days=6))
    accounts = User.objects.filter(is_staff=False).aggregate(
        guests=Count("pk", filter=Q(profile__guest=True)),
        total=Count("pk"),
    )
    touched_today = Q(created_at__gte=today_start) | Q(updated_at__gte=today_start)
    active = Game.objects.filter(
        Q(created_at__gte=week_start) | Q(updated_at__gte=week_start), owner__is_staff=False
    ).aggregate(
        today=Count("owner", distinct=True, filter=touched_today),
        week=Count("owner", distinct=True),
    )
    return PlayerCounts(
        total=accounts["total"] - accounts["guests"],
        active_today=active["today"],
        active_week=active["week"],
        guests=accounts["guests"],
    )


def _series_days(*, today: datetime.date, days: int) -> list[datetime.date]:
    first = today - datetime.timedelta(days=days - 1)
    return [first + datetime.timedelta(days=offset) for offset in range(days)]


def _by_day(rows: Iterable[Mapping[str, Any]]) -> dict[datetime.date, int]:
    return {row["day"]: int(row["n"]) for row in rows}


def games_per_day(*, today: datetime.date, days: int = SERIES_DAYS) -> list[GamesDay]:
    """Games started (created) and won (finished won) per UTC day, oldest first: two grouped
    counts over the period."""
    start = day_start(today - datetime.timedelta(days=days - 1))
    started = _by_day(
        Game.objects.filter(created_at__gte=start)
        .annotate(day=TruncDate("created_at"))
        .values("day")
        .annotate(n=Count("pk"))
        .values("day", "n")
        .order_by()
    )
    won = _by_day(
        Game.objects.filter(status=GameStatus.WON, finished_at__gte=start)
        .annotate(day=TruncDate("finished_at"))
        .values("day")
        .annotate(n=Count("pk"))
        .values("day", "n")
        .order_by()
    )
    return [
        GamesDay(day=day, started=started.get(day, 0), won=won.get(day, 0))
        for day in _series_days(today=today, days=days)
    ]


def bot_games(*, today: datetime.date, days: int = SERIES_DAYS) -> BotGames:
    """One conditional count over the games created in the period (the created_at index)."""
    counts = Game.objects.filter(
        app_kind=AppKind.BOT, created_at__gte=day_start(today - datetime.timedelta(days=days - 1))
    ).aggregate(today=Count("pk", filter=Q(created_at__gte=day_start(today))), period=Count("pk"))
    return BotGames(today=counts["today"], period=counts["period"])


def win_rate_by_mode() -> list[WinRate]:
    """Started, won and resigned games per mode, all time: one grouped count."""
    return _win_rates("mode", [(mode.value, str(mode.label)) for mode in GameMode])


def win_rate_by_variant() -> list[WinRate]:
    """The same per variant of the Scorpion family, every variant listed, played or not."""
    return _win_rates("variant", variant_choices())


def _win_rates(field: str, choices: Sequence[tuple[str, str]]) -> list[WinRate]:
    rows = (
        Game.objects.values(field)
        .annotate(
            started=Count("pk"),
            won=Count("pk", filter=Q(status=GameStatus.WON)),
            resigned=Count("pk", filter=Q(status=GameStatus.RESIGNED)),
        )
        .order_by()
    )
    by_key = {row[field]: row for row in rows}
    rates = []
    for key, label in choices:
        row: Mapping[str, Any] = by_key.get(key, {})
        rates.append(
            WinRate(
                key=key,
                label=label,
                started=row.get("started", 0),
                won=row.get("won", 0),
                resigned=row.get("resigned", 0),
            )
        )
    return rates


def daily_participation(*, today: datetime.date, days: int = SERIES_DAYS) -> list[DailyDay]:
    """Per daily-challenge date of the period: players who played it, players who solved it
    (in their ranked first attempt, as the leaderboard counts: a practice win after a lost
    first attempt is not a solve), and games played on it. One grouped count on the
    ``daily_date`` index."""
    first = today - datetime.timedelta(days=days - 1)
    rows = (
        Game.objects.filter(mode=GameMode.DAILY, daily_date__gte=first, daily_date__lte=today)
        .values("daily_date")
        .annotate(
            participants=Count("owner", distinct=True),
            solvers=Count("owner", distinct=True, filter=Q(status=GameStatus.WON, ranked=True)),
            games=Count("pk"),
        )
        .order_by()
    )
    by_day = {row["daily_date"]: row for row in rows}
    result = []
    for day in _series_days(today=today, days=days):
        row: Mapping[str, Any] = by_day.get(day, {})
        result.append(
            DailyDay(
                day=day,
                participants=row.get("participants", 0),
                solvers=row.get("solvers", 0),
                games=row.get("games", 0),
            )
        )
    return result


def queue_status(*, redis_url: str | None) -> QueueStatus:
    """Tasks waiting in each Celery queue (``LLEN`` of the default queue and of ``hints`` on the
    broker), or why unknown."""
    if not redis_url:
        return QueueStatus(configured=False)
    import redis

    try:
        client = redis.Redis.from_url(redis_url, socket_connect_timeout=1, socket_timeout=1)
        length = client.llen(DEFAULT_QUEUE)
        hints_length = client.llen(HINTS_QUEUE)
    except redis.RedisError as exc:
        return QueueStatus(configured=True, error=exc.__class__.__name__)
    return QueueStatus(configured=True, length=int(length), hints_length=int(hints_length))


def deal_supply(*, now: datetime.datetime, today: datetime.date) -> DealSupply:
    """The daily deals certified ahead and the winnable pool: three small queries."""
    last = DailyDeal.objects.order_by("-created_at", "-date").values("date", "created_at").first()
    daily = DailyDeal.objects.aggregate(
        today=Count("pk", filter=Q(date=today)),
        future=Count("pk", filter=Q(date__gt=today)),
        through=Max("date", filter=Q(date__gte=today)),
    )
    pool = WinnableDeal.objects.aggregate(
        size=Count("pk"),
        recent=Count("pk", filter=Q(created_at__gte=now - datetime.timedelta(hours=24))),
    )
    return DealSupply(
        last_generated_date=None if last is None else last["date"],
        last_generated_at=None if last is None else last["created_at"],
        today_certified=bool(daily["today"]),
        future_days_certified=daily["future"],
        certified_through=daily["through"],
        pool_size=pool["size"],
        pool_added_24h=pool["recent"],
    )


def dashboard(*, now: datetime.datetime, days: int = SERIES_DAYS) -> Dashboard:
    """Everything the dashboard shows, in a fixed number of queries (about ten)."""
    today = now.astimezone(datetime.UTC).date()
    return Dashboard(
        now=now,
        today=today,
        players=player_counts(today=today),
        games_per_day=games_per_day(today=today, days=days),
        modes=win_rate_by_mode(),
        variants=win_rate_by_variant(),
        daily=daily_participation(today=today, days=days),
        queue=queue_status(redis_url=settings.REDIS_URL),
        supply=deal_supply(now=now, today=today),
        liveness=liveness.read(redis_url=settings.REDIS_URL, now=now),
        bots=bot_games(today=today, days=days),
    )
