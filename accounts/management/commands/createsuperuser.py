"""``createsuperuser`` for a site where people log in by e-mail.

Django's command asks for a username, which nobody here ever types: players and staff log in
with their e-mail address. This one fills the username in from the e-mail address (as allauth
does at sign-up), so ``createsuperuser --noinput`` needs only ``DJANGO_SUPERUSER_EMAIL`` and
``DJANGO_SUPERUSER_PASSWORD``, and records the address as verified so that allauth's log-in
(which also guards /admin/) knows it.
"""

from __future__ import annotations

import os
from typing import Any

from allauth.account.models import EmailAddress
from allauth.utils import generate_unique_username
from django.contrib.auth import get_user_model
from django.contrib.auth.management.commands import createsuperuser
from django.core.management.base import CommandError


class Command(createsuperuser.Command):
    help = (
        "Create a staff superuser who logs in by e-mail. Non-interactively: "
        "DJANGO_SUPERUSER_EMAIL=... DJANGO_SUPERUSER_PASSWORD=... createsuperuser --noinput"
    )

    def handle(self, *args: Any, **options: Any) -> None:
        email = (options.get("email") or os.environ.get("DJANGO_SUPERUSER_EMAIL") or "").strip()
        username_given = options.get("username") or os.environ.get("DJANGO_SUPERUSER_USERNAME")
        if not options.get("interactive"):
            if not email:
                raise CommandError(
                    "You must use --email with --noinput (or set DJANGO_SUPERUSER_EMAIL)."
                )
            if not username_given:
                options["username"] = generate_unique_username([email, "staff"])
        super().handle(*args, **options)
        self._record_email(email=email, database=options.get("database"))

    def _record_email(self, *, email: str, database: str | None) -> None:
        if not email:
            return
        user = (
            get_user_model()
            ._default_manager.db_manager(database)
            .filter(email__iexact=email, is_superuser=True)
            .order_by("-pk")
            .first()
        )
        if user is None:
            return
        EmailAddress.objects.using(database).get_or_create(
            user=user,
            email=email.lower(),
            defaults={"verified": True, "primary": True},
        )
