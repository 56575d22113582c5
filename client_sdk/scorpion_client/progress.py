"""Models of the player's progress: achievements, monthly badges and the daily calendar
(``client.stats.achievements()``, ``client.daily.calendar()``; docs/api.md, "Achievements"
and "The daily calendar"). Never a deal: a calendar day tells results only."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorpion_client.models._fields import (
    _bool,
    _extra,
    _int,
    _list_of,
    _mapping,
    _opt_date,
    _opt_datetime,
    _opt_float,
    _opt_int,
    _opt_str,
    _str,
)


def _date(value: Any) -> dt.date:
    day = _opt_date(value)
    if day is None:
        raise TypeError("expected a date, got null")
    return day


@dataclass
class Achievement:
    """One achievement: ``earned_at`` and ``game`` (the game that earned it) are None until
    it is earned."""

    code: str
    title: str = ""
    description: str = ""
    earned: bool = False
    earned_at: dt.datetime | None = None
    game: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Achievement:
        return cls(
            code=_str(data["code"]),
            title=_opt_str(data.get("title")) or "",
            description=_opt_str(data.get("description")) or "",
            earned=_bool(data.get("earned")),
            earned_at=_opt_datetime(data.get("earned_at")),
            game=_opt_str(data.get("game")),
            extra=_extra(data, ("code", "title", "description", "earned", "earned_at", "game")),
        )


@dataclass
class Badge:
    """A month every day of which the player won (late wins count): when the win that
    completed it finished, and that game."""

    month: str
    earned_at: dt.datetime | None = None
    game: str = ""
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Badge:
        return cls(
            month=_str(data["month"]),
            earned_at=_opt_datetime(data.get("earned_at")),
            game=_opt_str(data.get("game")) or "",
            extra=_extra(data, ("month", "earned_at", "game")),
        )


@dataclass
class Achievements:
    """Every achievement (the earned ones first, oldest first) and the monthly badges."""

    achievements: list[Achievement] = field(default_factory=list)
    badges: list[Badge] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def earned(self) -> list[Achievement]:
        return [item for item in self.achievements if item.earned]

    def of_game(self, game_id: str) -> list[Achievement]:
        """The achievements a game earned (for a win moment)."""
        return [item for item in self.achievements if item.game == game_id]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Achievements:
        return cls(
            achievements=_list_of(data.get("achievements"), Achievement.from_json),
            badges=_list_of(data.get("badges"), Badge.from_json),
            extra=_extra(data, ("achievements", "badges")),
        )


@dataclass
class CalendarDay:
    """One day of the calendar: ``won`` (on the day or ``late``), ``won_on_the_day`` (a
    streak day), the fastest win's ``time`` (seconds) and ``moves``, the ranked win's
    ``rank``, and ``game`` (the fastest win, else the latest game of the day)."""

    date: dt.date
    playable: bool = False
    played: bool = False
    in_play: bool = False
    won: bool = False
    won_on_the_day: bool = False
    late: bool = False
    time: float | None = None
    moves: int | None = None
    rank: int | None = None
    game: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CalendarDay:
        flags = ("playable", "played", "in_play", "won", "won_on_the_day", "late")
        return cls(
            date=_date(data["date"]),
            **{name: _bool(data.get(name)) for name in flags},
            time=_opt_float(data.get("time")),
            moves=_opt_int(data.get("moves")),
            rank=_opt_int(data.get("rank")),
            game=_opt_str(data.get("game")),
            extra=_extra(data, ("date", *flags, "time", "moves", "rank", "game")),
        )


@dataclass
class Streaks:
    """Streak days in a row: ``current`` (up to today, or yesterday) and ``best``."""

    current: int = 0
    best: int = 0
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Streaks:
        return cls(
            current=_int(data.get("current", 0)),
            best=_int(data.get("best", 0)),
            extra=_extra(data, ("current", "best")),
        )


@dataclass
class Calendar:
    """A month (``YYYY-MM``) of the caller's dailies, their streaks, the month's badge."""

    month: str
    days: list[CalendarDay] = field(default_factory=list)
    streaks: Streaks = field(default_factory=Streaks)
    badge: Badge | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Calendar:
        badge = data.get("badge")
        return cls(
            month=_str(data["month"]),
            days=_list_of(data.get("days"), CalendarDay.from_json),
            streaks=Streaks.from_json(_mapping(data.get("streaks", {}))),
            badge=None if badge is None else Badge.from_json(_mapping(badge)),
            extra=_extra(data, ("month", "days", "streaks", "badge")),
        )
