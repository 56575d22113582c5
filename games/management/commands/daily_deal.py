"""Inspect, certify or regenerate the daily deal of a date.

python manage.py daily_deal                      # today's deal (certified now if missing)
python manage.py daily_deal --date 2026-12-24    # that day's deal
python manage.py daily_deal --ahead 7            # make sure today + 7 days are certified
python manage.py daily_deal --date 2026-12-24 --regenerate   # future days only

--regenerate and --ahead act on different days (one future day; today and the days after
it, which are certified, never regenerated): together they are refused, as is --date with
--ahead, rather than one of them being silently ignored.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from games import services
from games.models import DailyDeal


def _date(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text!r} is not a date (YYYY-MM-DD)") from None


class Command(BaseCommand):
    help = "Inspect, certify or regenerate a day's daily-challenge deal."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--date", type=_date, help="UTC date, YYYY-MM-DD (default: today)")
        parser.add_argument("--ahead", type=int, help="certify today and this many days ahead")
        parser.add_argument(
            "--regenerate",
            action="store_true",
            help="give a future day (--date) another deal; not with --ahead",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        today = timezone.now().date()
        if options["ahead"] is not None and options["regenerate"]:
            raise CommandError(
                "--regenerate works on one future day (--date YYYY-MM-DD), not with --ahead: "
                "--ahead only certifies the days that have no deal yet"
            )
        if options["ahead"] is not None and options["date"] is not None:
            raise CommandError("--ahead counts from today: it cannot be combined with --date")
        if options["ahead"] is not None:
            if options["ahead"] < 0:
                raise CommandError("--ahead must be 0 or more")
            for deal in services.daily_deals_ensure_ahead(today=today, days_ahead=options["ahead"]):
                self._show(deal)
            return
        day = options["date"] or today
        try:
            if options["regenerate"]:
                deal = services.daily_deal_regenerate(day=day, today=today)
            else:
                deal = services.daily_deal_ensure(day=day)
        except services.CertificationError as exc:
            raise CommandError(str(exc)) from exc
        self._show(deal)

    def _show(self, deal: DailyDeal) -> None:
        self.stdout.write(
            f"{deal.date}  seed {deal.seed} (generation {deal.generation}, "
            f"candidate {deal.candidate})  "
            f"certified in {deal.solver_nodes} nodes, {deal.solver_seconds:.2f} s, "
            f"winning line of {len(deal.certificate)} actions\n  {deal.deal_code}"
        )
