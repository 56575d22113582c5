"""``manage.py rebuild_achievements [--user EMAIL ...]``: recompute achievements from the games."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from achievements import services
from stats.management.commands import rebuild_stats


class Command(rebuild_stats.Command):
    what = "achievements"
    help = (
        "Recompute players' achievements from their games (an achievement added since is "
        "awarded to the past game that earned it): everyone who has wins or achievements, or "
        "only the players given with --user. Safe while the site runs."
    )

    def rebuild(self, users: QuerySet[User] | None) -> int:
        return services.achievements_rebuild(users=users)
