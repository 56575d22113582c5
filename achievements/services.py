"""Writes of achievements: awarded in the transaction of the command that wins a game, or all
rebuilt from the player's games (``manage.py rebuild_achievements``).

Both go through ``achievements.rules.earned_by``, one win at a time in the order the wins
finished: the incremental path asks it about the win just finished, with what the player
holds already; the rebuild replays every win. Earned once: the unique (user, code) constraint
decides between two games finishing at once on two devices (``ignore_conflicts``: the second
insert is a no-op), so the first to commit keeps it. A rebuild running while the player wins
a game may miss what that game earns (it reads the wins before the game commits, and the game
read the rows before the rebuild replaced them): the next rebuild awards it; the command is an
operator's, run rarely.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q, QuerySet

from accounts.locks import account_lock
from accounts.models import AppKind
from achievements import rules
from achievements.models import Achievement
from games.models import Game, GameMode, GameStatus

_WIN_FIELDS = (
    "id",
    "mode",
    "variant",
    "undo_count",
    "difficulty",
    "daily_date",
    "created_at",
    "finished_at",
)


def earning_wins(*, user_id: int) -> QuerySet[Game]:
    """The player's wins that may earn an achievement: not of a known deal, not a bot's."""
    return Game.objects.filter(owner_id=user_id, status=GameStatus.WON, known_deal=False).exclude(
        app_kind=AppKind.BOT
    )


def streak_day(values: Mapping[str, Any]) -> datetime.date | None:
    """The day a win counts for in a daily streak: a daily won with a game begun on its own
    UTC day (an earning win: ``earning_wins``); None for any other win."""
    day = values["daily_date"]
    if values["mode"] != GameMode.DAILY or day is None:
        return None
    return day if values["created_at"].astimezone(datetime.UTC).date() == day else None


def streak_days(
    *, user_id: int, since: datetime.date | None = None, until: datetime.date | None = None
) -> set[datetime.date]:
    """The player's streak days (``streak_day``), between ``since`` and ``until`` if given."""
    wins = earning_wins(user_id=user_id).filter(mode=GameMode.DAILY)
    if since is not None:
        wins = wins.filter(daily_date__gte=since)
    if until is not None:
        wins = wins.filter(daily_date__lte=until)
    days = set()
    for values in wins.order_by().values("mode", "daily_date", "created_at"):
        day = streak_day(values)
        if day is not None:
            days.add(day)
    return days


def _win(values: dict[str, Any]) -> rules.Win:
    return rules.Win(
        variant=values["variant"],
        undo_count=values["undo_count"],
        difficulty=values["difficulty"],
        streak_day=streak_day(values),
    )


def achievements_record_game_finished(*, game: Game) -> list[str]:
    """Award what the game, just finished, earns: in the transaction of the command that
    finished it (so a game never finishes without its achievements, nor earns them twice).
    Returns the codes awarded. Idempotent: asked again, it finds them held."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("achievements are written inside the transaction that ends the game")
    values = earning_wins(user_id=game.owner_id).filter(pk=game.pk).values(*_WIN_FIELDS).first()
    if values is None:
        return []  # not won, a known deal or a bot's: earns nothing
    held = set(Achievement.objects.filter(user_id=game.owner_id).values_list("code", flat=True))
    wins = 0
    if rules.WINS_100 not in held:
        wins = earning_wins(user_id=game.owner_id).count()
    win = _win(values)
    streak = 0
    if win.streak_day is not None and not set(rules.STREAKS.values()) <= held:
        reach = datetime.timedelta(days=rules.LONGEST_STREAK)
        days = streak_days(
            user_id=game.owner_id, since=win.streak_day - reach, until=win.streak_day + reach
        )
        streak = rules.run_through(win.streak_day, days)
    codes = rules.earned_by(win, held=held, wins=wins, streak=streak)
    _insert(user_id=game.owner_id, codes=codes, values=values)
    return codes


def _insert(*, user_id: int, codes: Iterable[str], values: dict[str, Any]) -> None:
    Achievement.objects.bulk_create(
        [
            Achievement(
                user_id=user_id, code=code, earned_at=values["finished_at"], game_id=values["id"]
            )
            for code in codes
        ],
        ignore_conflicts=True,
    )


def achievements_recompute(*, user: User) -> list[Achievement]:
    """Rebuild the player's achievements from their games: every earning win replayed in the
    order they finished (so an achievement added to the rules is awarded to the past game
    that first earned it). Replaces the rows, under the account lock (a deletion of the
    player's data runs before or after, never between); none if the account was closed."""
    with transaction.atomic():
        if not account_lock(user_id=user.pk):
            return []
        held: dict[str, Achievement] = {}
        days: set[datetime.date] = set()
        ordered = earning_wins(user_id=user.pk).order_by("finished_at", "pk").values(*_WIN_FIELDS)
        for wins, values in enumerate(ordered.iterator(chunk_size=2000), start=1):
            win = _win(values)
            streak = 0
            if win.streak_day is not None:
                days.add(win.streak_day)
                streak = rules.run_through(win.streak_day, days)
            for code in rules.earned_by(win, held=set(held), wins=wins, streak=streak):
                held[code] = Achievement(
                    user=user, code=code, earned_at=values["finished_at"], game_id=values["id"]
                )
        Achievement.objects.filter(user=user).delete()
        return Achievement.objects.bulk_create(held.values())


def achievements_delete(*, user: User) -> int:
    """Remove the player's achievements (their games are gone or going); returns how many."""
    deleted, _ = Achievement.objects.filter(user=user).delete()
    return deleted


def achievements_rebuild(*, users: QuerySet[User] | None = None) -> int:
    """Recompute every player who has wins or achievements (or just ``users``), one short
    transaction each. Returns how many were rebuilt."""
    if users is None:
        users = User.objects.filter(
            Q(games__status=GameStatus.WON) | Q(achievements__isnull=False)
        ).distinct()
    count = 0
    for user in users.order_by("pk").iterator(chunk_size=500):
        achievements_recompute(user=user)
        count += 1
    return count
