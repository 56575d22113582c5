"""Every benchmark under bench/ runs as its docstring documents it, at small sizes: a script
that no longer runs fails here, not in the hands of the next person to measure.

The engine's benchmarks are run by tests/engine/test_bench.py and the throttle's by
tests/site/test_bench_throttle.py (they also check figures); the rest run here. Those that
start a stack (gunicorn, Celery, uvicorn) need PostgreSQL and Redis, like the worker tests:
each gets a PostgreSQL database named after this test process's own (so that two pytest-xdist
workers or two CI runs never share one), dropped at the end, and this process's Redis database
where the script takes one (its other stacks start a private redis-server).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from bench.pg_pair import PGBOUNCER, postgres_bin
from tests.conftest import require_service
from tests.ops import native

ROOT = Path(__file__).resolve().parents[2]

# Run elsewhere (with their figures checked), by script.
RUN_ELSEWHERE = {
    "analysis.py": "tests/engine/test_bench.py",
    "difficulty.py": "tests/engine/test_bench.py",
    "engine.py": "tests/engine/test_bench.py",
    "hints.py": "tests/engine/test_bench.py",
    "solver.py": "tests/engine/test_bench.py",
    "throttle.py": "tests/site/test_bench_throttle.py",
}

# Script -> its arguments at small sizes ({database} and {redis_url} are this test's), and
# whether it starts a stack (PostgreSQL and Redis needed).
SMALL: dict[str, tuple[str, bool]] = {
    "chances_cost.py": ("--positions 2 --samples 5", False),
    "archive.py": ("--games 2 --events 20", True),
    "fairplay.py": ("--deals 2 --playouts 4", False),
    "api.py": (
        "--clients 2 --players-per-client 1 --seconds 1 --open-seconds 1 --rounds 1 --workers 1"
        " --worker-concurrency 1 --database {database}",
        True,
    ),
    "chances.py": (
        "--rate 1 --seconds 2 --players 2 --poll 0.5 --database {database}",
        True,
    ),
    "history.py": (
        "--depths 10,40 --samples 2 --workers 1 --worker-concurrency 1 --database {database}",
        True,
    ),
    "partition.py": (
        "--events 2000 --games 40 --appends 20 --samples 10 --database {database}",
        True,
    ),
    "player_deletion.py": ("--games 3 --events 5 --django-listing", True),
    "roundtrips.py": ("--repeat 3", True),
    "soak.py": (
        "--minutes 0.1 --players 2 --web 1 --web-workers 1 --workers 1 --followers 1"
        " --database {database}",
        True,
    ),
    "stream.py": (
        "--streams 4 --games 2 --rates 2 --seconds 1 --redis-url {redis_url} --database {database}",
        True,
    ),
}


def scripts() -> set[str]:
    """The benchmarks: the files of bench/ that run as a script."""
    return {
        path.name
        for path in (ROOT / "bench").glob("*.py")
        if 'if __name__ == "__main__":' in path.read_text()
    }


def test_every_benchmark_is_run_by_a_test() -> None:
    assert scripts() == set(SMALL) | set(RUN_ELSEWHERE)


def admin(statement: str, name: str) -> None:
    import psycopg
    from psycopg import sql

    db = settings.DATABASES["default"]
    with psycopg.connect(
        host=db.get("HOST") or "127.0.0.1",
        port=db.get("PORT") or 5432,
        user=db["USER"],
        password=db.get("PASSWORD") or None,
        dbname="postgres",
        autocommit=True,
    ) as connection:
        connection.execute(sql.SQL(statement).format(sql.Identifier(name)))


@pytest.fixture
def database(request: pytest.FixtureRequest) -> Iterator[str]:
    """A PostgreSQL database of the script's own, named after this process's test database."""
    script = request.node.callspec.params["script"].removesuffix(".py")
    base = str(settings.DATABASES["default"]["NAME"]).removeprefix("test_")
    name = f"{base}_bench_{script}"
    yield name
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        admin("DROP DATABASE IF EXISTS {} WITH (FORCE)", name)


@pytest.mark.parametrize(
    "script",
    [pytest.param(s, marks=[pytest.mark.services] if SMALL[s][1] else []) for s in sorted(SMALL)],
)
def test_the_benchmark_runs_at_a_small_size(script: str, database: str) -> None:
    arguments, stack = SMALL[script]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST_"))}
    if stack:
        db = settings.DATABASES["default"]
        require_service("PostgreSQL", db["ENGINE"].endswith("postgresql"))
        require_service("Redis", bool(settings.REDIS_URL))
        # roundtrips.py and player_deletion.py run in-process on DATABASE_URL and REDIS_URL
        # (both written to).
        admin("DROP DATABASE IF EXISTS {} WITH (FORCE)", database)
        admin("CREATE DATABASE {}", database)
        host, port = db.get("HOST") or "127.0.0.1", db.get("PORT") or 5432
        env["DATABASE_URL"] = f"postgres://{db['USER']}@{host}:{port}/{database}"
        env["REDIS_URL"] = str(settings.REDIS_URL)
    command = [
        sys.executable,
        f"bench/{script}",
        *arguments.format(database=database, redis_url=settings.REDIS_URL).split(),
    ]
    finished = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    output = finished.stdout + finished.stderr
    assert finished.returncode == 0, output[-4000:]
    assert "Traceback" not in output, output[-4000:]
    assert finished.stdout.strip()


@pytest.mark.services
def test_the_soak_runs_on_a_replica_through_pgbouncer_at_a_small_size() -> None:
    """``soak.py --full``: a primary, its replica and PgBouncer of the soak's own (nothing of
    this machine's PostgreSQL but its programs), the check passed and the figures printed."""
    require_service("PostgreSQL's programs (apt-get install postgresql)", bool(postgres_bin()))
    require_service("pgbouncer (apt-get install pgbouncer)", Path(PGBOUNCER).exists())
    require_service("Redis", bool(settings.REDIS_URL))  # redis-server, a private one
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST_"))}
    arguments = "--full --minutes 0.1 --players 1 --readers 1 --web 1 --web-workers 1"
    command = [sys.executable, "bench/soak.py", *arguments.split(), "--workers", "1"]
    finished = native.succeeds([*command, "--followers", "1", "--database", "soak_smoke"], env)
    output = finished.stdout + finished.stderr
    assert "Traceback" not in output, output[-4000:]
    assert "Reads served by the replica" in finished.stdout, output[-4000:]
    assert "PgBouncer soak_smoke_replica: clients" in finished.stdout, output[-4000:]
    assert "PASSED" in finished.stdout
