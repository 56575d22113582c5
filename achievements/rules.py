"""Which achievements there are, and which of them a win earns: no Django, so the rule reads
the same when a game finishes (achievements.services, one win at a time) and when the command
rebuilds them (every win of the player, in the order they finished).

What earns nothing (docs/api.md, "Achievements"): a game not won, a game of a known deal (the
player had seen the deal whole: ``Game.known_deal``), and a bot's game (``Game.app_kind``): an
achievement says what the player did.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass

from games.engine.variants import VARIANTS

FIRST_WIN = "first_win"
NO_UNDO_WIN = "no_undo_win"
HARD_WIN = "hard_win"
WINS_100 = "wins_100"
DAILY_STREAK_7 = "daily_streak_7"
DAILY_STREAK_30 = "daily_streak_30"
VARIANT_PREFIX = "win_"
HUNDRED = 100
# Days of daily challenges won in a row -> the achievement (docs/api.md, "Daily streaks").
STREAKS = {7: DAILY_STREAK_7, 30: DAILY_STREAK_30}
LONGEST_STREAK = max(STREAKS)


@dataclass(frozen=True, slots=True)
class Kind:
    code: str
    title: str
    description: str


def variant_code(variant: str) -> str:
    return VARIANT_PREFIX + variant


def catalogue() -> list[Kind]:
    """Every achievement there is, in the order a player may meet them."""
    kinds = [
        Kind(FIRST_WIN, "First win", "Win a game."),
        Kind(NO_UNDO_WIN, "No going back", "Win a game without an undo."),
        Kind(HARD_WIN, "Hard-won", "Win a deal of the hard difficulty band."),
        Kind(DAILY_STREAK_7, "A week of dailies", "Win the daily challenge 7 days in a row."),
        Kind(DAILY_STREAK_30, "A month of dailies", "Win the daily challenge 30 days in a row."),
        Kind(WINS_100, "A hundred wins", "Win 100 games."),
    ]
    kinds += [
        Kind(variant_code(name), f"{variant.title} won", f"Win a game of {variant.title}.")
        for name, variant in VARIANTS.items()
    ]
    return kinds


@dataclass(frozen=True, slots=True)
class Win:
    """What the rule needs of a win that may earn something (not of a known deal, no bot's)."""

    variant: str
    undo_count: int
    difficulty: str
    # The daily's day if this is a daily won with a game begun on that day (a streak day).
    streak_day: datetime.date | None


def run_through(day: datetime.date, days: Iterable[datetime.date]) -> int:
    """How many consecutive days of ``days`` there are around ``day`` (0 if not in them)."""
    won = set(days)
    if day not in won:
        return 0
    run = 1
    for step in (-1, 1):
        other = day + datetime.timedelta(days=step)
        while other in won:
            run += 1
            other += datetime.timedelta(days=step)
    return run


def earned_by(win: Win, *, held: set[str], wins: int, streak: int) -> list[str]:
    """The codes this win earns that the player does not hold yet. ``wins``: the player's
    wins that may earn, this one included (only read while ``WINS_100`` is not held);
    ``streak``: the run of streak days through this win's day, counted with it."""
    earned = [FIRST_WIN]
    if win.undo_count == 0:
        earned.append(NO_UNDO_WIN)
    if win.difficulty == "hard":
        earned.append(HARD_WIN)
    earned.append(variant_code(win.variant))
    if wins >= HUNDRED:
        earned.append(WINS_100)
    earned += [code for length, code in STREAKS.items() if streak >= length]
    return [code for code in earned if code not in held]
