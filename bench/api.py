"""API speed on the real stack: gunicorn, PostgreSQL and Redis, all on this machine.

Run from the repository root with the project's interpreter:
``.venv/bin/python bench/api.py [--clients 16] [--seconds 10] [--workers 4]``
(``--commit HEAD`` serves a ``git archive`` export of a commit instead of the working tree,
for a stable measurement while the tree is being edited). Only 127.0.0.1 is contacted.

What it does, in order (about 80 s with the defaults):

1. Drops and creates a PostgreSQL database (``scorpion_bench``), migrates it, and starts gunicorn
   on a free loopback port with production settings (``DEBUG`` off) and every throttle
   (``THROTTLE_USER``, ``THROTTLE_ANON``, ``THROTTLE_IP``) raised out of the way. Redis is a
   database of its own (``/14``; it must be empty, and is flushed at the end: it collects the
   throttle counters and the Celery messages that no worker consumes here). gunicorn is always
   stopped and the database dropped at the end, Ctrl-C and SIGTERM included.
2. Signs up one player per client through ``POST /_allauth/app/v1/auth/signup`` (allauth
   allows 20 sign-ups a minute per address; beyond 15, or after a 429, the remaining players
   are created by a Django script that opens a session for them as allauth's session token
   strategy does: the token is a Django session key). Each client creates its own game from a
   deal code and asks for its hints once.
3. Throughput under load: ``--clients`` threads, each with its own ``httpx.Client`` (keep-alive
   on the client side; gunicorn's default sync workers close the connection after each
   answer, ``--threads 2`` or more selects gthread workers, which keep it), hammer one
   endpoint at a time for slots of ``--seconds / --rounds`` seconds, cycling command -> game
   -> me ``--rounds`` times, so every endpoint gets ``--seconds`` in all and the machine's
   background load falls on all three alike. The command slots alternate ``{"type": "move",
   "card": <first hint>}`` and ``{"type": "undo"}`` on each client's game: an endless supply of
   legal moves. ``GET /api/v1/me/`` is the floor: token authentication, throttles and DRF,
   nothing of ours. Besides latency, the CPU that gunicorn and the PostgreSQL backends spent
   per answered request is read from /proc: on a shared machine, latency under load is mostly
   queueing for a CPU, while CPU per request is not.
4. Undo at depth: one game built to ~5,000 events and games of ~10 events, built by a Django
   script calling ``games.services.game_execute_command`` directly (what the command view
   calls, minus HTTP) as move/undo pairs ending on a move, 50 commands per transaction. Then,
   through the API and with one client, sequential undo and redo on both, interleaved sample by
   sample (each short game serves 5 samples, so it stays between ~11 and ~21 events).

Figures are printed with the command line, the date, the code's commit and the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import secrets
import shlex
import signal
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any

import httpx
import psycopg
import redis
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine.deals import deal_code_for_seed

ROOT = Path(__file__).resolve().parents[1]
PG_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
PG_URL = "postgres://postgres@127.0.0.1:5432/{name}"
# A Redis database of its own, flushed at the end: the test suite flushes database 0 before
# every test, and the bench's throttle counters (keyed by user id) must not reach its users.
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
SIGNUP_BUDGET = 15  # allauth: "signup": "20/m/ip"; keep a margin for other sign-ups
FIRST_SEED = 1_000
DEPTH_TARGET_RATIO = 1.2
SHORT_SAMPLES_PER_GAME = 5  # each short game gets this many undo+redo pairs (~11 -> ~21 events)

# Run by the project's interpreter with Django set up: creates players and builds histories.
DJANGO_SCRIPT = r"""
import json, sys, time
import django

django.setup()
from importlib import import_module

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.db import transaction

from games import services
from games.engine.cards import parse_card
from games.history import Command

job = json.loads(sys.argv[1])
out = {}
if job["task"] == "players":
    store_class = import_module(settings.SESSION_ENGINE).SessionStore
    tokens = []
    for email in job["emails"]:
        user = User.objects.create_user(username=email, email=email, password=None)
        store = store_class()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        tokens.append(store.session_key)
    out["tokens"] = tokens
