"""Certify today's and tomorrow's daily deals ahead of play, quietly (`make run` calls it).

python manage.py daily_deals_prepare              # today and tomorrow
python manage.py daily_deals_prepare --ahead 3    # today and the next 3 days
python manage.py daily_deals_prepare --behind 62  # and the past 62 days (the calendar's late play)

Without beat (the embedded default) a day's deal was certified only at the day's first play, so
the daily challenge showed its difficulty band only afterwards. This certifies the days ahead
with the service beat's task calls (``daily_deals_ensure_ahead``), and, unlike ``daily_deal``,
never prints or logs a deal: only the dates. Idempotent: a certified day is only read again.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from games import services
from games.models import DAILY_LATE_DAYS


class Command(BaseCommand):
    help = "Certify today's and the next days' daily deals without showing them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--ahead", type=int, default=1, help="days after today to certify (default 1)"
        )
        parser.add_argument(
            "--behind",
            type=int,
            default=0,
            help=f"days before today to certify, for late play (0 to {DAILY_LATE_DAYS}; default 0)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["ahead"] < 0:
            raise CommandError("--ahead must be 0 or more")
        if not 0 <= options["behind"] <= DAILY_LATE_DAYS:
            raise CommandError(f"--behind must be from 0 to {DAILY_LATE_DAYS} (the late days)")
        # With LOG_LEVEL=DEBUG (and DEBUG on) Django logs every SQL statement with its
        # parameters, the deal codes inserted here among them.
        sql_log = logging.getLogger("django.db.backends")
        level = sql_log.level
        sql_log.setLevel(max(logging.INFO, level))
        try:
            deals = services.daily_deals_ensure_ahead(
                today=timezone.now().date(),
                days_ahead=options["ahead"],
                days_behind=options["behind"],
            )
        except Exception as exc:
            # Only the type: a database error's message can quote the row, deal code and all.
            raise CommandError(
                f"could not certify the daily deals ahead ({type(exc).__name__}); each day's "
                "deal is certified at its first play instead"
            ) from None
        finally:
            sql_log.setLevel(level)
        dates = ", ".join(deal.date.isoformat() for deal in deals)
        self.stdout.write(f"daily deals certified for {dates} (not shown: they stay secret)")
