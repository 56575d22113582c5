"""`make run` certifies today's and tomorrow's daily deals ahead (daily_deals_prepare), so the
daily shows its band before anyone plays it, without ever showing a deal."""

from __future__ import annotations

import datetime
import logging
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.models import DailyDeal
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def prepare(*args: str) -> str:
    out, err = StringIO(), StringIO()
    call_command("daily_deals_prepare", *args, stdout=out, stderr=err)
    return out.getvalue() + err.getvalue()


def test_certifies_today_and_tomorrow_with_their_bands_and_never_shows_a_deal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # SQL logging on, as with DEBUG and LOG_LEVEL=DEBUG: the inserts carry the deal codes.
    sql_log = "django.db.backends"
    with caplog.at_level(logging.DEBUG, sql_log), CaptureQueriesContext(connection):
        output = prepare()
    today = timezone.now().date()
    deals = list(DailyDeal.objects.order_by("date"))
    assert [deal.date for deal in deals] == [today, today + datetime.timedelta(days=1)]
    assert all(deal.difficulty_band for deal in deals)
    assert today.isoformat() in output
    shown = output + caplog.text
    for deal in deals:
        assert deal.deal_code not in shown
        assert str(deal.seed) not in shown


def test_the_daily_shows_its_band_before_the_first_play(player: Player) -> None:
    prepare()
    daily = player.get("/api/v1/daily/").json()
    assert daily["deal_ready"] is True
    assert daily["difficulty"] in {"easy", "medium", "hard"}


def test_running_again_keeps_the_certified_deals() -> None:
    prepare("--ahead", "0")
    before = list(DailyDeal.objects.order_by("date").values_list("date", "deal_code"))
    prepare("--ahead", "1")
    after = list(DailyDeal.objects.order_by("date").values_list("date", "deal_code"))
    assert after[:1] == before
    assert len(after) == 2


def test_a_failure_names_no_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(**_: object) -> list[DailyDeal]:
        raise RuntimeError("Failing row contains (8 2 JH 4S ...)")

    monkeypatch.setattr(services, "daily_deals_ensure_ahead", fail)
    with pytest.raises(CommandError, match="RuntimeError") as raised:
        prepare()
    assert "JH" not in str(raised.value)
    with pytest.raises(CommandError, match="0 or more"):
        prepare("--ahead", "-1")


def test_make_run_certifies_after_migrating_and_serves_even_when_that_fails() -> None:
    # `make -n` prints the recipe without running it.
    recipe = subprocess.run(
        ["make", "-n", "run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    migrate, prepare_line, serve = (
        next(i for i, line in enumerate(recipe) if word in line)
        for word in ("manage.py migrate", "daily_deals_prepare", "uvicorn ")
    )
    assert migrate < prepare_line < serve
    # A failure falls through to an echo (`||`), so uvicorn still starts.
    assert "||" in "".join(recipe[prepare_line:serve])


def test_behind_certifies_the_past_days_a_player_may_play_late(player: Player) -> None:
    output = prepare("--ahead", "0", "--behind", "2")
    today = timezone.now().date()
    days = [today - datetime.timedelta(days=back) for back in (2, 1, 0)]
    assert list(DailyDeal.objects.order_by("date").values_list("date", flat=True)) == days
    assert all(deal.difficulty_band for deal in DailyDeal.objects.all())
    assert days[0].isoformat() in output
    # Played late, the day's game is the certified deal, not one certified in the request.
    late = player.new_game(mode="daily", date=days[0].isoformat())
    assert late["daily_date"] == days[0].isoformat()
    assert DailyDeal.objects.count() == 3


@pytest.mark.parametrize("behind", ["-1", "366"])
def test_behind_outside_the_late_days_is_refused(behind: str) -> None:
    with pytest.raises(CommandError, match="--behind must be from 0 to 365"):
        prepare("--behind", behind)
    assert not DailyDeal.objects.exists()
