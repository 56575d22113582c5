"""Helpers for the statistics tests: a controllable clock, and games played through the services."""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import User

from games import services
from games.engine.cards import parse_card
from games.history import Command
from games.models import DailyDeal, Game, WinnableDeal
from games.services import DealChoice
from stats.models import PlayerStats, StatsMode, stats_mode
from tests.api.conftest import DEALS, Player, sign_up

WON = DEALS["won"]
CODE = WON[0]["code"]
LINE = WON[0]["line"]
UTC = datetime.UTC

# The PlayerStats columns that the incremental update and the recompute must agree on.
STAT_FIELDS = (
    "won",
    "resigned",
    "abandoned",
    "current_streak",
    "best_streak",
    "best_time",
    "fewest_moves",
    "total_win_time",
    "clean_wins",
    "last_finished_at",
    "last_finished_game",
)
ZERO_ROW = (0, 0, 0, 0, 0, None, None, datetime.timedelta(0), 0, None, None)


class Clock:
    """``django.utils.timezone.now`` under the test's control (game times, created_at...)."""

    def __init__(self, start: datetime.datetime) -> None:
        self.now = start

    def __call__(self) -> datetime.datetime:
        return self.now

    def advance(self, **delta: float) -> datetime.datetime:
        self.now += datetime.timedelta(**delta)
        return self.now

    def set(self, moment: datetime.datetime) -> None:
        self.now = moment


@pytest.fixture
def clock() -> Iterator[Clock]:
    fake = Clock(datetime.datetime(2026, 3, 14, 12, 0, tzinfo=UTC))
    with mock.patch("django.utils.timezone.now", fake):
        yield fake


def as_command(step: dict[str, Any]) -> Command:
    if step["type"] == "move":
        return Command("move", parse_card(step["card"]), step.get("to"))
    return Command(step["type"])


def make_user(name: str) -> User:
    return User.objects.create_user(name, f"{name}@example.com", "pw")


def certified(deal: dict[str, Any], seed: int) -> dict[str, Any]:
    return {"seed": seed, "deal_code": deal["code"], "certificate": deal["line"]}


def ensure_daily_deal(day: datetime.date, deal: dict[str, Any] = WON[0]) -> None:
    DailyDeal.objects.get_or_create(date=day, defaults={"candidate": 0, **certified(deal, 7)})


def ensure_winnable_pool() -> None:
    for seed, deal in enumerate(WON, start=1):
        WinnableDeal.objects.get_or_create(seed=seed, defaults=certified(deal, seed))


def new_game(owner: User, mode: str = "seeded", deal: dict[str, Any] | None = None) -> Game:
    """A new game of ``owner``; a random or seeded one of ``deal``, by default a deal they
    have not played yet (a deal they saw again would be a known deal, which sets no record)."""
    if deal is None:
        deal = next(
            (d for d in WON if not Game.objects.filter(owner=owner, deal_code=d["code"]).exists()),
            WON[0],
        )
    if mode in ("random", "seeded"):
        choice = DealChoice(mode=mode, code=deal["code"])
    else:
        choice = DealChoice(mode=mode)
    return services.game_create(owner=owner, choice=choice)


def line_of(game: Game) -> list[dict[str, Any]]:
    """The winning line of the game's deal."""
    return next(deal["line"] for deal in WON if deal["code"] == game.deal_code)


def run(game: Game, command: Command) -> services.CommandResult:
    return services.game_execute_command(owner=game.owner, game_id=game.pk, command=command)


def step(game: Game) -> services.CommandResult:
    """Play the next step of the deal's winning line (the current line is always a prefix)."""
    game.refresh_from_db()
    return run(game, as_command(line_of(game)[game.moves]))


def win(game: Game) -> Game:
    game.refresh_from_db()
    for action in line_of(game)[game.moves :]:
        run(game, as_command(action))
    game.refresh_from_db()
    assert game.status == "won"
    return game


def resign(game: Game) -> Game:
    run(game, Command("resign"))
    game.refresh_from_db()
    assert game.status == "resigned"
    return game


