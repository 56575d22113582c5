"""The daily challenge (``client.daily``): today's standing, an attempt, the leaderboards.

This file is generated from ``_async_daily.py`` by ``scripts/unasync.py``.
"""

# Generated from its _async twin by client_sdk/scripts/unasync.py: do not edit, edit that
# one and run `make unasync` (`make test` checks that the two agree).

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import TYPE_CHECKING

from scorpion_client._sync_games import GameHandle
from scorpion_client._core import Ops
from scorpion_client.models import Daily, Leaderboard, LeaderboardEntry
from scorpion_client.progress import Calendar

if TYPE_CHECKING:
    from scorpion_client._sync import Scorpion


class DailyResource:
    """The daily challenge: one deal a day (UTC), the same for every player."""

    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def today(self) -> Daily:
        """The caller's standing on today's challenge."""
        return self._client.request(Ops.daily_today())

    def play(self, date: str | None = None) -> GameHandle:
        """A new attempt at today's challenge: the first of the day ranks, any later one is
        practice (``ranked`` says which). ``date`` (``YYYY-MM-DD``): a past day's, played
        late (practice, never ranked)."""
        return self._client.games.create(mode="daily", date=date)

    def calendar(self, month: str | None = None) -> Calendar:
        """A month (``YYYY-MM``, default this UTC month) of the caller's dailies: each day's
        result, the streaks of days won, the month's badge. Never a deal."""
        month = month or dt.datetime.now(dt.UTC).strftime("%Y-%m")
        return self._client.request(Ops.calendar(month))

    def leaderboard(
        self, date: str | None = None, *, page: int | None = None, page_size: int | None = None
    ) -> Leaderboard:
        """One page of a day's wins, fastest first (``date``: ``YYYY-MM-DD``, default today)."""
        day = date or (self.today()).date.isoformat()
        spec = Ops.daily_leaderboard(day, page=page, page_size=page_size)
        return self._client.request(spec)

    def iter_leaderboard(
        self, date: str | None = None, *, page_size: int | None = None
    ) -> Iterator[LeaderboardEntry]:
        day = date or (self.today()).date.isoformat()
        spec = Ops.daily_leaderboard(day, page_size=page_size)
        for result in self._client.iter_pages(spec):
            for entry in result.results:
                yield entry
