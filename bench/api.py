"""API speed on the stack as the service runs it: gunicorn, a Celery worker, PostgreSQL, Redis.

Run from the repository root with the project's interpreter:
``.venv/bin/python bench/api.py [--baseline main] [--clients 16] [--seconds 10]``
(``--commit REV`` serves a ``git archive`` export of a commit instead of the working tree;
``--baseline REV`` also starts that commit as a second stack and measures both, slot by slot
in one run, so that a shared and noisy machine weighs on both alike). Only 127.0.0.1 is
contacted.

Each stack is what docker-compose.yml runs: gunicorn with 4 sync workers (``--workers``),
``DEBUG`` off, a Celery worker consuming (``--concurrency 2``, as compose), a PostgreSQL
database of its own (dropped and created, then dropped at the end) and a Redis of its own (a
private ``redis-server`` on a free port, stopped at the end; ``--redis-url`` uses an existing
database instead, which must be empty and is flushed at the end). The throttle rates are the
defaults (``THROTTLE_USER`` 1200/min, ``THROTTLE_IP`` 6000/min): each simulated player has an
account and an address of its own (``X-Forwarded-For`` with ``NUM_PROXIES=1``), as players
behind the proxy would; ``--players-per-client`` of them per client, 8 by default, so that no
player reaches its limit.

What it measures, for ``POST commands`` (alternately a move, the first hint of the player's
game, and its undo: an endless supply of legal commands), ``GET`` the game and the floor,
``GET /api/v1/variants/`` with the player's token (token authentication, throttles and DRF,
and a constant answer: no query of ours; ``GET /api/v1/me/`` is no floor, it reads the
player's profile):

1. Closed loop: ``--clients`` threads, each sending its next request as soon as the previous
   answer came, for ``--seconds`` per endpoint in all, in ``--rounds`` rounds of slots cycling
   command -> game -> floor (and stack by stack within each slot). This is the capacity: requests
   per second with the machine saturated.
2. Open loop: requests sent at a fixed rate, ``--load`` (0.5) times the capacity just measured
   for that endpoint and stack, whatever the answers' speed; a request's latency counts from
   the moment it was due (no coordinated omission). This is the latency a player sees when
   the service is half busy.
3. For each slot, the CPU that the gunicorn processes, the Celery worker processes and the
   PostgreSQL backends spent per answered request, read from /proc: on a shared machine,
   latency is mostly queueing for a CPU, while CPU per request is not.

Figures are printed with the command line, the date, the code's commit and the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import queue
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
FIRST_SEED = 1_000
SIGNUPS = 2  # players signed up through the API (the rest by a Django script: much faster)
AIM_MOVE_OVER_FLOOR = 1.3
AIM_OPEN_P99_MS = 50.0

# Run by the project's interpreter with Django set up: creates players with session tokens,
# as allauth's session token strategy does (the token is a Django session key).
DJANGO_SCRIPT = r"""
import json, sys
import django

django.setup()
from importlib import import_module

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User

job = json.loads(sys.argv[1])
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
print("RESULT " + json.dumps({"tokens": tokens}))
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
    """utime + stime of a process and its children (e.g. gunicorn's master and workers)."""
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


