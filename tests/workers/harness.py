"""Real processes for the worker tests: gunicorn, Celery worker and beat, a private Redis.

They run exactly the commands of docker-compose.yml, natively, against the test database
(PostgreSQL) so that what they write is what the test reads.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import yaml
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SECRET_KEY = "worker-tests-" + "s" * 60
# The test process's own key, so that workers derive the same daily deals as the tests do.
DAILY_DEAL_SECRET = str(settings.DAILY_DEAL_SECRET)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_database_url() -> str:
    """The URL of the database pytest-django created, for the child processes."""
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def process_env(redis_url: str, **extra: str) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("SECURE_", "DJANGO_", "PYTEST_"))
    }
    env.update(
        {
            "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
            "DJANGO_SETTINGS_MODULE": "scorpion_site.settings",
            "DATABASE_URL": test_database_url(),
            "REDIS_URL": redis_url,
            "DEBUG": "false",
            "SECRET_KEY": SECRET_KEY,
            "DAILY_DEAL_SECRET": DAILY_DEAL_SECRET,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "false",
            "SESSION_COOKIE_SECURE": "false",
            "CSRF_COOKIE_SECURE": "false",
            "SECURE_HSTS_SECONDS": "0",
            "EMAIL_URL": "consolemail://",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


class Process:
    """A child process whose output is collected in the background."""

    def __init__(self, name: str, command: list[str], env: dict[str, str]) -> None:
        self.name = name
        self.command = command
        self.lines: list[str] = []
        self.popen = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.append(line.rstrip())

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def wait_for_output(self, text: str, timeout: float = 60) -> None:
        wait_until(
            lambda: text in self.output,
            timeout,
            lambda: f"{self.name} never printed {text!r}:\n{self.output[-3000:]}",
        )

    def kill(self) -> None:
        """SIGKILL the whole process group: no clean-up code of its own runs."""
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=30)

    def stop(self) -> None:
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


def wait_until(
    condition: Callable[[], Any], timeout: float, message: Callable[[], str] | str = "timed out"
) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.2)
    raise AssertionError(message() if callable(message) else message)


@contextmanager
def running(name: str, command: list[str], env: dict[str, str]) -> Iterator[Process]:
    process = Process(name, command, env)
    try:
        yield process
    finally:
        process.stop()


@contextmanager
def private_redis(port: int) -> Iterator[Process]:
    """A Redis of the test's own, which it may stop and start without disturbing anyone."""
    server = shutil.which("redis-server")
    assert server, "redis-server is not installed"
    command = [
        server,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
    ]
    with running("redis", command, os.environ.copy()) as process:
        process.wait_for_output("Ready to accept connections")
        yield process


def compose_commands() -> dict[str, list[str]]:
    """The process commands docker-compose.yml gives web, the two workers and beat."""
    spec = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    names = ("web", "worker", "worker-hints", "beat")
    return {name: list(spec["services"][name]["command"]) for name in names}


def web_command(port: int) -> list[str]:
    command = compose_commands()["web"]
    return [part.replace("0.0.0.0:8000", f"127.0.0.1:{port}") for part in command]


def wait_for_http(url: str, timeout: float = 60) -> httpx.Response:
    def answer() -> httpx.Response | None:
        try:
            response = httpx.get(url, timeout=2)
        except httpx.HTTPError:
            return None
        return response if response.status_code == 200 else None

    result: httpx.Response = wait_until(answer, timeout, f"{url} never answered 200")
    return result