elif job["task"] == "histories":
    owner = User.objects.get(email=job["email"])
    timings = []

    def run(game_id, kind, card=None):
        started = time.perf_counter()
        services.game_execute_command(
            owner=owner, game_id=game_id, command=Command(type=kind, card=card)
        )
        timings.append(time.perf_counter() - started)

    def build(events):
        # Batches of 50 commands per transaction: the service's own atomic() becomes a
        # savepoint, so the build does not wait for a WAL flush per command, and the game row's
        # chain of row versions (one per UPDATE, prunable only once committed) stays short.
        game = services.game_create(
            owner=owner, choice=services.DealChoice(mode="seeded", code=job["code"])
        )
        card = parse_card(job["card"])
        pairs = events // 2
        for first in range(0, pairs, 25):
            with transaction.atomic():
                for _ in range(min(25, pairs - first)):
                    run(game.id, "move", card)
                    run(game.id, "undo")
        run(game.id, "move", card)  # so that an undo is always possible
        return str(game.id)

    started = time.perf_counter()
    out["short"] = [build(job["short_events"]) for _ in range(job["short_games"])]
    short_timings, timings = timings, []
    out["long"] = build(job["long_events"])
    out["seconds"] = time.perf_counter() - started
    out["commands"] = len(short_timings) + len(timings)
    out["service_ms_first_100"] = sorted(timings[:100])[50] * 1000
    out["service_ms_last_100"] = sorted(timings[-100:])[50] * 1000
print("RESULT " + json.dumps(out))
"""


class Interrupted(Exception):
    """SIGTERM: unwind through the finally blocks, as Ctrl-C does."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(f"signal {signum}")


# --- Machine and CPU accounting ---


def cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    return platform.processor() or "unknown"


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


TICK = os.sysconf("SC_CLK_TCK")


def machine_ticks() -> tuple[int, int]:
    """(busy, steal) jiffies of all CPUs since boot, from /proc/stat."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return user + nice + system + irq + softirq, steal


def process_tree_ticks(pid: int) -> int:
    """utime + stime of a process and its children (gunicorn's master and workers)."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            stat = Path(f"/proc/{current}/stat").read_text()
            parts = stat.rpartition(")")[2].split()
            total += int(parts[11]) + int(parts[12])
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        pending.extend(int(child) for child in children)
    return total


def pid_ticks(pid: int) -> int:
    """utime + stime of one process, in clock ticks (0 once it is gone)."""
    try:
        parts = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0
    return int(parts[11]) + int(parts[12])


def redis_server_pids() -> list[int]:
    pids = []
    for comm in Path("/proc").glob("[0-9]*/comm"):
        with contextlib.suppress(OSError):
            if comm.read_text().strip() == "redis-server":
                pids.append(int(comm.parent.name))
    return pids


@dataclass
class CpuUse:
    """CPU seconds used during measurements, by part; ``wall`` is their total duration."""

    wall: float = 0.0
    server: float = 0.0  # gunicorn master and workers
    database: float = 0.0  # the PostgreSQL backends serving the bench database
    redis: float = 0.0  # redis-server (shared with anything else using it)
    client: float = 0.0  # this load generator
    machine: float = 0.0  # all CPUs, everything
    steal: float = 0.0

    def add(self, other: CpuUse) -> None:
        for name in ("wall", "server", "database", "redis", "client", "machine", "steal"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def describe(self) -> str:
        if self.wall <= 0:
            return ""
        cores = {
            "gunicorn": self.server,
            "PostgreSQL": self.database,
            "Redis": self.redis,
            "load generator": self.client,
        }
        rest = self.machine - sum(cores.values())
        parts = [f"{name} {value / self.wall:.2f}" for name, value in cores.items()]
        return (
            ", ".join(parts) + f", other work {max(0.0, rest) / self.wall:.2f}, "
            f"steal {self.steal / self.wall:.2f} (of {os.cpu_count()})"
        )


class CpuMeter:
    """Measures the CPU each part of the stack uses, from /proc (Linux)."""

    def __init__(self, server_pid: int, database: str) -> None:
        self.server_pid = server_pid
        self.database = database
        self.connection = psycopg.connect(PG_ADMIN, autocommit=True)
        self.redis_pids = redis_server_pids()

    def close(self) -> None:
        self.connection.close()

    def backend_ticks(self) -> dict[int, int]:
        rows = self.connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.database,)
        ).fetchall()
        return {int(pid): pid_ticks(int(pid)) for (pid,) in rows}

    @contextlib.contextmanager
    def measure(self, into: CpuUse) -> Iterator[None]:
        wall, client = time.perf_counter(), time.process_time()
        server = process_tree_ticks(self.server_pid)
        backends = self.backend_ticks()
        redis = sum(pid_ticks(pid) for pid in self.redis_pids)
        busy, steal = machine_ticks()
        try:
            yield
        finally:
            busy_after, steal_after = machine_ticks()
            backends_after = self.backend_ticks()
            database = sum(ticks - backends.get(pid, 0) for pid, ticks in backends_after.items())
            into.add(
                CpuUse(
                    wall=time.perf_counter() - wall,
                    server=(process_tree_ticks(self.server_pid) - server) / TICK,
                    database=database / TICK,
                    redis=(sum(pid_ticks(pid) for pid in self.redis_pids) - redis) / TICK,
                    client=time.process_time() - client,
                    machine=(busy_after - busy) / TICK,
                    steal=(steal_after - steal) / TICK,
                )
            )


