"""Django in the benchmark's own process, on a PostgreSQL database and a Redis database the
caller names (``DATABASE_URL``, ``REDIS_URL``) and that the benchmark may fill: set up, and
migrated. Shared by the in-process benchmarks (roundtrips.py, player_deletion.py)."""

from __future__ import annotations

import os


def django_on_own_databases() -> None:
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        raise SystemExit("set DATABASE_URL to a PostgreSQL database of your own")
    if not os.environ.get("REDIS_URL"):
        raise SystemExit("set REDIS_URL to a Redis database of your own")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_site.settings")

    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
