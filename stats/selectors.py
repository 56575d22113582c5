"""Reads of statistics: a player's figures, and the daily challenge's leaderboard."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db.models import (
    Count,
    DurationField,
    ExpressionWrapper,
    F,
    Min,
    Q,
    QuerySet,
    Value,
    Window,
)
from django.db.models.functions import Coalesce, Greatest, Rank
from django.utils import timezone

from accounts.models import AppKind
from accounts.names import display_name
from games.models import (
    COUNTED_ABANDON,
    PLAYED,
    DifficultyBand,
    Game,
    GameMode,
    GameStatus,
    daily_reveal_moment,
)
from games.variants import DEFAULT_VARIANT, offered_variant_names, variant_names
from stats.models import (
    ALL_MODES,
    DAILY_PRACTICE,
    PlayerStats,
    stats_mode,
    stats_mode_expression,
)

# The rows of the statistics: the game modes, and the daily challenge's practice attempts.
STAT_MODES = (*GameMode.values, DAILY_PRACTICE)


def win_time_expression() -> Greatest:
    """``finished_at - started_at`` in the database, never below 0 s (0 s for a game never
    started). The same definition as ``FinishedGame.win_time`` in the services and as
    ``elapsed_seconds`` of the game API. A duration on both databases (PostgreSQL: interval;
    SQLite: microseconds), so sums and minimums are exact."""
    return Greatest(
        ExpressionWrapper(
            F("finished_at") - Coalesce(F("started_at"), F("finished_at")),
            output_field=DurationField(),
        ),
        Value(datetime.timedelta(0)),
        output_field=DurationField(),
    )


def seconds(duration: datetime.timedelta | None) -> float | None:
    return None if duration is None else round(duration.total_seconds(), 3)


# --- A player's figures ---


@dataclass(frozen=True, slots=True)
class Figures:
    in_play: int
    won: int
    resigned: int
    abandoned: int
    current_streak: int
    best_streak: int
    best_time: datetime.timedelta | None
    fewest_moves: int | None
    total_win_time: datetime.timedelta
    clean_wins: int

    @property
    def played(self) -> int:
        """Games that count: won, resigned, or abandoned after a move (stats.models)."""
        return self.won + self.resigned + self.abandoned

    @property
    def win_rate(self) -> float | None:
        """Wins over played games; None before the first one. Never above 1: every win is
        one of the games played."""
        return round(self.won / self.played, 4) if self.played else None

    @property
    def average_win_time(self) -> datetime.timedelta | None:
        return self.total_win_time / self.won if self.won else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "played": self.played,
            "won": self.won,
            "resigned": self.resigned,
            "abandoned": self.abandoned,
            "in_play": self.in_play,
            "win_rate": self.win_rate,
            "current_streak": self.current_streak,
            "best_streak": self.best_streak,
            "best_time": seconds(self.best_time),
            "fewest_moves": self.fewest_moves,
            "average_win_time": seconds(self.average_win_time),
            "clean_wins": self.clean_wins,
        }


@dataclass(frozen=True, slots=True)
class VariantFigures:
    """A player's record at one game of the Scorpion family, every mode together. Counted
    from the games when read (no stored row): streaks are kept overall and per mode only."""

    variant: str
    in_play: int
    won: int
    resigned: int
    abandoned: int
    best_time: datetime.timedelta | None
    fewest_moves: int | None
    clean_wins: int

    @property
    def played(self) -> int:
        return self.won + self.resigned + self.abandoned

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "played": self.played,
            "won": self.won,
            "resigned": self.resigned,
            "abandoned": self.abandoned,
            "in_play": self.in_play,
            "win_rate": round(self.won / self.played, 4) if self.played else None,
            "best_time": seconds(self.best_time),
            "fewest_moves": self.fewest_moves,
            "clean_wins": self.clean_wins,
        }


@dataclass(frozen=True, slots=True)
class BandResults:
    """A player's played games on deals of one difficulty band, and their wins."""

    played: int
    won: int

    @property
    def win_rate(self) -> float | None:
        return round(self.won / self.played, 4) if self.played else None

    def to_dict(self) -> dict[str, Any]:
        return {"played": self.played, "won": self.won, "win_rate": self.win_rate}


@dataclass(frozen=True, slots=True)
class PlayerFigures:
    overall: Figures
    modes: dict[str, Figures]
    variants: list[VariantFigures]
    difficulty: dict[str, BandResults]

    def to_dict(self) -> dict[str, Any]:
        body = self.overall.to_dict()
        body["modes"] = {mode: figures.to_dict() for mode, figures in self.modes.items()}
        body["variants"] = [figures.to_dict() for figures in self.variants]
        body["difficulty"] = {band: result.to_dict() for band, result in self.difficulty.items()}
        return body


