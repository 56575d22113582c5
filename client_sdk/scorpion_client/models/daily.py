"""The daily challenge: the caller's standing on a day, and its leaderboard."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from scorpion_client.models._fields import (
    _bool,
    _extra,
    _mapping,
    _opt_bool,
    _opt_date,
    _opt_datetime,
    _opt_float,
    _opt_int,
    _opt_str,
)
from scorpion_client.models.games import Difficulty, GameStatus, LeaderboardHidden

# T: Page's own annotations resolve in this module too (typing.get_type_hints of a page).
from scorpion_client.models.pages import Page, T  # noqa: F401


@dataclass
class Daily:
    """Today's challenge for the caller: ``game`` is their latest attempt's id (or None),
    ``ranked_game`` their first attempt's, the only one that ranks (later ones are practice);
    ``solved``: some attempt, practice included, was won; ``ranked_available``: a new attempt
    would rank (False once the day's ranked attempt was had, even if deleted since).
    ``difficulty`` and ``difficulty_score``: the day's band and score (0-100), announced
    before play (None until the deal is certified and rated)."""

    date: dt.date
    game: str | None = None
    status: GameStatus | None = None
    ranked_game: str | None = None
    ranked_status: GameStatus | None = None
    solved: bool = False
    ranked_available: bool = True
    attempts: int | None = None
    deal_ready: bool | None = None
    difficulty: Difficulty | None = None
    difficulty_score: int | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Daily:
        date = _opt_date(data["date"])
        assert date is not None
        return cls(
            date=date,
            game=_opt_str(data.get("game")),
            status=cast("GameStatus | None", _opt_str(data.get("status"))),
            ranked_game=_opt_str(data.get("ranked_game")),
            ranked_status=cast("GameStatus | None", _opt_str(data.get("ranked_status"))),
            solved=_bool(data.get("solved")),
            ranked_available=_bool(data.get("ranked_available", True)),
            attempts=_opt_int(data.get("attempts")),
            deal_ready=_opt_bool(data.get("deal_ready")),
            difficulty=cast("Difficulty | None", _opt_str(data.get("difficulty"))),
            difficulty_score=_opt_int(data.get("difficulty_score")),
            extra=_extra(
                data,
                (
                    "date",
                    "game",
                    "status",
                    "ranked_game",
                    "ranked_status",
                    "solved",
                    "ranked_available",
                    "attempts",
                    "deal_ready",
                    "difficulty",
                    "difficulty_score",
                ),
            ),
        )


_ENTRY_KEYS = ("rank", "player", "time", "moves", "finished_at", "is_me")


@dataclass
class LeaderboardEntry:
    """One player's best win of a day: ``rank`` (equal time, moves and finish share it),
    ``player`` (a display name), ``time`` in seconds from the first move to the win."""

    rank: int | None = None
    player: str | None = None
    time: float | None = None
    moves: int | None = None
    finished_at: dt.datetime | None = None
    is_me: bool = False
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LeaderboardEntry:
        return cls(
            rank=_opt_int(data.get("rank")),
            player=_opt_str(data.get("player")),
            time=_opt_float(data.get("time")),
            moves=_opt_int(data.get("moves")),
            finished_at=_opt_datetime(data.get("finished_at")),
            is_me=_bool(data.get("is_me")),
            extra=_extra(data, _ENTRY_KEYS),
        )


@dataclass
class Leaderboard(Page[LeaderboardEntry]):
    """One page of a day's leaderboard (fastest first, then fewest moves), with ``me``: the
    caller's best win that day wherever it ranks (None without one), and ``me_hidden``: the
    caller's ranked win when staff hid it from the board, with their reason (None otherwise)."""

    date: dt.date | None = None
    me: LeaderboardEntry | None = None
    me_hidden: LeaderboardHidden | None = None

    @classmethod
    def from_json(
        cls, data: Any, parse: Callable[[Mapping[str, Any]], LeaderboardEntry] | None = None
    ) -> Leaderboard:
        page = Page.from_json(data, parse or LeaderboardEntry.from_json)
        body = data if isinstance(data, Mapping) else {}
        me = body.get("me")
        hidden = body.get("me_hidden")
        return cls(
            results=page.results,
            count=page.count,
            next=page.next,
            previous=page.previous,
            date=_opt_date(body.get("date")),
            me=LeaderboardEntry.from_json(_mapping(me)) if me is not None else None,
            me_hidden=LeaderboardHidden.from_json(_mapping(hidden)) if hidden is not None else None,
        )
