"""Deleting a big player from the admin: the confirmation page and the deletion, timed.

Run from the repository root with the project's interpreter, against a PostgreSQL database and
a Redis database of your own (both are written to; the database is migrated first)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/scorpion_x REDIS_URL=redis://127.0.0.1:6379/9 \
        .venv/bin/python bench/player_deletion.py [--games 1000] [--events 28] [--django-listing]

It makes a player with ``--games`` games of ``--events`` events each: one game played through
the services (a known deal's winning line, so its rows are real ones: projection, events,
snapshots), copied with ``bulk_create`` to the player's other games. Then, through Django's
test client signed in as a staff member (no HTTP server: the application's own time), it
times the admin's confirmation page (``GET /admin/auth/user/<id>/delete/``: counts) and the
deletion (``POST`` with a reason: ``players.services.account_delete``), and prints the
number of SQL statements of each. With ``--django-listing`` it first times what Django's own
confirmation did before (``ModelAdmin.get_deleted_objects``: every related object collected
and named), for comparison. The staff member is removed at the end.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_site.settings")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "deletion-bench-" + "k" * 50)
os.environ.setdefault("DAILY_DEAL_SECRET", "deletion-bench-daily-" + "d" * 40)
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("EMAIL_URL", "consolemail://")
os.environ.setdefault("LOG_LEVEL", "ERROR")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--events", type=int, default=28, help="events per game (at most 50)")
    parser.add_argument(
        "--django-listing", action="store_true", help="also time Django's own listing"
    )
    arguments = parser.parse_args()
    from bench.in_process import django_on_own_databases

    django_on_own_databases()
    from django.conf import settings
    from django.contrib import admin
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client, RequestFactory
    from django.test.utils import CaptureQueriesContext, override_settings
    from django.urls import reverse

    from games import services
    from games.engine.cards import parse_card
    from games.history import Command
    from games.models import Game, GameEvent, GameSnapshot
    from games.services import DealChoice
    from tests.data import DEALS

    # The admin's pages name static files; without collectstatic there is no manifest to read.
    plain = "django.contrib.staticfiles.storage.StaticFilesStorage"
    override_settings(STORAGES={**settings.STORAGES, "staticfiles": {"BACKEND": plain}}).enable()
    stamp = time.time_ns()
    player = User.objects.create_user(username=f"big{stamp}", email=f"big{stamp}@example.com")
    staff = User.objects.create_user(
        username=f"staff{stamp}", email=f"staff{stamp}@example.com", is_staff=True
    )
    staff.is_superuser = True
    staff.save()

    deal = DEALS["won"][0]
    model = services.game_create(owner=player, choice=DealChoice(mode="seeded", code=deal["code"]))
    for step in deal["line"][: arguments.events]:
        card = parse_card(step["card"]) if step["type"] == "move" else None
        command = Command(step["type"], card, step.get("to"))
        services.game_execute_command(owner=player, game_id=model.pk, command=command)
    model.refresh_from_db()
    events = list(GameEvent.objects.filter(game=model))
    snapshots = list(GameSnapshot.objects.filter(game=model))
    started = time.perf_counter()
    for _ in range(arguments.games - 1):
        copy = Game.objects.get(pk=model.pk)
        copy.pk = uuid.uuid4()
        copy.creation_key = None
        copy._state.adding = True
        copy.save(force_insert=True)
        GameEvent.objects.bulk_create(
            [
                GameEvent(
                    game=copy,
                    seq=event.seq,
                    type=event.type,
                    payload=event.payload,
                    created_at=event.created_at,
                )
                for event in events
            ]
        )
        GameSnapshot.objects.bulk_create(
            [
                GameSnapshot(game=copy, version=snapshot.version, state=snapshot.state)
                for snapshot in snapshots
            ]
        )
    games = Game.objects.filter(owner=player).count()
    rows = GameEvent.objects.filter(game__owner=player).count()
    print(f"player: {games} games, {rows} events (made in {time.perf_counter() - started:.1f} s)")

    if arguments.django_listing:
        request = RequestFactory().get("/")
        request.user = staff
        base = admin.ModelAdmin(User, admin.site)
        started = time.perf_counter()
        listed, _, _, _ = base.get_deleted_objects([player], request)
        took = time.perf_counter() - started
        print(f"Django's listing (before): {took:.2f} s, {len(str(listed)):,} characters")

    client = Client()
    client.force_login(staff)
    url = reverse("admin:auth_user_delete", args=[player.pk])
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        page = client.get(url)
        took = time.perf_counter() - started
    assert page.status_code == 200, page.status_code
    print(f"confirmation page (counts): {took * 1000:.0f} ms, {len(queries)} SQL statements")

    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        done = client.post(url, {"post": "yes", "reason": "deletion benchmark"})
        took = time.perf_counter() - started
    assert done.status_code == 302, done.status_code
    assert not Game.objects.filter(owner_id=player.pk).exists()
    print(f"deletion (POST): {took * 1000:.0f} ms, {len(queries)} SQL statements")
    staff.delete()


if __name__ == "__main__":
    main()