def _figures(row: PlayerStats | None, in_play: int) -> Figures:
    if row is None:
        return Figures(in_play, 0, 0, 0, 0, 0, None, None, datetime.timedelta(0), 0)
    return Figures(
        in_play=in_play,
        won=row.won,
        resigned=row.resigned,
        abandoned=row.abandoned,
        current_streak=row.current_streak,
        best_streak=row.best_streak,
        best_time=row.best_time,
        fewest_moves=row.fewest_moves,
        total_win_time=row.total_win_time,
        clean_wins=row.clean_wins,
    )


def stats_for(*, user: User) -> PlayerFigures:
    """The player's figures overall ("all" modes, the daily challenge included) and per mode.

    Two queries: the stored rows, and the games in play or stuck per mode (a GROUP BY on the
    player's open games).
    """
    rows = {row.mode: row for row in PlayerStats.objects.filter(user=user)}
    in_play = dict(
        Game.objects.filter(owner=user, status__in=(GameStatus.PLAYING, GameStatus.STUCK))
        .order_by()
        .annotate(row=stats_mode_expression())
        .values("row")
        .annotate(n=Count("pk"))
        .values_list("row", "n")
    )
    return PlayerFigures(
        overall=_figures(rows.get(ALL_MODES), sum(in_play.values())),
        modes={mode: _figures(rows.get(mode), in_play.get(mode, 0)) for mode in STAT_MODES},
        variants=variant_figures(user=user),
        difficulty=results_by_band(user=user),
    )


def variant_figures(*, user: User) -> list[VariantFigures]:
    """The player's figures per variant, in the registry's order (Scorpion first): every
    variant a new game may be in, and a variant no longer offered (``double-scorpion-3-2``)
    only where the player has games in it. One GROUP BY over the player's games (the owner's
    index), with the same definitions as the stored rows (stats.models: an abandoned game
    counts only if it was started; a win's time is ``win_time_expression``; a game of a known
    deal sets no record)."""
    won = Q(status=GameStatus.WON)
    record = won & Q(known_deal=False)
    rows: dict[str, dict[str, Any]] = {
        row["variant"]: dict(row)
        for row in Game.objects.filter(owner=user)
        .order_by()
        .values("variant")
        .annotate(
            in_play=Count("pk", filter=Q(status__in=(GameStatus.PLAYING, GameStatus.STUCK))),
            won=Count("pk", filter=won),
            resigned=Count("pk", filter=Q(status=GameStatus.RESIGNED)),
            abandoned=Count("pk", filter=COUNTED_ABANDON),
            best_time=Min(win_time_expression(), filter=record),
            fewest_moves=Min("moves", filter=record),
            clean_wins=Count("pk", filter=record & Q(undo_count=0, hint_count=0)),
        )
    }
    figures = []
    offered = set(offered_variant_names())
    for name in variant_names():
        if name not in offered and name not in rows:
            continue
        row = rows.get(name, {})
        figures.append(
            VariantFigures(
                variant=name,
                in_play=row.get("in_play", 0),
                won=row.get("won", 0),
                resigned=row.get("resigned", 0),
                abandoned=row.get("abandoned", 0),
                best_time=row.get("best_time"),
                fewest_moves=row.get("fewest_moves"),
                clean_wins=row.get("clean_wins", 0),
            )
        )
    return figures


def results_by_band(*, user: User) -> dict[str, BandResults]:
    """The player's played games (won, resigned, or abandoned after a move: as ``played``
    counts them) on certified deals, by the difficulty band each was announced in
    (``Game.difficulty``: daily and winnable games; practice attempts and restarts count, as
    they do in the modes' figures). One GROUP BY over the player's finished games."""
    rows: dict[str, tuple[int, int]] = {
        row["difficulty"]: (row["n"], row["won"])
        for row in Game.objects.filter(PLAYED, owner=user)
        .exclude(difficulty="")
        .order_by()
        .values("difficulty")
        .annotate(n=Count("pk"), won=Count("pk", filter=Q(status=GameStatus.WON)))
    }
    return {band: BandResults(*rows.get(band, (0, 0))) for band in DifficultyBand.values}


# --- The daily leaderboard ---


