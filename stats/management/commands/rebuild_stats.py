"""``manage.py rebuild_stats [--user EMAIL ...]``: recompute statistics from the games."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import QuerySet

from stats import services


class Command(BaseCommand):
    """Also the base of ``rebuild_achievements``: ``rebuild`` and ``what`` say what it does."""

    what = "statistics"
    help = (
        "Recompute players' statistics from their games: everyone who has games or "
        "statistics, or only the players given with --user. Safe while the site runs."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--user",
            action="append",
            default=[],
            metavar="EMAIL",
            help="Only this player (by e-mail, case-insensitive); may be repeated.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        emails: list[str] = options["user"]
        users = None
        if emails:
            users = User.objects.none()
            for email in emails:
                matched = User.objects.filter(email__iexact=email)
                if not matched.exists():
                    raise CommandError(f"no user with the e-mail {email!r}")
                users = users | matched
        count = self.rebuild(users)
        self.stdout.write(self.style.SUCCESS(f"Rebuilt the {self.what} of {count} player(s)."))

    def rebuild(self, users: QuerySet[User] | None) -> int:
        return services.stats_rebuild(users=users)