def rows(user: User) -> dict[str, tuple[Any, ...]]:
    """The stored rows of a player, every mode present (a missing row reads as zeros)."""
    stored = {
        row["mode"]: tuple(row[name] for name in STAT_FIELDS)
        for row in PlayerStats.objects.filter(user=user).values("mode", *STAT_FIELDS)
    }
    return {mode: stored.get(mode, ZERO_ROW) for mode in StatsMode.values}


def oracle(user: User) -> dict[str, tuple[Any, ...]]:
    """The definitions (stats/models.py) computed the plainest way, in Python, from the games."""
    finished = sorted(
        (
            game
            for game in Game.objects.filter(owner=user, status__in=["won", "resigned", "abandoned"])
            # Abandoned untouched: not played.
            if game.status != "abandoned" or game.started_at is not None
        ),
        key=lambda game: (game.finished_at, game.id),
    )
    result: dict[str, tuple[Any, ...]] = {}
    for mode in StatsMode.values:
        chosen = [
            g for g in finished if mode == "all" or stats_mode(mode=g.mode, ranked=g.ranked) == mode
        ]
        if not chosen:
            result[mode] = ZERO_ROW
            continue
        wins = [g for g in chosen if g.status == "won"]
        assert all(g.started_at is not None for g in wins)

        def time(game: Game) -> datetime.timedelta:
            return max(datetime.timedelta(0), game.finished_at - game.started_at)  # type: ignore[operator]

        # A game of a known deal counts as played and won, and in the average time; it sets
        # no record and is skipped by streaks.
        records = [g for g in wins if not g.known_deal]
        streak = best = 0
        for game in chosen:
            if game.known_deal:
                continue
            streak = streak + 1 if game.status == "won" else 0
            best = max(best, streak)
        result[mode] = (
            len(wins),
            sum(1 for g in chosen if g.status == "resigned"),
            sum(1 for g in chosen if g.status == "abandoned"),
            streak,
            best,
            min(map(time, records), default=None),
            min((g.moves for g in records), default=None),
            sum(map(time, wins), datetime.timedelta(0)),
            sum(1 for g in records if g.undo_count == 0 and g.hint_count == 0),
            chosen[-1].finished_at,
            chosen[-1].id,
        )
    return result


def row(user: User, mode: str = "all") -> PlayerStats:
    return PlayerStats.objects.get(user=user, mode=mode)


# --- Players signed up through allauth, for the API tests ---


@pytest.fixture
def make_player(db: None) -> Callable[[], Player]:
    def make() -> Player:
        return sign_up(f"stats{next(_emails)}@example.com")

    return make


@pytest.fixture
def player(make_player: Callable[[], Player]) -> Player:
    return make_player()


_emails = itertools.count()


def daily_win(
    owner: User,
    day: datetime.date,
    *,
    seconds: float,
    moves: int = 60,
    created: datetime.datetime | None = None,
    finished: datetime.datetime | None = None,
    status: str = "won",
    mode: str = "daily",
    ranked: bool | None = None,
) -> Game:
    """A finished game written directly (the leaderboard reads only these columns): begun at
    ``created`` (noon of the day by default), won ``seconds`` after its first move, which
    came 10 s after it was begun unless ``finished`` says when it ended. A daily game is the
    ranked attempt if it is the player's first of the day (as the service decides), unless
    ``ranked`` says otherwise."""
    created = created or datetime.datetime.combine(day, datetime.time(12), tzinfo=UTC)
    finished = finished or created + datetime.timedelta(seconds=10 + seconds)
    if ranked is None:
        ranked = (
            mode == "daily"
            and not Game.objects.filter(owner=owner, daily_date=day, ranked=True).exists()
        )
    game = Game.objects.create(
        owner=owner,
        mode=mode,
        ranked=ranked,
        deal_code=CODE,
        daily_date=day if mode == "daily" else None,
        state={},
        status=status,
        moves=moves,
        started_at=finished - datetime.timedelta(seconds=seconds),
        finished_at=finished,
    )
    Game.objects.filter(pk=game.pk).update(created_at=created)
    game.refresh_from_db()
    return game
