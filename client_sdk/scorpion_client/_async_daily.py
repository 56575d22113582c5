"""The daily challenge (``client.daily``): today's standing, an attempt, the leaderboards.

This module is the source of ``_sync_daily.py``, which ``scripts/unasync.py`` writes from it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from scorpion_client._async_games import AsyncGameHandle
from scorpion_client._core import Ops
from scorpion_client.models import Daily, Leaderboard, LeaderboardEntry
from scorpion_client.progress import Calendar

if TYPE_CHECKING:
    from scorpion_client._async import AsyncScorpion


class AsyncDailyResource:
    """The daily challenge: one deal a day (UTC), the same for every player."""

    def __init__(self, client: AsyncScorpion) -> None:
        self._client = client

    async def today(self) -> Daily:
        """The caller's standing on today's challenge."""
        return await self._client.request(Ops.daily_today())

    async def play(self, date: str | None = None) -> AsyncGameHandle:
        """A new attempt at today's challenge: the first of the day ranks, any later one is
        practice (``ranked`` says which). ``date`` (``YYYY-MM-DD``): a past day's, played
        late (practice, never ranked)."""
        return await self._client.games.create(mode="daily", date=date)

    async def calendar(self, month: str | None = None) -> Calendar:
        """A month (``YYYY-MM``, default this UTC month) of the caller's dailies: each day's
        result, the streaks of days won, the month's badge. Never a deal."""
        month = month or dt.datetime.now(dt.UTC).strftime("%Y-%m")
        return await self._client.request(Ops.calendar(month))

    async def leaderboard(
        self, date: str | None = None, *, page: int | None = None, page_size: int | None = None
    ) -> Leaderboard:
        """One page of a day's wins, fastest first (``date``: ``YYYY-MM-DD``, default today)."""
        day = date or (await self.today()).date.isoformat()
        spec = Ops.daily_leaderboard(day, page=page, page_size=page_size)
        return await self._client.request(spec)

    async def iter_leaderboard(
        self, date: str | None = None, *, page_size: int | None = None
    ) -> AsyncIterator[LeaderboardEntry]:
        day = date or (await self.today()).date.isoformat()
        spec = Ops.daily_leaderboard(day, page_size=page_size)
        async for result in self._client.iter_pages(spec):
            for entry in result.results:
                yield entry