def day_visible(*, day: datetime.date, user: User) -> bool:
    """Whether a daily-challenge day may be shown to ``user``: today and past days to
    everyone, future days to staff only (players never learn anything about them)."""
    return day <= timezone.now().date() or user.is_staff


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    rank: int
    user_id: int
    player: str
    time: datetime.timedelta
    moves: int
    finished_at: datetime.datetime
    game_id: Any


@dataclass(frozen=True, slots=True)
class Leaderboard:
    day: datetime.date
    count: int
    page: int
    page_size: int
    entries: list[LeaderboardEntry]
    me: LeaderboardEntry | None
    # The caller's ranked win of the day that staff hid (docs/fair-play.md): when, and why.
    my_hidden: tuple[datetime.datetime, str] | None = None

    @property
    def has_next(self) -> bool:
        return self.page * self.page_size < self.count

    @property
    def has_previous(self) -> bool:
        return self.page > 1


def _day_bounds(day: datetime.date) -> tuple[datetime.datetime, datetime.datetime]:
    start = datetime.datetime.combine(day, datetime.time.min, tzinfo=datetime.UTC)
    return start, start + datetime.timedelta(days=1)


def ranking_games() -> QuerySet[Game]:
    """The games any leaderboard or public result may count, before each board's own rules:
    the games of active accounts only, and never a bot's (``Game.app_kind``: an app that plays
    by itself started or played it), nor one staff hid (``Game.leaderboard_hidden_at``,
    docs/fair-play.md). Staff deactivate a cheater's account (``is_active``
    unticked): their results leave every board at once and come back if the account is
    reactivated; nothing is deleted. Every board starts from here (tests/stats/
    test_fair_boards.py checks each one)."""
    return Game.objects.filter(owner__is_active=True, leaderboard_hidden_at__isnull=True).exclude(
        app_kind=AppKind.BOT
    )


def daily_wins(*, day: datetime.date) -> QuerySet[Game]:
    """The wins that count for a day: each player's ranked attempt (their first game of that
    day's daily deal, ``Game.ranked``), begun on that UTC day and won before the deal is shown
    to players (``daily_reveal_moment``: the end of the next day), so a game begun at 23:59
    and won after midnight counts for the day it was begun on. Later attempts of the day, new
    ones or restarts, are practice and never rank: by then the player has seen the deal.
    Only the games ``ranking_games`` lets rank."""
    start, end = _day_bounds(day)
    return ranking_games().filter(
        mode=GameMode.DAILY,
        # The daily challenge is dealt in Scorpion only (games.variants.CERTIFIED_VARIANTS),
        # so its leaderboard is Scorpion's; said here too, so it stays so.
        variant=DEFAULT_VARIANT,
        daily_date=day,
        ranked=True,
        status=GameStatus.WON,
        created_at__gte=start,
        created_at__lt=end,
        finished_at__lt=daily_reveal_moment(day),
    )


def daily_leaderboard(
    *, day: datetime.date, page: int, page_size: int, user: User | None = None
) -> Leaderboard:
    """The day's leaderboard: each player's ranked win (one at most: a unique constraint), by
    time, then moves, then who finished first; players equal on all three share a rank. Ranks
    come from a window function over those wins, so a page costs the same however many
    players won that day; the caller's own rank, wherever it is, is one COUNT of the better
    wins."""
    best = daily_wins(day=day).annotate(time=win_time_expression())
    ranked = (
        best.annotate(
            rank=Window(
                Rank(),
                order_by=[F("time").asc(), F("moves").asc(), F("finished_at").asc()],
            )
        )
        .order_by("rank", "id")
        .values("rank", *_ENTRY_FIELDS)
    )
    offset = (page - 1) * page_size
    entries = [_entry(values, values["rank"]) for values in ranked[offset : offset + page_size]]
    count = best.count()

    me: LeaderboardEntry | None = None
    if user is not None:
        mine = best.filter(owner=user).values(*_ENTRY_FIELDS)
        own = mine.first()
        if own is not None:
            better = best.filter(
                Q(time__lt=own["time"])
                | Q(time=own["time"], moves__lt=own["moves"])
                | Q(time=own["time"], moves=own["moves"], finished_at__lt=own["finished_at"])
            ).count()
            me = _entry(own, better + 1)
    my_hidden = None
    if user is not None and me is None:
        # One more query, only for a caller not on the board: their win may have been hidden.
        hidden = (
            Game.objects.filter(
                owner=user,
                mode=GameMode.DAILY,
                daily_date=day,
                ranked=True,
                status=GameStatus.WON,
                leaderboard_hidden_at__isnull=False,
            )
            .values_list("leaderboard_hidden_at", "leaderboard_hidden_reason")
            .first()
        )
        if hidden is not None and hidden[0] is not None:
            my_hidden = (hidden[0], hidden[1])
    return Leaderboard(day, count, page, page_size, entries, me, my_hidden)


