"""docker-compose.yml's one-shot migrate and its web command, run natively by the ops tests
(no Docker engine here), with only the address changed."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from tests.ops.compose import ROOT, service
from tests.workers.harness import Process, running, wait_until

LISTENING = r"Listening at: http://127\.0\.0\.1:(\d+)"


def migrate(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The compose one-shot ``migrate`` service's command; it must succeed."""
    return succeeds(service("migrate")["command"], env)


def succeeds(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end in the project; it must succeed."""
    result = subprocess.run(
        command,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def web_command(**options: str) -> list[str]:
    """The compose web command (gunicorn) on a free port of 127.0.0.1, with ``options``
    (``workers="2"``, ``threads="20"``) replacing or adding gunicorn's own."""
    command = [part.replace("0.0.0.0:8000", "127.0.0.1:0") for part in service("web")["command"]]
    for name, value in options.items():
        flag = f"--{name}"
        if flag in command:
            command[command.index(flag) + 1] = value
        else:
            command += [flag, value]
    return command


@contextmanager
def web(command: list[str], env: dict[str, str], host: str) -> Iterator[tuple[Process, int]]:
    """gunicorn running ``command``, once its workers answer ``/healthz/``: it and its port."""
    with running("web", command, env) as process:
        wait_until(
            lambda: re.search(LISTENING, process.output),
            60,
            lambda: f"gunicorn never listened:\n{process.output}",
        )
        found = re.search(LISTENING, process.output)
        assert found is not None
        port = int(found[1])

        def answers() -> bool:
            try:
                url = f"http://127.0.0.1:{port}/healthz/"
                return httpx.get(url, headers={"Host": host}, timeout=5).status_code == 200
            except httpx.HTTPError:
                return False

        # The master listens before its workers have imported Django.
        wait_until(answers, 120, lambda: f"gunicorn never answered:\n{process.output[-3000:]}")
        yield process, port
