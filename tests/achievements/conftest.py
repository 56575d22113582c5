"""Helpers for the achievements and calendar tests: the statistics tests' clock and games,
and daily games written as rows (a month of wins without playing each one out)."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from django.contrib.auth.models import User

from games.models import DailyDeal, Game
from games.variants import deal_state
from tests.api.conftest import make_player, player  # noqa: F401  (fixtures, for these tests)
from tests.stats.conftest import WON, clock  # noqa: F401  (the fixture, for these tests)

UTC = datetime.UTC
CODE = WON[0]["code"]


def at(day: datetime.date, hour: int = 12) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time(hour), tzinfo=UTC)


def daily_row(
    owner: User,
    day: datetime.date,
    *,
    begun: datetime.date | None = None,
    status: str = "won",
    ranked: bool = False,
    **fields: Any,
) -> Game:
    """A finished (or not) game of the daily of ``day``, begun at noon on ``begun`` (the day
    itself by default) and finished ten minutes later."""
    DailyDeal.objects.get_or_create(
        date=day,
        defaults={"candidate": 0, "seed": 7, "deal_code": CODE, "certificate": WON[0]["line"]},
    )
    start = at(begun or day)
    finished = status in ("won", "resigned", "abandoned")
    game = Game.objects.create(
        id=uuid.uuid4(),
        owner=owner,
        mode="daily",
        daily_date=day,
        deal_code=CODE,
        seed=7,
        state=deal_state(CODE, "scorpion").to_dict(),
        status=status,
        ranked=ranked,
        moves=51 if status == "won" else 3,
        started_at=start,
        finished_at=start + datetime.timedelta(minutes=10) if finished else None,
        **fields,
    )
    # created_at is auto_now_add: set it to the moment the game began.
    Game.objects.filter(pk=game.pk).update(created_at=start)
    game.refresh_from_db()
    return game
