"""Delete the archive files whose game is gone (games/services/archiving.py).

python manage.py archive_sweep_orphans --dry-run                # list them, delete nothing
python manage.py archive_sweep_orphans --older-than-hours 24    # delete those a day old

A player's data deleted takes their archive files with it once the deletion commits; a storage
failing at that moment leaves the files (logged), which this finds and deletes, so that an
erased player's log does not outlive them. A file of a game that still exists stays (one left
by a stopped run is reused by the next), and so do files younger than the grace period.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from games import services


class Command(BaseCommand):
    help = "Delete the archive files whose game is gone (a day old or more)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than-hours",
            type=int,
            default=24,
            help="only files written more than this many hours ago (1 or more; default 24)",
        )
        parser.add_argument("--dry-run", action="store_true", help="list them, delete nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        hours: int = options["older_than_hours"]
        if hours < 1:
            raise CommandError("--older-than-hours must be 1 or more")
        sweep = services.archive_orphans_delete(
            written_before=timezone.now() - datetime.timedelta(hours=hours),
            dry_run=options["dry_run"],
        )
        for name in sweep.orphans:
            self.stdout.write(name)
        verb = "would delete" if options["dry_run"] else "deleted"
        self.stdout.write(
            f"{verb} {len(sweep.orphans)} orphan file(s); left {sweep.kept_recent} younger than "
            f"{hours} h and {sweep.undated} the storage cannot date"
        )
