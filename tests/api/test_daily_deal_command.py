"""The daily_deal management command."""

from __future__ import annotations

import datetime
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from games.models import DailyDeal

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("daily_deal", *args, stdout=out)
    return out.getvalue()


def test_shows_and_certifies_a_day() -> None:
    output = run("--date", "2031-05-01")
    deal = DailyDeal.objects.get(date=datetime.date(2031, 5, 1))
    assert deal.deal_code in output
    assert str(deal.seed) in output


def test_certifies_the_days_ahead() -> None:
    run("--ahead", "2")
    today = timezone.now().date()
    assert sorted(DailyDeal.objects.values_list("date", flat=True)) == [
        today + datetime.timedelta(days=i) for i in range(3)
    ]


def test_regenerate_refuses_today_and_bad_dates() -> None:
    with pytest.raises(CommandError, match="future"):
        run("--regenerate")
    with pytest.raises(CommandError, match="not a date"):
        run("--date", "yesterday")


@pytest.mark.parametrize(
    "args",
    [
        ("--ahead", "3", "--regenerate"),
        ("--regenerate", "--ahead", "0"),
        ("--ahead", "2", "--date", "2031-05-01", "--regenerate"),
    ],
)
def test_ahead_with_regenerate_is_refused_and_changes_nothing(args: tuple[str, ...]) -> None:
    # Before: --regenerate was silently ignored and the days were only certified.
    with pytest.raises(CommandError, match="--regenerate"):
        run(*args)
    assert not DailyDeal.objects.exists()


def test_ahead_with_a_date_is_refused() -> None:
    with pytest.raises(CommandError, match="--date"):
        run("--ahead", "2", "--date", "2031-05-01")
    assert not DailyDeal.objects.exists()


def test_regenerate_gives_a_future_day_another_deal() -> None:
    day = timezone.now().date() + datetime.timedelta(days=2)
    run("--date", day.isoformat())
    before = DailyDeal.objects.get(date=day)
    output = run("--date", day.isoformat(), "--regenerate")
    after = DailyDeal.objects.get(date=day)
    assert after.generation == before.generation + 1
    assert after.deal_code != before.deal_code
    assert after.deal_code in output
    assert "generation 1" in output