@dataclass
class CpuUse:
    """CPU seconds used during measurements, by part; ``wall`` is their total duration."""

    wall: float = 0.0
    web: float = 0.0  # gunicorn master and workers
    worker: float = 0.0  # the Celery worker and its pool processes
    database: float = 0.0  # the PostgreSQL backends serving the stack's database
    redis: float = 0.0  # the stack's redis-server (0 when it is a shared one)
    machine: float = 0.0  # all CPUs, everything
    steal: float = 0.0

    def add(self, other: CpuUse) -> None:
        for name in ("wall", "web", "worker", "database", "redis", "machine", "steal"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def describe(self) -> str:
        if self.wall <= 0:
            return ""
        parts = {
            "gunicorn": self.web,
            "worker": self.worker,
            "PostgreSQL": self.database,
            "Redis": self.redis,
        }
        rest = self.machine - sum(parts.values())
        return (
            ", ".join(f"{name} {value / self.wall:.2f}" for name, value in parts.items())
            + f", everything else {max(0.0, rest) / self.wall:.2f}, steal "
            f"{self.steal / self.wall:.2f} (cores of {os.cpu_count()})"
        )


# --- Stacks: database, Redis, gunicorn and a Celery worker of their own ---


def random_secret(length: int = 60) -> str:
    alphabet = string.ascii_letters + string.digits + "-_"
    return "".join(secrets.choice(alphabet) for _ in range(length))


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


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


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
        return "(not a Git working tree)"
    return f"commit {head}{', with uncommitted changes' if dirty else ''}"


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
    return target, f"commit {full[:12]} ({commit}, exported with git archive)"


@dataclass
class Player:
    email: str
    token: str
    address: str
    client: httpx.Client
    game_id: str = ""
    card: str = ""
    pending_undo: bool = False


@dataclass
class Stack:
    """One running copy of the service."""

    name: str
    tree: Path
    revision: str
    database: str
    workdir: Path
    redis_url: str = ""
    environment: dict[str, str] = field(default_factory=dict)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    redis_pid: int | None = None
    base_url: str = ""
    players: list[Player] = field(default_factory=list)
    owns_redis: bool = True
    # Settings over the deployed defaults (e.g. throttles raised for a one-client bench).
    overrides: dict[str, str] = field(default_factory=dict)

    def log(self, name: str) -> Path:
        return self.workdir / f"{self.name}-{name}.log"

    def start(self, process: str, command: list[str]) -> subprocess.Popen[bytes]:
        with self.log(process).open("wb") as log_file:
            started = subprocess.Popen(
                command,
                cwd=self.tree,
                env=self.environment,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes[process] = started
        return started

    def stop(self) -> None:
        for process in reversed(list(self.processes.values())):
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        for player in self.players:
            player.client.close()
        with contextlib.suppress(psycopg.Error):
            recreate_database(self.database, create=False)
        if not self.owns_redis and self.redis_url:
            with contextlib.suppress(redis.RedisError):
                redis.Redis.from_url(self.redis_url).flushdb()


def service_environment(stack: Stack) -> dict[str, str]:
    environment = dict(os.environ)
    for name in ("THROTTLE_USER", "THROTTLE_ANON", "THROTTLE_IP"):
        environment.pop(name, None)  # the defaults, as deployed
    environment.update(
        DJANGO_SETTINGS_MODULE="scorpion_site.settings",
        DATABASE_URL=PG_URL.format(name=stack.database),
        REDIS_URL=stack.redis_url,
        DEBUG="false",
        SECRET_KEY=random_secret(),
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="false",
        SESSION_COOKIE_SECURE="false",
        CSRF_COOKIE_SECURE="false",
        SECURE_HSTS_SECONDS="0",
        NUM_PROXIES="1",  # the players' addresses come in X-Forwarded-For, as from a proxy
        LOG_LEVEL="WARNING",
        EMAIL_URL="consolemail://",
        DAILY_DEAL_SECRET=random_secret(),
        PYTHONUNBUFFERED="1",
    )
    environment.update(stack.overrides)
    return environment


def start_redis(stack: Stack) -> None:
    port = free_port()
    process = stack.start(
        "redis",
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
    )
    stack.redis_url = f"redis://127.0.0.1:{port}/0"
    stack.redis_pid = process.pid
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.suppress(redis.RedisError):
            if redis.Redis.from_url(stack.redis_url, socket_connect_timeout=1).ping():
                return
        time.sleep(0.1)
    raise RuntimeError(f"redis-server did not start: {stack.log('redis').read_text()[-2000:]}")


def wait_healthy(stack: Stack, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 90
    with httpx.Client(base_url=stack.base_url, timeout=5) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            with contextlib.suppress(httpx.HTTPError):
                if client.get("/healthz/").status_code == 200:
                    return
            time.sleep(0.2)
    tail = stack.log("gunicorn").read_text(errors="replace")[-3000:]
    raise RuntimeError(f"gunicorn did not become healthy; its log ends with:\n{tail}")


def run_django_script(
    stack: Stack, job: dict[str, Any], *, script: str = DJANGO_SCRIPT
) -> dict[str, Any]:
    """Run ``script`` with the stack's code and settings; its ``RESULT`` line, parsed."""
    return run_django_script_in(stack.tree, stack.environment, job, script=script)


def mint_session_tokens(tree: Path, environment: dict[str, str], emails: list[str]) -> list[str]:
    """Players made by a Django script (DJANGO_SCRIPT): their session tokens, in order."""
    if not emails:
        return []
    tokens: list[str] = run_django_script_in(tree, environment, {"emails": emails})["tokens"]
    return tokens


def run_django_script_in(
    tree: Path, environment: dict[str, str], job: dict[str, Any], *, script: str = DJANGO_SCRIPT
) -> dict[str, Any]:
    """Run ``script`` with the code of ``tree`` and ``environment``'s settings; its ``RESULT``
    line, parsed."""
    completed = subprocess.run(
        [sys.executable, "-c", script, json.dumps(job)],
        cwd=tree,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in completed.stdout.splitlines():
        if line.startswith("RESULT "):
            result: dict[str, Any] = json.loads(line.removeprefix("RESULT "))
            return result
    raise RuntimeError(f"django script failed:\n{completed.stdout}\n{completed.stderr}")


def migrate_fresh(stack: Stack) -> None:
    """The stack's settings, and its database dropped, created and migrated."""
    stack.environment = service_environment(stack)
    recreate_database(stack.database, create=True)
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=stack.tree,
        env=stack.environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if migrate.returncode != 0:
        raise RuntimeError(f"migrate failed:\n{migrate.stdout}\n{migrate.stderr}")


def bring_up(stack: Stack, arguments: argparse.Namespace, players: int) -> None:
    if stack.owns_redis:
        start_redis(stack)
    else:
        size = redis.Redis.from_url(stack.redis_url, socket_connect_timeout=2).dbsize()
        if size:
            raise SystemExit(
                f"{stack.redis_url} holds {size} keys: the bench flushes its Redis database "
                "at the end, so it needs one nobody else uses"
            )
    migrate_fresh(stack)
    port = free_port()
    stack.base_url = f"http://127.0.0.1:{port}"
    bin_dir = Path(sys.executable).parent
    gunicorn = [
        str(bin_dir / "gunicorn"),
        "scorpion_site.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(arguments.workers),
    ]
    server = stack.start("gunicorn", gunicorn)
    stack.start(
        "worker",
        [
            str(bin_dir / "celery"),
            "-A",
            "scorpion_site",
            "worker",
            "--loglevel=WARNING",
            f"--concurrency={arguments.worker_concurrency}",
            "--hostname",
            f"bench-{stack.name}-{secrets.token_hex(3)}@%h",
        ],
    )
    wait_healthy(stack, server)
    stack.players = make_players(stack, players)
    for index, player in enumerate(stack.players):
        start_game(player, FIRST_SEED + index)


# --- Players ---


def player_client(stack: Stack, token: str, address: str) -> httpx.Client:
    return httpx.Client(
        base_url=stack.base_url,
        headers={"X-Session-Token": token, "X-Forwarded-For": address},
        timeout=30,
    )


def make_players(stack: Stack, count: int) -> list[Player]:
    run_id = secrets.token_hex(4)
    emails = [f"bench-{run_id}-{index}@example.com" for index in range(count)]
    addresses = [f"10.{index // 250}.{index % 250}.7" for index in range(count)]
    password = random_secret(24)
    tokens: dict[str, str] = {}
    for email, address in zip(emails[:SIGNUPS], addresses, strict=False):
        with httpx.Client(base_url=stack.base_url, timeout=60) as client:
            response = client.post(
                "/_allauth/app/v1/auth/signup",
                json={"email": email, "password": password},
                headers={"X-Forwarded-For": address},
            )
        response.raise_for_status()
        tokens[email] = response.json()["meta"]["session_token"]
    rest = [email for email in emails if email not in tokens]
    minted = mint_session_tokens(stack.tree, stack.environment, rest)
    tokens.update(zip(rest, minted, strict=True))
    return [
        Player(email, tokens[email], address, player_client(stack, tokens[email], address))
        for email, address in zip(emails, addresses, strict=True)
    ]


def start_game(player: Player, seed: int) -> None:
    """A game from a deal code whose hints include a move (most deals do)."""
    while True:
        created = player.client.post("/api/v1/games/", json={"code": deal_code_for_seed(seed)})
        created.raise_for_status()
        game_id = created.json()["id"]
        hints = player.client.get(f"/api/v1/games/{game_id}/hints/")
        hints.raise_for_status()
        moves = hints.json()["moves"]
        if moves:
            player.game_id, player.card, player.pending_undo = game_id, moves[0]["card"], False
            return
        seed += 1_000_003


# --- Measurement ---


@dataclass
class Samples:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, label: str, milliseconds: float) -> None:
        with self.lock:
            self.latencies.setdefault(label, []).append(milliseconds)

    def fail(self, label: str, what: str) -> None:
        with self.lock:
            self.errors[label] = self.errors.get(label, 0) + 1
            if len(self.examples) < 5:
                self.examples.append(f"{label}: {what}")

    def merge(self, other: Samples) -> None:
        for label, values in other.latencies.items():
            self.latencies.setdefault(label, []).extend(values)
        for label, count in other.errors.items():
            self.errors[label] = self.errors.get(label, 0) + count
        self.examples.extend(other.examples[: max(0, 5 - len(self.examples))])

    def answered(self) -> int:
        return sum(len(values) for values in self.latencies.values())


def send(samples: Samples, label: str, request: Callable[[], httpx.Response], due: float) -> bool:
    """Send one request; its latency counts from ``due`` (the time it was meant to go)."""
    try:
        response = request()
    except httpx.HTTPError as error:
        samples.fail(label, f"{type(error).__name__}: {error}")
        return False
    elapsed = time.perf_counter() - due
    if response.status_code != 200:
        samples.fail(label, f"{response.status_code} {response.text[:200]}")
        return False
    samples.add(label, elapsed * 1000)
    return True


Operation = Callable[[Player, Samples, float], None]


def command_operation(player: Player, samples: Samples, due: float) -> None:
    """One command: the move of the first hint, or the undo of it."""
    url = f"/api/v1/games/{player.game_id}/commands/"
    if player.pending_undo:
        label, body = "undo", {"type": "undo"}
    else:
        label, body = "move", {"type": "move", "card": player.card}
    if send(samples, label, lambda: player.client.post(url, json=body), due):
        player.pending_undo = not player.pending_undo
        return
    with contextlib.suppress(httpx.HTTPError, KeyError, ValueError):  # resynchronise
        player.pending_undo = bool(
            player.client.get(url.rpartition("commands/")[0]).json()["can_undo"]
        )


def game_operation(player: Player, samples: Samples, due: float) -> None:
    send(samples, "game", lambda: player.client.get(f"/api/v1/games/{player.game_id}/"), due)


def floor_operation(player: Player, samples: Samples, due: float) -> None:
    """The floor: an authenticated request that reads nothing of ours (module docstring)."""
    send(samples, "floor", lambda: player.client.get("/api/v1/variants/"), due)


class CpuMeter:
    """Measures the CPU each part of a stack uses, from /proc (Linux)."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.connection = psycopg.connect(PG_ADMIN, autocommit=True)

    def close(self) -> None:
        self.connection.close()

    def backend_ticks(self) -> dict[int, int]:
        rows = self.connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.stack.database,)
        ).fetchall()
        return {int(pid): pid_ticks(int(pid)) for (pid,) in rows}

    def _ticks(self) -> tuple[int, int, dict[int, int], int]:
        processes = self.stack.processes
        return (
            process_tree_ticks(processes["gunicorn"].pid),
            process_tree_ticks(processes["worker"].pid),
            self.backend_ticks(),
            pid_ticks(self.stack.redis_pid) if self.stack.redis_pid else 0,
        )

    @contextlib.contextmanager
    def measure(self, into: CpuUse) -> Iterator[None]:
        wall = time.perf_counter()
        web, worker, backends, redis_ticks = self._ticks()
        busy, steal = machine_ticks()
        try:
            yield
        finally:
            busy_after, steal_after = machine_ticks()
            web_after, worker_after, backends_after, redis_after = self._ticks()
            database = sum(ticks - backends.get(pid, 0) for pid, ticks in backends_after.items())
            into.add(
                CpuUse(
                    wall=time.perf_counter() - wall,
                    web=(web_after - web) / TICK,
                    worker=(worker_after - worker) / TICK,
                    database=database / TICK,
                    redis=(redis_after - redis_ticks) / TICK,
                    machine=(busy_after - busy) / TICK,
                    steal=(steal_after - steal) / TICK,
                )
            )


def closed_slot(
    players: list[Player], clients: int, operation: Operation, seconds: float, stop: threading.Event
) -> tuple[Samples, float]:
    """``clients`` threads, each cycling through its share of the players, send requests back
    to back for ``seconds``; returns the samples and the wall time to the last answer."""
    samples = Samples()
    ready = threading.Barrier(clients + 1)
    deadline = [0.0]

    def work(mine: list[Player]) -> None:
        ready.wait()
        turn = 0
        while time.perf_counter() < deadline[0] and not stop.is_set():
            operation(mine[turn % len(mine)], samples, time.perf_counter())
            turn += 1

    threads = [
        threading.Thread(target=work, args=(players[index::clients],), daemon=True)
        for index in range(clients)
    ]
    for thread in threads:
        thread.start()
    started = time.perf_counter()
    deadline[0] = started + seconds
    ready.wait()
    for thread in threads:
        thread.join()
    return samples, time.perf_counter() - started


def open_slot(
    players: list[Player], rate: float, operation: Operation, seconds: float, stop: threading.Event
) -> tuple[Samples, float]:
    """Requests due at a fixed ``rate`` per second for ``seconds``, each on a player with no
    request in flight, whatever the answers' speed (a pool of 64 senders)."""
    samples = Samples()
    idle: queue.SimpleQueue[Player] = queue.SimpleQueue()
    for player in players:
        idle.put(player)
    count = max(1, int(rate * seconds))
    started = time.perf_counter() + 0.05

    def one(due: float) -> None:
        player = idle.get()
        try:
            operation(player, samples, due)
        finally:
            idle.put(player)

    with ThreadPoolExecutor(max_workers=64) as pool:
        for index in range(count):
            if stop.is_set():
                break
            due = started + index / rate
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            pool.submit(one, due)
    return samples, time.perf_counter() - started


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of sorted ``values``."""
    if not values:
        return float("nan")
    rank = max(1, round(fraction * len(values) + 0.5))
    return values[min(len(values), rank) - 1]


@dataclass
class Row:
    stack: str
    endpoint: str
    requests: int
    rate: float
    p50: float
    p90: float
    p99: float
    errors: int
    web_cpu: float
    worker_cpu: float
    database_cpu: float


@dataclass
class Slot:
    """The samples and CPU of one endpoint on one stack, over all its rounds."""

    samples: Samples = field(default_factory=Samples)
    wall: float = 0.0
    cpu: CpuUse = field(default_factory=CpuUse)

    def rows(self, stack: str, labels: tuple[str, ...]) -> list[Row]:
        answered = self.samples.answered() or 1
        rows = []
        for label in labels:
            values = sorted(self.samples.latencies.get(label, []))
            rows.append(
                Row(
                    stack=stack,
                    endpoint=label,
                    requests=len(values),
                    rate=len(values) / self.wall if self.wall else 0.0,
                    p50=percentile(values, 0.50),
                    p90=percentile(values, 0.90),
                    p99=percentile(values, 0.99),
                    errors=self.samples.errors.get(label, 0),
                    # Per answered request of the slot (both kinds of command share theirs).
                    web_cpu=self.cpu.web * 1000 / answered,
                    worker_cpu=self.cpu.worker * 1000 / answered,
                    database_cpu=self.cpu.database * 1000 / answered,
                )
            )
        return rows


ENDPOINTS: list[tuple[str, Operation, tuple[str, ...]]] = [
    ("command", command_operation, ("move", "undo")),
    ("game", game_operation, ("game",)),
    ("floor", floor_operation, ("floor",)),
]
TITLES = {"move": "POST command: move", "undo": "POST command: undo", "game": "GET game"}
TITLES["floor"] = "GET variants (the floor)"


def print_rows(title: str, rows: list[Row]) -> None:
    print()
    print(title)
    print(
        f"{'endpoint':<22}{'stack':<10}{'requests':>9}{'req/s':>8}{'p50 ms':>8}{'p90 ms':>8}"
        f"{'p99 ms':>8}{'errors':>7}{'web CPU':>9}{'worker':>8}{'PG CPU':>8}"
    )
    for row in rows:
        print(
            f"{TITLES[row.endpoint]:<22}{row.stack:<10}{row.requests:>9}{row.rate:>8.1f}"
            f"{row.p50:>8.1f}{row.p90:>8.1f}{row.p99:>8.1f}{row.errors:>7}{row.web_cpu:>9.2f}"
            f"{row.worker_cpu:>8.2f}{row.database_cpu:>8.2f}"
        )
    print("  (web CPU, worker, PG CPU: ms of gunicorn, Celery worker and PostgreSQL-backend CPU")
    print("   per answered request of the endpoint's slots; move and undo share their slots)")


def measure(
    stacks: list[Stack], arguments: argparse.Namespace, stop: threading.Event
) -> dict[str, dict[str, Row]]:
    meters = {stack.name: CpuMeter(stack) for stack in stacks}
    try:
        for stack in stacks:  # warm-up: lazy imports, connections, caches
            for _name, operation, _labels in ENDPOINTS:
                closed_slot(stack.players, arguments.clients, operation, 1.0, stop)
        closed = {(s.name, name): Slot() for s in stacks for name, _, _ in ENDPOINTS}
        slot_seconds = arguments.seconds / arguments.rounds
        for round_number in range(arguments.rounds):
            for name, operation, _labels in ENDPOINTS:
                order = stacks if round_number % 2 == 0 else list(reversed(stacks))
                for stack in order:
                    slot = closed[(stack.name, name)]
                    with meters[stack.name].measure(slot.cpu):
                        samples, wall = closed_slot(
                            stack.players, arguments.clients, operation, slot_seconds, stop
                        )
                    slot.samples.merge(samples)
                    slot.wall += wall
        closed_rows = [
            row
            for name, _, labels in ENDPOINTS
            for stack in stacks
            for row in closed[(stack.name, name)].rows(stack.name, labels)
        ]
        print_rows(
            f"Closed loop (capacity): {arguments.clients} clients sending back to back, "
            f"{arguments.rounds} rounds of {slot_seconds:.1f} s slots per endpoint and stack",
            closed_rows,
        )
        for (stack_name, name), slot in closed.items():
            print(f"  cores during {stack_name} {name} slots: {slot.cpu.describe()}")
            for example in slot.samples.examples:
                print(f"  error ({stack_name} {name}): {example}")

        capacity = {
            (stack.name, name): sum(
                row.rate for row in closed[(stack.name, name)].rows(stack.name, labels)
            )
            for stack in stacks
            for name, _, labels in ENDPOINTS
        }
        opened = {key: Slot() for key in closed}
        open_slot_seconds = arguments.open_seconds / arguments.rounds
        for round_number in range(arguments.rounds):
            for name, operation, _labels in ENDPOINTS:
                order = stacks if round_number % 2 == 0 else list(reversed(stacks))
                for stack in order:
                    slot = opened[(stack.name, name)]
                    rate = max(1.0, capacity[(stack.name, name)] * arguments.load)
                    with meters[stack.name].measure(slot.cpu):
                        samples, wall = open_slot(
                            stack.players, rate, operation, open_slot_seconds, stop
                        )
                    slot.samples.merge(samples)
                    slot.wall += wall
        open_rows = [
            row
            for name, _, labels in ENDPOINTS
            for stack in stacks
            for row in opened[(stack.name, name)].rows(stack.name, labels)
        ]
        print_rows(
            f"Open loop: requests due at {arguments.load:g} x each endpoint's closed-loop "
            f"req/s on its stack, latency from the time each was due, {arguments.rounds} "
            f"rounds of {open_slot_seconds:.1f} s slots",
            open_rows,
        )
        for (stack_name, name), slot in opened.items():
            print(f"  cores during {stack_name} {name} slots: {slot.cpu.describe()}")
            for example in slot.samples.examples:
                print(f"  error ({stack_name} {name}): {example}")
    finally:
        for meter in meters.values():
            meter.close()
    return {
        "closed": {f"{row.stack}/{row.endpoint}": row for row in closed_rows},
        "open": {f"{row.stack}/{row.endpoint}": row for row in open_rows},
    }


def hot_updates(stack: Stack) -> str:
    """How many of the game rows' updates were HOT (no index entry written)."""
    with psycopg.connect(PG_URL.format(name=stack.database)) as connection:
        row = connection.execute(
            "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = %s",
            ("games_game",),
        ).fetchone()
    if not row or not row[0]:
        return "no updates"
    return f"{row[1]:,} of {row[0]:,} ({row[1] / row[0]:.0%})"


def verdicts(figures: dict[str, dict[str, Row]], stacks: list[Stack]) -> None:
    closed, opened = figures["closed"], figures["open"]
    current = stacks[0].name
    print()
    move, floor = closed[f"{current}/move"], closed[f"{current}/floor"]
    ratio = move.web_cpu / floor.web_cpu
    print(
        f"{current}: web CPU per command / floor's {ratio:.2f}x "
        f"({'within' if ratio <= AIM_MOVE_OVER_FLOOR else 'OUTSIDE'} the "
        f"{AIM_MOVE_OVER_FLOOR}x aim); GET game / floor "
        f"{closed[f'{current}/game'].web_cpu / floor.web_cpu:.2f}x"
    )
    for label in ("move", "undo", "game", "floor"):
        p99 = opened[f"{current}/{label}"].p99
        print(
            f"{current}: open-loop p99 of {TITLES[label]} at half capacity {p99:.1f} ms "
            f"({'within' if p99 <= AIM_OPEN_P99_MS else 'OUTSIDE'} the "
            f"{AIM_OPEN_P99_MS:.0f} ms aim)"
        )
    if len(stacks) > 1:
        base = stacks[1].name
        floor_ratio = floor.web_cpu / closed[f"{base}/floor"].web_cpu
        commands = move.rate + closed[f"{current}/undo"].rate
        base_commands = closed[f"{base}/move"].rate + closed[f"{base}/undo"].rate
        base_ratio = closed[f"{base}/move"].web_cpu / closed[f"{base}/floor"].web_cpu
        print(
            f"floor web CPU {current} / {base}: {floor_ratio:.2f}x (aim: at most 0.5x); "
            f"{base}: command / floor {base_ratio:.2f}x"
        )
        print(
            f"commands/s with a worker running, {current} / {base}: "
            f"{commands:.1f} / {base_commands:.1f} = {commands / base_commands:.2f}x (aim: 2x)"
        )
        for label in ("move", "undo", "game", "floor"):
            print(
                f"web CPU per request of {TITLES[label]}, {current} / {base}: "
                f"{closed[f'{current}/{label}'].web_cpu / closed[f'{base}/{label}'].web_cpu:.2f}x"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--players-per-client", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10.0, help="closed loop, per endpoint")
    parser.add_argument("--open-seconds", type=float, default=10.0, help="open loop, per endpoint")
    parser.add_argument("--rounds", type=int, default=2, help="command/game/floor cycles")
    parser.add_argument("--load", type=float, default=0.5, help="open-loop rate / capacity")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--worker-concurrency", type=int, default=2, help="Celery processes")
    parser.add_argument("--database", default="scorpion_bench")
    parser.add_argument(
        "--redis-url", help="an empty Redis database instead of a private redis-server"
    )
    parser.add_argument(
        "--baseline", metavar="REV", help="also run this commit as a second stack, side by side"
    )
    parser.add_argument(
        "--baseline-redis-url", help="for the baseline stack, as --redis-url is for the other"
    )
    parser.add_argument(
        "--commit",
        help="serve this commit (exported with `git archive`) instead of the working tree",
    )
    arguments = parser.parse_args()
    if min(arguments.clients, arguments.rounds, arguments.players_per_client) < 1:
        parser.error("--clients, --rounds and --players-per-client must be positive")
    if arguments.seconds <= 0 or arguments.open_seconds <= 0 or not 0 < arguments.load <= 1:
        parser.error("--seconds and --open-seconds must be positive, --load in (0, 1]")

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
    work = Path(workdir.name)
    if arguments.commit:
        tree, revision = export_commit(arguments.commit, work / "current-tree")
    else:
        tree, revision = ROOT, source_revision(ROOT)
    stacks = [
        Stack(
            "current",
            tree,
            revision,
            arguments.database,
            work,
            redis_url=arguments.redis_url or "",
            owns_redis=not arguments.redis_url,
        )
    ]
    if arguments.baseline:
        base_tree, base_revision = export_commit(arguments.baseline, work / "baseline-tree")
        stacks.append(
            Stack(
                "baseline",
                base_tree,
                base_revision,
                arguments.database + "_baseline",
                work,
                redis_url=arguments.baseline_redis_url or "",
                owns_redis=not arguments.baseline_redis_url,
            )
        )
    stop = threading.Event()
    started = time.perf_counter()
    players = arguments.clients * arguments.players_per_client
    try:
        for stack in stacks:
            bring_up(stack, arguments, players)
            print(
                f"{stack.name + ':':<9} {stack.revision}; gunicorn --workers {arguments.workers}"
                f" (sync), celery worker --concurrency {arguments.worker_concurrency}, Redis "
                f"{stack.redis_url}{' (private)' if stack.owns_redis else ''}, {players} "
                f"players ({SIGNUPS} signed up through the API), default throttle rates"
            )
        figures = measure(stacks, arguments, stop)
        verdicts(figures, stacks)
        for stack in stacks:
            print(f"{stack.name}: HOT updates of game rows {hot_updates(stack)}")
        print()
        print(f"load average at the end {loadavg()}; total {time.perf_counter() - started:.0f} s")
    finally:
        stop.set()
        for stack in stacks:
            stack.stop()
        workdir.cleanup()


if __name__ == "__main__":
    try:
        main()
    except (KeyboardInterrupt, Interrupted):
        print("\ninterrupted: servers stopped, bench databases dropped", file=sys.stderr)
        sys.exit(130)
