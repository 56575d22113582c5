"""One rule for the client's address in every server process: NUM_PROXIES.

uvicorn, left to its defaults, takes ``X-Forwarded-For`` from a peer on 127.0.0.1 as the
client's address before the app sees the request; a local client (or anything that reaches
the process through a local hop) then picks a fresh rate limit per request by changing the
header. `make run` and the compose `stream` service run uvicorn with ``--no-proxy-headers``,
so the app derives the address itself (infrastructure/client_ip.py) as gunicorn's processes do.
Each command is started as a real process, as the Makefile and docker-compose.yml write it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.conftest import require_service
from tests.streams.test_processes import make_run_server_command, stream_command
from tests.workers.harness import BIN, free_port, process_env, running, wait_for_http

ANON_LIMIT = 60
# A day's window: the count cannot restart at a window's end in the middle of the test.
ANON_RATE = f"{ANON_LIMIT}/day"
REQUESTS = 75


def first_refusal(base: str, headers: Callable[[int], dict[str, str]]) -> int | None:
    """The number of the first anonymous request answered 429, if any of REQUESTS is."""
    with httpx.Client(base_url=base, timeout=30) as client:
        for number in range(1, REQUESTS + 1):
            answer = client.get("/api/v1/variants/", headers=headers(number))
            if answer.status_code == 429:
                return number
            assert answer.status_code == 200, answer.text
    return None


def changing_forwarded_for(number: int) -> dict[str, str]:
    return {"X-Forwarded-For": f"203.0.113.{number}"}


@pytest.mark.parametrize(
    "command", [make_run_server_command, stream_command], ids=["make-run", "compose-stream"]
)
def test_a_changing_forwarded_for_does_not_escape_the_anonymous_limit(
    command: Callable[[int], list[str]], tmp_path: Path
) -> None:
    require_service("uvicorn", shutil.which("uvicorn", path=str(BIN)) is not None)
    found = {}
    for label, headers in (("plain", lambda _: {}), ("forwarded", changing_forwarded_for)):
        port = free_port()
        # A fresh process each time: its rate-limit counters (no Redis) start from zero.
        env = process_env(
            "",
            DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
            NUM_PROXIES="0",
            THROTTLE_ANON=ANON_RATE,
        )
        env.pop("REDIS_URL")
        argv = command(port)
        if argv[0] == "uvicorn":
            argv[0] = str(BIN / "uvicorn")
        with running(label, argv, env) as server:
            wait_for_http(f"http://127.0.0.1:{port}/healthz/")
            found[label] = first_refusal(f"http://127.0.0.1:{port}", headers)
            assert "Traceback" not in server.output, server.output[-3000:]
    assert found == {"plain": ANON_LIMIT + 1, "forwarded": ANON_LIMIT + 1}