_ENTRY_FIELDS = (
    "id",
    "owner_id",
    "owner__email",
    "owner__profile__display_name",
    "owner__profile__guest",
    "time",
    "moves",
    "finished_at",
)


def _entry(values: Mapping[str, Any], rank: int) -> LeaderboardEntry:
    return LeaderboardEntry(
        rank=rank,
        user_id=values["owner_id"],
        player=display_name(
            user_id=values["owner_id"],
            email=values["owner__email"],
            name=values["owner__profile__display_name"] or "",
            guest=bool(values["owner__profile__guest"]),
        ),
        time=values["time"],
        moves=values["moves"],
        finished_at=values["finished_at"],
        game_id=values["id"],
    )


# --- The result of one game (the win moment of the web client) ---


@dataclass(frozen=True, slots=True)
class GameResult:
    game: Game
    time: datetime.timedelta | None  # of a win
    previous_best_time: datetime.timedelta | None
    previous_fewest_moves: int | None
    earlier_wins: int
    current_streak: int
    best_streak: int
    daily_rank: int | None
    daily_count: int | None

    @property
    def won(self) -> bool:
        return self.game.status == GameStatus.WON

    @property
    def sets_records(self) -> bool:
        """A win that may set a record: not of a known deal (stats.models)."""
        return self.won and not self.game.known_deal

    @property
    def best_time(self) -> bool:
        """A win faster than every earlier win of its kind (the first win is one)."""
        return (
            self.sets_records
            and self.time is not None
            and (self.previous_best_time is None or self.time < self.previous_best_time)
        )

    @property
    def fewest_moves(self) -> bool:
        return self.sets_records and (
            self.previous_fewest_moves is None or self.game.moves < self.previous_fewest_moves
        )


def next_daily_at(now: datetime.datetime) -> datetime.datetime:
    """When the next daily challenge opens: the next 00:00 UTC."""
    today = now.astimezone(datetime.UTC).date()
    return datetime.datetime.combine(
        today + datetime.timedelta(days=1), datetime.time.min, tzinfo=datetime.UTC
    )


def game_result(*, game: Game) -> GameResult:
    """What the player's game meant: for a win, whether it beat their earlier wins of the same
    kind (the statistics row: ``stats_mode``, and the same variant: a Wasp win is no record
    against Scorpion wins) on time or moves, their streak now, and for a
    ranked daily win, its rank that day. Earlier means finished before it, by (finished_at, id),
    the order of the statistics."""
    row = stats_mode(mode=game.mode, ranked=game.ranked)
    time: datetime.timedelta | None = None
    previous: dict[str, Any] = {"time": None, "moves": None, "n": 0}
    if game.status == GameStatus.WON and game.finished_at is not None:
        time = max(datetime.timedelta(0), game.finished_at - (game.started_at or game.finished_at))
        earlier = (
            Game.objects.filter(owner_id=game.owner_id, status=GameStatus.WON, variant=game.variant)
            .annotate(row=stats_mode_expression())
            .filter(row=row)
            .filter(
                Q(finished_at__lt=game.finished_at)
                | Q(finished_at=game.finished_at, pk__lt=game.pk)
            )
        )
        # Records are those of earlier wins that could set one: not games of known deals.
        previous = earlier.aggregate(
            time=Min(win_time_expression(), filter=Q(known_deal=False)),
            moves=Min("moves", filter=Q(known_deal=False)),
            n=Count("pk"),
        )
    overall = PlayerStats.objects.filter(user_id=game.owner_id, mode=ALL_MODES).first()
    rank = count = None
    if game.mode == GameMode.DAILY and game.ranked and game.daily_date is not None:
        board = daily_leaderboard(day=game.daily_date, page=1, page_size=1, user=game.owner)
        count = board.count
        rank = board.me.rank if board.me is not None else None
    return GameResult(
        game=game,
        time=time,
        previous_best_time=previous["time"],
        previous_fewest_moves=previous["moves"],
        earlier_wins=previous["n"],
        current_streak=overall.current_streak if overall else 0,
        best_streak=overall.best_streak if overall else 0,
        daily_rank=rank,
        daily_count=count,
    )
