"""A running copy of the service for the benchmarks: a PostgreSQL database, a Redis, gunicorn
and a Celery worker of its own, started from the working tree or a commit's export, and the
Django scripts run with its code and settings (bench/api.py, bench/soak.py)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import socket
import string
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import httpx
import psycopg
import redis
from psycopg import sql

from games.engine.deals import deal_code_for_seed

ROOT = Path(__file__).resolve().parents[1]


PG_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"


PG_URL = "postgres://postgres@127.0.0.1:5432/{name}"


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


def on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(f"signal {signum}")


def random_secret(length: int = 60) -> str:
    alphabet = string.ascii_letters + string.digits + "-_"
    return "".join(secrets.choice(alphabet) for _ in range(length))


def recreate_database(name: str, *, create: bool, admin: str = PG_ADMIN) -> None:
    """Drop ``name`` and, with ``create``, create it again, on the server ``admin`` reaches."""
    with psycopg.connect(admin, autocommit=True) as connection:
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
    # The server the database is made and dropped on (bench/soak.py --replica: its own).
    admin_dsn: str = PG_ADMIN

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
            recreate_database(self.database, create=False, admin=self.admin_dsn)
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
    run_manage(stack, "migrate", "--noinput")


def run_manage(stack: Stack, command: str, *arguments: str) -> None:
    """``manage.py command arguments...`` with the stack's code and settings; its output is
    raised with the error if it fails."""
    done = subprocess.run(
        [sys.executable, "manage.py", command, *arguments],
        cwd=stack.tree,
        env=stack.environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed:\n{done.stdout}\n{done.stderr}")


FIRST_SEED = 1_000


SIGNUPS = 2  # players signed up through the API (the rest by a Django script: much faster)


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
