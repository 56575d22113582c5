"""Move the logs of games finished more than N days ago to the archive (games/archive.py).

python manage.py archive_finished_games --older-than-days 90              # every such game
python manage.py archive_finished_games --older-than-days 90 --limit 1000 # the oldest 1000

The same service as beat's task (``archive_finished_games``, every 10 minutes, when
``ARCHIVE_AFTER_DAYS`` is set), run by hand: after a change of the setting, or to catch up.
Idempotent and safe while the site runs: a game archived already is not taken again, and each
game is moved whole (the file written and read back, then its rows deleted in one transaction).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from games import services

# Games are taken a batch at a time (oldest finished first) until none is left or --limit.
BATCH = 500


class Command(BaseCommand):
    help = "Move the logs of games finished more than N days ago to the archive's storage."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than-days",
            type=int,
            required=True,
            help="archive the games finished more than this many days ago (0 or more)",
        )
        parser.add_argument(
            "--limit", type=int, default=None, help="archive at most this many games"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        days: int = options["older_than_days"]
        limit: int | None = options["limit"]
        if days < 0:
            raise CommandError("--older-than-days must be 0 or more")
        if limit is not None and limit < 1:
            raise CommandError("--limit must be 1 or more")
        finished_before = timezone.now() - datetime.timedelta(days=days)
        archived = events = written = examined = 0
        after = None
        while limit is None or archived < limit:
            size = BATCH if limit is None else min(BATCH, limit - archived)
            run = services.game_logs_archive(
                finished_before=finished_before, limit=size, after=after
            )
            archived, events, written = (
                archived + run.archived,
                events + run.events,
                written + run.bytes,
            )
            examined += run.examined
            # The end is a batch short of candidates, not of games archived: a game the batch
            # left (deleted meanwhile, its log not whole) would otherwise end the whole run.
            if run.examined < size:
                break
            after = run.last
        left = examined - archived
        said = f"Archived {archived} game(s): {events} event(s) moved, {written} bytes written."
        if left:
            said += (
                f" {left} game(s) left in the table (deleted meanwhile, or a log not whole: "
                "logged)."
            )
        self.stdout.write(self.style.SUCCESS(said))
