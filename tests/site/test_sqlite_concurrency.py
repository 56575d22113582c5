"""The embedded default (SQLite, no Redis) serves several players at once without an error.

A real server process (gunicorn, two worker processes of four threads each, so writers meet
both across processes and across threads) on a SQLite file, and eight clients, each its own
player, creating games and playing moves, undos, redos and resignations as fast as they can.
With SQLite's defaults, a transaction that begins by reading and then writes cannot wait for
another writer (SQLite answers "database is locked" at once): 4 clients got 500s in every run.
The settings (scorpion_site/settings.py, docs/architecture.md) make every transaction take the
write lock when it begins, and wait for it: writers queue, readers read alongside (WAL).

Needs no service, so it runs everywhere, CI included.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.data import DEALS

ROOT = Path(__file__).resolve().parents[2]
CODE, LINE = DEALS["won"][0]["code"], DEALS["won"][0]["line"]
CLIENTS = 8
GAMES_PER_CLIENT = 4
PASSWORD = "correct horse battery staple"


def server_env(database: Path) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        # The embedded default: no PostgreSQL, no Redis, whatever the test run itself uses.
        if name not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        DATABASE_URL=f"sqlite:///{database}",
        # The test settings: a fast password hasher and no sign-up limit for eight sign-ups
        # from one address; the database settings are the real ones.
        DJANGO_SETTINGS_MODULE="scorpion_site.test_settings",
        DEBUG="true",
        THROTTLE_ANON="100000/min",
        THROTTLE_USER="100000/min",
        THROTTLE_IP="100000/min",
        PYTHONUNBUFFERED="1",
    )
    return env


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The base URL of a gunicorn serving the project on a fresh SQLite file."""
    env = server_env(tmp_path / "db.sqlite3")
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert migrate.returncode == 0, migrate.stderr
    log = tmp_path / "gunicorn.log"
    with log.open("w") as log_file:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "scorpion_site.wsgi:application",
                "--bind",
                "127.0.0.1:0",  # any free port: the log says which
                "--workers",
                "2",
                "--threads",
                "4",
                "--worker-class",
                "gthread",
                "--timeout",
                "120",
            ],
            cwd=ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    try:
        yield _wait_for_listening(process, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def _wait_for_listening(process: subprocess.Popen[bytes], log: Path) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        match = re.search(r"Listening at: (http://127\.0\.0\.1:\d+)", log.read_text())
        if match:
            url = match.group(1)
            # Both workers booted and the application imported: /healthz/ answers.
            try:
                if httpx.get(f"{url}/healthz/", timeout=10).status_code < 500:
                    return url
            except httpx.HTTPError:
                pass
        if process.poll() is not None:
            break
        time.sleep(0.2)
    raise AssertionError(f"gunicorn did not start:\n{log.read_text()}")


class Client:
    """A player on their own connection, recording every answer that is not a success."""

    def __init__(self, base_url: str, index: int) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=60)
        self.index = index
        self.statuses: Counter[int] = Counter()
        self.failures: list[str] = []

    def call(self, method: str, path: str, body: Any = None) -> Any:
        try:
            response = self.http.request(method, path, json=body)
        except httpx.HTTPError as exc:
            self.failures.append(f"{method} {path}: {exc!r}")
            return None
        self.statuses[response.status_code] += 1
        if response.status_code >= 300:
            self.failures.append(f"{method} {path}: {response.status_code} {response.text[:300]}")
            return None
        return response.json() if response.content else None

    def play(self) -> None:
        signup = self.call(
            "POST",
            "/_allauth/app/v1/auth/signup",
            {"email": f"sqlite{self.index}@example.com", "password": PASSWORD},
        )
        if signup is None:
            return
        self.http.headers["X-Session-Token"] = signup["meta"]["session_token"]
        for round_ in range(GAMES_PER_CLIENT):
            game = self.call("POST", "/api/v1/games/", {"code": CODE})
            if game is None:
                continue
            commands = f"/api/v1/games/{game['id']}/commands/"
            for step in LINE[: 3 + round_]:
                self.call("POST", commands, step)
                self.call("POST", commands, {"type": "undo"})
                self.call("POST", commands, {"type": "redo"})
            self.call("GET", f"/api/v1/games/{game['id']}/")
            self.call("GET", f"/api/v1/games/{game['id']}/hints/")
            self.call("POST", commands, {"type": "resign"})
            self.call("GET", "/api/v1/stats/")
        self.call("GET", "/api/v1/games/")


def test_eight_clients_play_at_once_on_sqlite_without_an_error(server: str) -> None:
    clients = [Client(server, index) for index in range(CLIENTS)]
    barrier = threading.Barrier(CLIENTS)

    def run(client: Client) -> None:
        barrier.wait()
        client.play()

    threads = [threading.Thread(target=run, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not any(thread.is_alive() for thread in threads)
    failures = [failure for client in clients for failure in client.failures]
    answered = sum(sum(client.statuses.values()) for client in clients)
    assert not failures, f"{len(failures)} of {answered} requests failed: {failures[:10]}"
    # Every client played every game to the end: the writes really were concurrent.
    expected = 1 + sum(5 + 3 * (3 + r) for r in range(GAMES_PER_CLIENT)) + 1
    assert all(sum(client.statuses.values()) == expected for client in clients)
