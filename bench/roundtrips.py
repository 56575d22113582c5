"""Where a request's time goes, in one process: its SQL statements, its Redis commands and its
CPU, for the endpoints that bench/api.py loads.

Run from the repository root with the project's interpreter, against a PostgreSQL database and
a Redis database of your own (both are written to; the database is migrated first)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/scorpion_x REDIS_URL=redis://127.0.0.1:6379/9 \
        .venv/bin/python bench/roundtrips.py [--repeat 300] [--sql] [--explain]

For each endpoint it prints the number of SQL statements and Redis round trips of one request
(with ``--sql``, the statements themselves; with ``--explain``, PostgreSQL's plan of each),
and the median in-process CPU time per request over ``--repeat`` requests (Django's test
client: no HTTP server, no network, so this is the application's own cost). Settings are the
production ones (``DEBUG`` off) with the default throttle rates.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_site.settings")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "roundtrips-bench-" + "k" * 50)
os.environ.setdefault("DAILY_DEAL_SECRET", "roundtrips-bench-daily-" + "d" * 40)
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("EMAIL_URL", "consolemail://")
os.environ.setdefault("LOG_LEVEL", "ERROR")


class RedisTrace:
    """Counts the round trips to Redis (one per command, one per pipeline)."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    @contextmanager
    def capture(self) -> Iterator[list[str]]:
        import redis.connection

        original_send = redis.connection.AbstractConnection.send_packed_command
        trace = self.commands
        trace.clear()

        def send(connection: Any, command: Any, check_health: bool = True) -> None:
            parts = command if isinstance(command, list) else [command]
            first = parts[0] if parts else b""
            text = bytes(first)[:80].decode("latin-1").replace("\r\n", " ")
            trace.append(text)
            original_send(connection, command, check_health)

        redis.connection.AbstractConnection.send_packed_command = send  # type: ignore[method-assign]
        try:
            yield trace
        finally:
            redis.connection.AbstractConnection.send_packed_command = original_send  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--sql", action="store_true", help="print each request's statements")
    parser.add_argument("--explain", action="store_true", help="and PostgreSQL's plans")
    parser.add_argument(
        "--profile", metavar="N", type=int, default=0, help="cProfile: the N costliest functions"
    )
    parser.add_argument("--sort", default="tottime", help="cProfile order: tottime, cumulative")
    parser.add_argument("--only", help="only the endpoints whose name contains this")
    arguments = parser.parse_args()
    from bench.in_process import django_on_own_databases

    django_on_own_databases()
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.cached_db import SessionStore
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from games.engine.deals import deal_code_for_seed

    def new_player() -> tuple[Any, str, str]:
        """A player with a session token and a game with a move, played and undone (so that
        states/1 exists): its test client, the game, the card to move."""
        stamp = time.time_ns()
        user = User.objects.create_user(username=f"rt{stamp}", email=f"rt{stamp}@example.com")
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        client = Client(headers={"X-Session-Token": store.session_key or ""})
        seed = 1000
        while True:
            body = {"code": deal_code_for_seed(seed)}
            created = client.post("/api/v1/games/", body, content_type="application/json")
            assert created.status_code == 201, created.content
            game_id = created.json()["id"]
            moves = client.get(f"/api/v1/games/{game_id}/hints/").json()["moves"]
            if moves:
                send = command(client, game_id, moves[0]["card"])
                assert send().status_code == send().status_code == 200
                return client, game_id, moves[0]["card"]
            seed += 1_000_003

    def command(client: Any, game_id: str, card: str) -> Callable[[], Any]:
        pending_undo = [False]

        def send() -> Any:
            body = {"type": "undo"} if pending_undo[0] else {"type": "move", "card": card}
            url = f"/api/v1/games/{game_id}/commands/"
            response = client.post(url, body, content_type="application/json")
            pending_undo[0] = not pending_undo[0]
            return response

        return send

    def get(path: str) -> Callable[[Any, str, str], Callable[[], Any]]:
        return lambda client, game_id, _: lambda: client.get(path.format(game=game_id))

    # Each endpoint is timed with a player of its own, as each answers within the per-player
    # limit of the default rates (THROTTLE_USER, 1,200 a minute): one player for all of them
    # ran into it at --repeat 200. The floor: token authentication, throttles and DRF, and a
    # constant answer (GET /me/ reads the player's profile; bench/api.py has the same floor).
    endpoints: list[tuple[str, Callable[[Any, str, str], Callable[[], Any]]]] = [
        ("GET variants (floor)", get("/api/v1/variants/")),
        ("POST command (move/undo)", command),
        ("GET game", get("/api/v1/games/{game}/")),
        ("GET hints", get("/api/v1/games/{game}/hints/")),
        ("GET events", get("/api/v1/games/{game}/events/")),
        ("GET states/1", get("/api/v1/games/{game}/states/1/")),
    ]
    trace = RedisTrace()
    print(f"{'endpoint':<28}{'SQL':>5}{'Redis':>7}{'CPU ms p50':>12}{'CPU ms mean':>13}")
    for name, endpoint in endpoints:
        if arguments.only and arguments.only not in name:
            continue
        call = endpoint(*new_player())
        for _ in range(5):  # warm up
            assert call().status_code == 200
        with CaptureQueriesContext(connection) as queries, trace.capture() as redis_commands:
            response = call()
        assert response.status_code == 200, response.content
        statements = [query["sql"] for query in queries.captured_queries]
        redis_seen = list(redis_commands)
        timings = []
        for _ in range(arguments.repeat):
            started = time.process_time()
            answer = call()
            timings.append((time.process_time() - started) * 1000)
            assert answer.status_code == 200, answer.content
        print(
            f"{name:<28}{len(statements):>5}{len(redis_seen):>7}"
            f"{statistics.median(timings):>12.3f}{statistics.fmean(timings):>13.3f}"
        )
        if arguments.profile:
            profiler = cProfile.Profile(time.process_time)  # CPU, not waiting
            profiler.enable()
            for _ in range(arguments.repeat):
                call()
            profiler.disable()
            pstats.Stats(profiler).sort_stats(arguments.sort).print_stats(arguments.profile)
        if arguments.sql or arguments.explain:
            for command_text in redis_seen:
                print(f"    redis: {command_text}")
            for statement in statements:
                print(f"    sql:   {statement[:400]}")
                if arguments.explain and statement.split()[0] in {"SELECT", "UPDATE", "INSERT"}:
                    with connection.cursor() as cursor:
                        cursor.execute("BEGIN")
                        cursor.execute("EXPLAIN " + statement)
                        for (line,) in cursor.fetchall():
                            print(f"           {line}")
                        cursor.execute("ROLLBACK")


if __name__ == "__main__":
    main()
