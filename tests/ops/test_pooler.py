"""The service through a real PgBouncer in transaction mode (deploy/pgbouncer/pgbouncer.ini,
Debian's pgbouncer started here): migrate, then gunicorn (the compose web command, with 40
threads so that 40 client connections meet the pooler) with ``DATABASE_POOLER=pgbouncer``,
40 players at once signing up, playing and reading their games on a pool of 4 server
connections: every answer right, no error, and never more than 4 PostgreSQL sessions.

Skipped on a laptop without PostgreSQL, Redis or pgbouncer; in CI (CI=true) it fails instead.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from django.conf import settings

from bench.pg_pair import PGBOUNCER, admin, pgbouncer
from tests.conftest import require_service
from tests.ops import native
from tests.ops.test_process_commands import HOST, Database, app_environment

pytestmark = [pytest.mark.services]

CLIENTS = 40
POOL = 4


def pooled_url(port: int, name: str) -> str:
    user = settings.DATABASES["default"]["USER"]
    return f"postgres://{user}@127.0.0.1:{port}/{name}"


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, Database]]:
    """gunicorn through PgBouncer: its base URL, PgBouncer's port, the database."""
    require_service("PostgreSQL", settings.DATABASES["default"]["ENGINE"].endswith("postgresql"))
    require_service("Redis", bool(settings.REDIS_URL))
    require_service("pgbouncer (apt-get install pgbouncer)", Path(PGBOUNCER).exists())
    base_name = str(settings.DATABASES["default"]["NAME"]).removeprefix("test_")
    database = Database(f"{base_name}_pool")
    database.create()
    server_port = int(settings.DATABASES["default"].get("PORT") or 5432)
    with ExitStack() as stack:
        stack.callback(database.drop)
        target = f"host=127.0.0.1 port={server_port} dbname={database.name}"
        port = stack.enter_context(
            pgbouncer(databases={database.name: target}, pool_size=POOL)
        ).port
        env = app_environment(pooled_url(port, database.name), tmp_path_factory.mktemp("pool"))
        assert env["DATABASE_POOLER"] == "pgbouncer"  # compose's, as the processes get it
        env.update({"THROTTLE_ANON": "100000/min", "THROTTLE_USER": "100000/min"})
        env.update({"THROTTLE_IP": "100000/min", "ACCOUNT_EMAIL_VERIFICATION": "none"})
        native.migrate(env)  # through PgBouncer too
        # Two processes of 20 threads: 40 Django connections to PgBouncer.
        command = native.web_command(workers="2", threads=str(CLIENTS // 2))
        process, web_port = stack.enter_context(native.web(command, env, HOST))
        base = f"http://127.0.0.1:{web_port}"
        yield base, port, database
        assert "Traceback" not in process.output, process.output[-5000:]


def signed_in(base: str, number: int) -> httpx.Client:
    # Each from an address of its own (compose's NUM_PROXIES=1 reads it from X-Forwarded-For):
    # sign-ups are limited per address.
    headers = {"Host": HOST, "X-Forwarded-For": f"10.0.0.{number + 1}"}
    client = httpx.Client(base_url=base, timeout=180, headers=headers)  # a loaded machine
    signup = client.post(
        "/_allauth/app/v1/auth/signup",
        json={"email": f"pool-{number}@example.com", "password": "a long password 63"},
    )
    assert signup.status_code == 200, signup.text
    client.headers["X-Session-Token"] = signup.json()["meta"]["session_token"]
    return client


def test_forty_clients_share_four_server_connections_without_an_error(
    web: tuple[str, int, Database],
) -> None:
    base, bouncer_port, database = web
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    most_sessions = 0
    start = threading.Barrier(CLIENTS + 1)
    done = threading.Event()

    def play(number: int) -> None:
        start.wait()
        try:
            client = signed_in(base, number)  # a player of its own, signing up at once
            created = client.post("/api/v1/games/", json={"seed": 1000 + number})
            statuses[created.status_code] += 1
            game = created.json()["id"]
            dealt = client.post(f"/api/v1/games/{game}/commands/", json={"type": "deal"})
            statuses[dealt.status_code] += 1
            for _ in range(3):
                read = client.get(f"/api/v1/games/{game}/")
                statuses[read.status_code] += 1
                if read.json()["version"] != 1:
                    failures.append(f"{game}: version {read.json()['version']}")
            events = client.get(f"/api/v1/games/{game}/events/export/")
            statuses[events.status_code] += 1
            exported = events.json()
            if exported["version"] != 1 or [e["seq"] for e in exported["events"]] != [1]:
                failures.append(f"{game}: export {events.text!r}")
            listed = client.get("/api/v1/games/")
            statuses[listed.status_code] += 1
        except Exception as error:  # a reset connection, a timeout: counted, not raised
            failures.append(repr(error))

    def watch() -> None:
        nonlocal most_sessions
        while not done.wait(0.2):
            rows = admin(bouncer_port, "SHOW POOLS")
            pool = next(row for row in rows if row["database"] == database.name)
            servers = sum(int(pool[k]) for k in ("sv_active", "sv_idle", "sv_used", "sv_login"))
            most_sessions = max(most_sessions, servers)

    threads = [threading.Thread(target=play, args=(n,)) for n in range(CLIENTS)]
    watcher = threading.Thread(target=watch)
    for thread in threads:
        thread.start()
    watcher.start()
    start.wait()
    for thread in threads:
        thread.join(timeout=300)
    clients = admin(bouncer_port, "SHOW CLIENTS")
    done.set()
    watcher.join()

    assert failures == []
    assert set(statuses) <= {200, 201}, statuses
    assert sum(statuses.values()) == CLIENTS * 7  # and 40 sign-ups
    # Every gunicorn thread kept its own connection to PgBouncer (CONN_MAX_AGE): many more
    # clients than the pool's server connections, which never exceeded the pool.
    ours = [row for row in clients if row["database"] == database.name]
    assert len(ours) > 2 * POOL, len(ours)
    assert 0 < most_sessions <= POOL
