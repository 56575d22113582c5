"""``manage.py rebuild_fair_play``: review every won ranked daily again (docs/fair-play.md)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from fairplay import services


class Command(BaseCommand):
    help = (
        "Compute the fair-play signals of every won ranked daily again, from the games' logs "
        "(after the thresholds changed). Staff's decisions to hide results are kept."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        run = services.reviews_rebuild()
        self.stdout.write(f"Reviewed {run.reviewed} ranked daily win(s).")
        if run.unreadable:
            # A non-zero exit: the operator repairs the archive and runs the rebuild again.
            ids = ", ".join(str(game_id) for game_id in run.unreadable)
            raise CommandError(
                f"{len(run.unreadable)} win(s) not reviewed again, their archived log "
                f"unreadable (their reviews are kept as they were): {ids}"
            )
