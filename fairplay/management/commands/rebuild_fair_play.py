"""``manage.py rebuild_fair_play``: review every won ranked daily again (docs/fair-play.md)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from fairplay import services


class Command(BaseCommand):
    help = (
        "Compute the fair-play signals of every won ranked daily again, from the games' logs "
        "(after the thresholds changed). Staff's decisions to hide results are kept."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        count = services.reviews_rebuild()
        self.stdout.write(f"Reviewed {count} ranked daily win(s).")