# --- Database, settings, server ---


def random_secret(length: int = 60) -> str:
    alphabet = string.ascii_letters + string.digits + "-_"
    return "".join(secrets.choice(alphabet) for _ in range(length))


def claim_redis_database(url: str) -> None:
    """The bench's Redis database must be empty: it is flushed at the end."""
    size = redis.Redis.from_url(url, socket_connect_timeout=2).dbsize()
    if size:
        raise SystemExit(
            f"{url} holds {size} keys: the bench flushes its Redis database at the end, so it "
            "needs one nobody else uses (--redis-url redis://127.0.0.1:6379/<n>)"
        )


def recreate_database(name: str, *, create: bool) -> None:
    with psycopg.connect(PG_ADMIN, autocommit=True) as connection:
        connection.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        if create:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def postgres_version() -> str:
    with psycopg.connect(PG_ADMIN) as connection:
        row = connection.execute("SHOW server_version").fetchone()
    return str(row[0]) if row else "?"


def service_environment(database: str, redis_url: str) -> dict[str, str]:
    environment = dict(os.environ)
    environment.update(
        DJANGO_SETTINGS_MODULE="scorpion_site.settings",
        DATABASE_URL=PG_URL.format(name=database),
        REDIS_URL=redis_url,
        DEBUG="false",
        SECRET_KEY=random_secret(),
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="false",
        SESSION_COOKIE_SECURE="false",
        CSRF_COOKIE_SECURE="false",
        SECURE_HSTS_SECONDS="0",
        THROTTLE_USER="1000000/min",
        THROTTLE_ANON="1000000/min",
        THROTTLE_IP="1000000/min",  # all clients share 127.0.0.1
        LOG_LEVEL="WARNING",
        EMAIL_URL="consolemail://",
        PYTHONUNBUFFERED="1",
    )
    return environment


@dataclass(frozen=True)
class Service:
    """Where the service's code is and how it is configured."""

    tree: Path
    environment: dict[str, str]


