"""The SDK and the terminal client reach the daily calendar and achievements: a past day's
daily played late through ``client.daily.play(date=...)``, the month through
``client.daily.calendar()`` and ``scorpion calendar``, achievements through
``client.stats.achievements()`` and ``scorpion achievements``."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from scorpion_client import Scorpion

from games.models import DailyDeal
from tests.data import DEALS
from tests.sdk.conftest import new_email
from tests.sdk.test_cli import PASSWORD, Terminal, terminal  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db(transaction=True)
DEAL = DEALS["won"][5]


def yesterday() -> datetime.date:
    return datetime.datetime.now(datetime.UTC).date() - datetime.timedelta(days=1)


def certified(day: datetime.date, deal: dict[str, Any]) -> None:
    DailyDeal.objects.get_or_create(
        date=day,
        defaults={
            "candidate": 0,
            "seed": 11,
            "deal_code": deal["code"],
            "certificate": deal["line"],
        },
    )


def test_a_late_daily_in_the_calendar_and_its_achievements(client: Scorpion) -> None:
    day = yesterday()
    certified(day, DEAL)
    game = client.daily.play(date=day.isoformat())
    assert game.ranked is False
    for step in DEAL["line"]:
        client.games.command(game.id, step)
    month = client.daily.calendar(day.strftime("%Y-%m"))
    late = next(entry for entry in month.days if entry.date == day)
    assert (late.won, late.late, late.game) == (True, True, game.id)
    answer = client.stats.achievements()
    assert {item.code for item in answer.of_game(game.id)} >= {"first_win", "no_undo_win"}
    assert answer.badges == []


def test_the_terminal_shows_the_calendar_and_achievements(terminal: Terminal) -> None:  # noqa: F811
    status, out = terminal("signup", lines=[new_email(), PASSWORD])
    assert status == 0, out
    month = yesterday().strftime("%Y-%m")
    status, out = terminal("calendar", month)
    assert status == 0, out
    assert "Daily challenges," in out
    assert "Streak: 0 days (best 0)" in out
    status, out = terminal("achievements")
    assert status == 0, out
    assert "First win: Win a game." in out
    assert "No monthly badge yet" in out
    status, out = terminal("calendar", "2026-13")
    assert status == 1
    assert "YYYY-MM" in out