def run_django_script(service: Service, job: dict[str, Any]) -> dict[str, Any]:
    completed = subprocess.run(
        [sys.executable, "-c", DJANGO_SCRIPT, json.dumps(job)],
        cwd=service.tree,
        env=service.environment,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in completed.stdout.splitlines():
        if line.startswith("RESULT "):
            result: dict[str, Any] = json.loads(line.removeprefix("RESULT "))
            return result
    raise RuntimeError(f"django script failed:\n{completed.stdout}\n{completed.stderr}")


def source_revision(tree: Path) -> str:
    """The commit of a Git working tree, and whether it has changes (read-only queries)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "--no-optional-locks", "-C", str(tree), "status", "--porcelain", "-uno"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return " (not a Git working tree)"
    return f" (commit {head}{', with uncommitted changes' if dirty else ''})"


def export_commit(commit: str, target: Path) -> tuple[Path, str]:
    """``git archive`` of a commit into ``target``: reads the repository, changes nothing."""
    full = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{commit}^{{commit}}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    target.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", full],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target, f" (commit {full[:12]}, exported from {ROOT} with git archive)"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def gunicorn_command(port: int, workers: int, threads: int) -> list[str]:
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "scorpion_site.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
    ]
    if threads > 1:
        command += ["--worker-class", "gthread", "--threads", str(threads)]
    return command


def wait_healthy(base_url: str, server: subprocess.Popen[bytes], log: Path) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    with httpx.Client(base_url=base_url, timeout=5) as client:
        while time.monotonic() < deadline:
            if server.poll() is not None:
                break
            with contextlib.suppress(httpx.HTTPError):
                response = client.get("/healthz/")
                if response.status_code == 200:
                    body: dict[str, Any] = response.json()
                    return body
            time.sleep(0.2)
    tail = log.read_text(errors="replace")[-3000:]
    raise RuntimeError(f"gunicorn did not become healthy; its log ends with:\n{tail}")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is not None:
        return
    server.terminate()  # SIGTERM to the master: graceful stop of the workers
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=5)


# --- Players ---


@dataclass
class Player:
    email: str
    token: str
    via: str
    client: httpx.Client
    game_id: str = ""
    card: str = ""
    pending_undo: bool = False


def signup(base_url: str, email: str, password: str) -> tuple[int, str | None]:
    with httpx.Client(base_url=base_url, timeout=60) as client:
        response = client.post(
            "/_allauth/app/v1/auth/signup", json={"email": email, "password": password}
        )
    if response.status_code != 200:
        return response.status_code, None
    token: str = response.json()["meta"]["session_token"]
    return 200, token


def make_players(
    base_url: str, service: Service, count: int, workers: int, run_id: str
) -> list[Player]:
    emails = [f"bench-{run_id}-{index}@example.com" for index in range(count)]
    password = random_secret(24)
    tokens: dict[str, tuple[str, str]] = {}
    by_api = emails[:SIGNUP_BUDGET]
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        answers = list(pool.map(lambda email: signup(base_url, email, password), by_api))
    refused: list[int] = []
    for email, (status, token) in zip(by_api, answers, strict=True):
        if token is not None:
            tokens[email] = (token, "signup")
        else:
            refused.append(status)
    if any(status != 429 for status in refused):
        raise RuntimeError(f"sign-up failed with statuses {refused}")
    rest = [email for email in emails if email not in tokens]
    if rest:
        minted = run_django_script(service, {"task": "players", "emails": rest})
        for email, token in zip(rest, minted["tokens"], strict=True):
            tokens[email] = (token, "script")
    return [
        Player(
            email=email,
            token=tokens[email][0],
            via=tokens[email][1],
            client=httpx.Client(
                base_url=base_url, headers={"X-Session-Token": tokens[email][0]}, timeout=30
            ),
        )
        for email in emails
    ]


def start_game(player: Player, seed: int) -> str:
    """A game from a deal code whose hints include a move (most deals do); its deal code."""
    while True:
        code = deal_code_for_seed(seed)
        created = player.client.post("/api/v1/games/", json={"code": code})
        created.raise_for_status()
        game_id = created.json()["id"]
        hints = player.client.get(f"/api/v1/games/{game_id}/hints/")
        hints.raise_for_status()
        moves = hints.json()["moves"]
        if moves:
            player.game_id, player.card, player.pending_undo = game_id, moves[0]["card"], False
            return code
        seed += 1_000_003


# --- Measurement ---


@dataclass
class Samples:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)

    def add(self, label: str, seconds: float) -> None:
        self.latencies.setdefault(label, []).append(seconds * 1000)

    def fail(self, label: str, what: str) -> None:
        self.errors[label] = self.errors.get(label, 0) + 1
        if len(self.examples) < 5:
            self.examples.append(f"{label}: {what}")

    def merge(self, other: Samples) -> None:
        for label, values in other.latencies.items():
            self.latencies.setdefault(label, []).extend(values)
        for label, count in other.errors.items():
            self.errors[label] = self.errors.get(label, 0) + count
        self.examples.extend(other.examples[: max(0, 5 - len(self.examples))])


Operation = Callable[[Player, Samples], None]


def timed(
    samples: Samples, label: str, send: Callable[[], httpx.Response]
) -> httpx.Response | None:
    started = time.perf_counter()
    try:
        response = send()
    except httpx.HTTPError as error:
        samples.fail(label, f"{type(error).__name__}: {error}")
        time.sleep(0.01)
        return None
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        samples.fail(label, f"{response.status_code} {response.text[:200]}")
        return None
    samples.add(label, elapsed)
    return response


def command_operation(player: Player, samples: Samples) -> None:
    """One command: the move of the first hint, or the undo of it."""
    url = f"/api/v1/games/{player.game_id}/commands/"
    if player.pending_undo:
        label, body = "undo", {"type": "undo"}
    else:
        label, body = "move", {"type": "move", "card": player.card}
    if timed(samples, label, lambda: player.client.post(url, json=body)) is not None:
        player.pending_undo = not player.pending_undo
        return
    with contextlib.suppress(httpx.HTTPError, KeyError, ValueError):  # resynchronise
        player.pending_undo = bool(
            player.client.get(url.rpartition("commands/")[0]).json()["can_undo"]
        )


def game_operation(player: Player, samples: Samples) -> None:
    timed(samples, "game", lambda: player.client.get(f"/api/v1/games/{player.game_id}/"))


def me_operation(player: Player, samples: Samples) -> None:
    timed(samples, "me", lambda: player.client.get("/api/v1/me/"))


def run_slot(
    players: list[Player], operation: Operation, seconds: float, stop: threading.Event
) -> tuple[Samples, float]:
    """All players run ``operation`` in a loop for ``seconds``; returns the samples and the
    wall time from the common start to the last answer."""
    per_thread = [Samples() for _ in players]
    ready = threading.Barrier(len(players) + 1)
    deadline = [0.0]

    def work(player: Player, samples: Samples) -> None:
        ready.wait()
        while time.perf_counter() < deadline[0] and not stop.is_set():
            operation(player, samples)

    threads = [
        threading.Thread(target=work, args=(player, samples), daemon=True)
        for player, samples in zip(players, per_thread, strict=True)
    ]
    for thread in threads:
        thread.start()
    started = time.perf_counter()
    deadline[0] = started + seconds
    ready.wait()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    merged = Samples()
    for samples in per_thread:
        merged.merge(samples)
    return merged, wall


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of sorted ``values``."""
    if not values:
        return float("nan")
    rank = max(1, round(fraction * len(values) + 0.5))
    return values[min(len(values), rank) - 1]


@dataclass
class Summary:
    count: int
    p50: float
    p90: float
    p99: float
    mean: float
    max: float


def summarise(values: list[float]) -> Summary:
    ordered = sorted(values)
    if not ordered:
        nan = float("nan")
        return Summary(0, nan, nan, nan, nan, nan)
    return Summary(
        count=len(ordered),
        p50=percentile(ordered, 0.50),
        p90=percentile(ordered, 0.90),
        p99=percentile(ordered, 0.99),
        mean=sum(ordered) / len(ordered),
        max=ordered[-1],
    )


def throughput_table(
    players: list[Player], rounds: int, seconds: float, meter: CpuMeter, stop: threading.Event
) -> None:
    phases: list[tuple[str, Operation]] = [
        ("command", command_operation),
        ("game", game_operation),
        ("me", me_operation),
    ]
    # Warm-up: each worker process imports lazily and opens its connections on first use.
    for _name, operation in phases:
        run_slot(players, operation, 1.0, stop)
    totals = {name: Samples() for name, _ in phases}
    walls = dict.fromkeys(totals, 0.0)
    cpu = {name: CpuUse() for name in totals}
    slot = seconds / rounds
    for _round in range(rounds):
        for name, operation in phases:
            with meter.measure(cpu[name]):
                samples, wall = run_slot(players, operation, slot, stop)
            totals[name].merge(samples)
            walls[name] += wall
    rows: list[tuple[str, str, str]] = [
        ("POST commands: move", "command", "move"),
        ("POST commands: undo", "command", "undo"),
        ("POST commands: move+undo", "command", "*"),
        ("GET game", "game", "game"),
        ("GET me (floor)", "me", "me"),
    ]
    print()
    print(
        f"Throughput: {len(players)} concurrent clients, {rounds} rounds of "
        f"command/game/me slots of {slot:.1f} s ({seconds:.0f} s per endpoint)"
    )
    print(
        f"{'endpoint':<26}{'requests':>9}{'req/s':>8}{'p50 ms':>8}{'p90 ms':>8}{'p99 ms':>8}"
        f"{'max ms':>8}{'errors':>7}{'web CPU':>9}{'PG CPU':>8}"
    )
    p50s: dict[str, float] = {}
    web_cpu: dict[str, float] = {}
    for title, phase, label in rows:
        samples = totals[phase]
        if label == "*":
            values = [value for values in samples.latencies.values() for value in values]
            errors = sum(samples.errors.values())
        else:
            values = samples.latencies.get(label, [])
            errors = samples.errors.get(label, 0)
        summary = summarise(values)
        p50s[label] = summary.p50
        rate = summary.count / walls[phase] if walls[phase] else 0.0
        # CPU per request of the slot (both kinds of command share the command slots).
        answered = sum(len(values) for values in samples.latencies.values()) or 1
        web_cpu[label] = cpu[phase].server * 1000 / answered
        database_cpu = cpu[phase].database * 1000 / answered
        print(
            f"{title:<26}{summary.count:>9}{rate:>8.1f}{summary.p50:>8.2f}{summary.p90:>8.2f}"
            f"{summary.p99:>8.2f}{summary.max:>8.2f}{errors:>7}{web_cpu[label]:>9.2f}"
            f"{database_cpu:>8.2f}"
        )
    print("  (web CPU, PG CPU: ms of gunicorn and PostgreSQL-backend CPU per answered request)")
    for phase, use in cpu.items():
        print(f"  cores during {phase} slots: {use.describe()}")
    for phase, samples in totals.items():
        for example in samples.examples:
            print(f"  error in {phase}: {example}")
    floor = p50s["me"]
    print(
        f"ratio p50 / floor p50: move {p50s['move'] / floor:.2f}x, undo "
        f"{p50s['undo'] / floor:.2f}x, move+undo {p50s['*'] / floor:.2f}x, "
        f"game {p50s['game'] / floor:.2f}x (aim for commands: within 2x)"
    )
    print(
        f"ratio web CPU per request / floor's: command {web_cpu['*'] / web_cpu['me']:.2f}x, "
        f"game {web_cpu['game'] / web_cpu['me']:.2f}x (unlike latency, not inflated by queueing)"
    )


def depth_table(
    service: Service,
    player: Player,
    samples_wanted: int,
    long_events: int,
    meter: CpuMeter,
) -> None:
    short_games = -(-samples_wanted // SHORT_SAMPLES_PER_GAME)
    print()
    print(
        f"Undo at depth: building {short_games} games of ~10 events and 1 of ~{long_events:,} "
        "with a Django script calling games.services.game_execute_command (move/undo pairs, "
        "50 per transaction)"
    )
    code = start_game(player, FIRST_SEED)  # and the deal's first move, from the hints endpoint
    built = run_django_script(
        service,
        {
            "task": "histories",
            "email": player.email,
            "code": code,
            "card": player.card,
            "short_events": 10,
            "short_games": short_games,
            "long_events": long_events,
        },
    )
    print(
        f"  built {built['commands']:,} commands in {built['seconds']:.1f} s; service-level "
        f"median on the long game: first 100 {built['service_ms_first_100']:.2f} ms, last 100 "
        f"{built['service_ms_last_100']:.2f} ms"
    )
    client = player.client
    long_id: str = built["long"]
    short_ids: list[str] = built["short"]
    versions = {
        "short": client.get(f"/api/v1/games/{short_ids[0]}/").json()["version"],
        "long": client.get(f"/api/v1/games/{long_id}/").json()["version"],
    }
    samples = Samples()
    use = CpuUse()
    with meter.measure(use):
        for index in range(samples_wanted):
            games = {"short": short_ids[index // SHORT_SAMPLES_PER_GAME], "long": long_id}
            order = ("short", "long") if index % 2 == 0 else ("long", "short")
            for kind in ("undo", "redo"):
                for depth in order:
                    url = f"/api/v1/games/{games[depth]}/commands/"
                    body = {"type": kind}
                    timed(samples, f"{kind}@{depth}", partial(client.post, url, json=body))
            timed(samples, "me", lambda: client.get("/api/v1/me/"))
    after = client.get(f"/api/v1/games/{long_id}/").json()["version"]
    print(
        f"  sequential, 1 client, {samples_wanted} samples each; events before: short "
        f"{versions['short']}, long {versions['long']:,} (long after: {after:,})"
    )
    print(
        f"{'request':<26}{'samples':>9}{'p50 ms':>9}{'p90 ms':>9}{'mean ms':>9}{'max ms':>9}"
        f"{'errors':>8}"
    )
    summaries: dict[str, Summary] = {}
    for label in ("undo@short", "undo@long", "redo@short", "redo@long", "me"):
        summary = summaries[label] = summarise(samples.latencies.get(label, []))
        print(
            f"{label:<26}{summary.count:>9}{summary.p50:>9.2f}{summary.p90:>9.2f}"
            f"{summary.mean:>9.2f}{summary.max:>9.2f}{samples.errors.get(label, 0):>8}"
        )
    for example in samples.examples:
        print(f"  error: {example}")
    print(f"  cores: {use.describe()}")
    for kind in ("undo", "redo"):
        long, short = summaries[f"{kind}@long"], summaries[f"{kind}@short"]
        ratio = long.p50 / short.p50
        verdict = "within" if ratio <= DEPTH_TARGET_RATIO else "OUTSIDE"
        print(
            f"ratio {kind} ~{versions['long']:,} events / ~{versions['short']} events: p50 "
            f"{ratio:.2f}x, mean {long.mean / short.mean:.2f}x ({verdict} the "
            f"{DEPTH_TARGET_RATIO}x aim); {kind} p50 / floor p50 "
            f"{short.p50 / summaries['me'].p50:.2f}x"
        )
    whole_history(client, {"short": short_ids[0], "long": long_id})


def whole_history(client: httpx.Client, games: dict[str, str]) -> None:
    """The reads whose cost grows with the log by design: all events, and a state rebuilt by
    folding the log (three samples each; for information, no aim)."""
    figures = []
    for depth, game_id in games.items():
        version = client.get(f"/api/v1/games/{game_id}/").json()["version"]
        for name, path in (
            ("events", f"/api/v1/games/{game_id}/events/"),
            (f"states/{version}", f"/api/v1/games/{game_id}/states/{version}/"),
        ):
            samples = Samples()
            size = 0
            for _ in range(3):
                response = timed(samples, name, partial(client.get, path))
                size = len(response.content) if response is not None else 0
            latencies = sorted(samples.latencies.get(name, [float("nan")]))
            errors = sum(samples.errors.values())
            figures.append(
                f"GET {name} ({depth}) {latencies[len(latencies) // 2]:.1f} ms, "
                f"{size / 1024:,.0f} KiB" + (f", {errors} errors" if errors else "")
            )
    print("  whole-history reads, median of 3: " + "; ".join(figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0, help="per endpoint, in all")
    parser.add_argument("--rounds", type=int, default=2, help="command/game/me cycles")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=1, help=">1: gthread workers")
    parser.add_argument("--depth-events", type=int, default=5_000)
    parser.add_argument("--depth-samples", type=int, default=200)
    parser.add_argument("--database", default="scorpion_bench")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--tree",
        type=Path,
        default=ROOT,
        help="the source tree to serve (default: this repository's working tree)",
    )
    source.add_argument(
        "--commit",
        help="serve this commit instead, exported with `git archive` to a temporary directory "
        "(for measuring while the working tree is being edited)",
    )
    arguments = parser.parse_args()
    if arguments.clients < 1 or arguments.rounds < 1 or arguments.seconds <= 0:
        parser.error("--clients, --rounds and --seconds must be positive")

    signal.signal(signal.SIGTERM, _on_sigterm)
    print(f"command:  {shlex.join(sys.orig_argv)}   (in {Path.cwd()})")
    print(f"date:     {datetime.now(UTC).isoformat(timespec='seconds')}")
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    print(
        f"machine:  {platform.system()} {platform.release()} {platform.machine()}, "
        f"nproc {affinity} ({os.cpu_count()} CPUs), {cpu_model()}, load average {loadavg()}"
    )
    print(
        f"software: {platform.python_implementation()} {platform.python_version()}, "
        f"PostgreSQL {postgres_version()}, httpx {httpx.__version__}"
    )

    workdir = tempfile.TemporaryDirectory(prefix="scorpion-bench-")
    if arguments.commit:
        tree, revision = export_commit(arguments.commit, Path(workdir.name) / "tree")
    else:
        tree = arguments.tree.resolve()
        revision = source_revision(tree)
    environment = service_environment(arguments.database, arguments.redis_url)
    service = Service(tree=tree, environment=environment)
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    stop = threading.Event()
    server: subprocess.Popen[bytes] | None = None
    everyone: list[Player] = []
    log = Path(workdir.name) / "gunicorn.log"
    started = time.perf_counter()
    redis_claimed = False
    try:
        claim_redis_database(arguments.redis_url)
        redis_claimed = True
        recreate_database(arguments.database, create=True)
        migrate = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=tree,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
        )
        if migrate.returncode != 0:
            raise RuntimeError(f"migrate failed:\n{migrate.stdout}\n{migrate.stderr}")
        command = gunicorn_command(port, arguments.workers, arguments.threads)
        with log.open("wb") as log_file:
            server = subprocess.Popen(
                command, cwd=tree, env=environment, stdout=log_file, stderr=subprocess.STDOUT
            )
        health = wait_healthy(base_url, server, log)
        print(f"server:   {shlex.join(command[1:])} (DEBUG off, {arguments.redis_url})")
        print(f"code:     {tree}{revision}")
        if health.get("status") != "ok":
            print(f"warning:  /healthz/ says {health}")

        run_id = secrets.token_hex(4)
        everyone = make_players(base_url, service, arguments.clients + 1, arguments.workers, run_id)
        depth_player, players = everyone[-1], everyone[:-1]
        via = [player.via for player in (*players, depth_player)]
        print(
            f"players:  {via.count('signup')} signed up through the API, "
            f"{via.count('script')} created by a Django script (allauth's 20/m/ip sign-up limit)"
        )
        for index, player in enumerate(players):
            start_game(player, FIRST_SEED + index)

        meter = CpuMeter(server.pid, arguments.database)
        try:
            throughput_table(players, arguments.rounds, arguments.seconds, meter, stop)
            depth_table(
                service,
                depth_player,
                arguments.depth_samples,
                arguments.depth_events,
                meter,
            )
        finally:
            meter.close()
        print()
        print(f"load average at the end {loadavg()}; total {time.perf_counter() - started:.0f} s")
    finally:
        stop.set()
        for player in everyone:
            player.client.close()
        if server is not None:
            stop_server(server)
        with contextlib.suppress(psycopg.Error):
            recreate_database(arguments.database, create=False)
        if redis_claimed:  # throttle counters and the Celery messages no worker consumed
            with contextlib.suppress(redis.RedisError):
                redis.Redis.from_url(arguments.redis_url).flushdb()
        workdir.cleanup()


if __name__ == "__main__":
    try:
        main()
    except (KeyboardInterrupt, Interrupted):
        print("\ninterrupted: server stopped, bench database dropped", file=sys.stderr)
        sys.exit(130)
