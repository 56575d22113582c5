"""Streams across real processes, with the commands docker-compose.yml and `make run` use.

- gunicorn (web) and uvicorn (stream) on one Redis: a command through the first reaches a
  stream held by the second; the stream process holds no database connection while idle.
- `make run`'s server alone, without Redis (the embedded default): streams in one process.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import httpx
import pytest
import yaml
from django.conf import settings
from django.db import connection

from tests.api.conftest import WON_DEAL
from tests.conftest import require_service
from tests.streams.conftest import Reader
from tests.workers import harness
from tests.workers.harness import (
    BIN,
    ROOT,
    free_port,
    process_env,
    running,
    wait_for_http,
    wait_until,
    web_command,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]
STREAM_APP = "scorpion-stream"


def stream_command(port: int) -> list[str]:
    """docker-compose.yml's stream service, on a port of the test's own."""
    spec = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    command = [str(part) for part in spec["services"]["stream"]["command"]]
    command[command.index("--port") + 1] = str(port)
    command[command.index("--host") + 1] = "127.0.0.1"
    return command


def sign_up(client: httpx.Client, email: str) -> None:
    response = client.post(
        "/_allauth/app/v1/auth/signup", json={"email": email, "password": "a long password 61"}
    )
    assert response.status_code == 200, response.text
    client.headers["X-Session-Token"] = response.json()["meta"]["session_token"]


def stream_backends() -> int:
    """PostgreSQL connections of the stream process (by its application_name)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [STREAM_APP]
        )
        row = cursor.fetchone()
    assert row is not None
    return int(row[0])


def test_a_command_through_web_reaches_a_stream_held_by_the_stream_process() -> None:
    require_service("PostgreSQL", connection.vendor == "postgresql")
    require_service("Redis", bool(settings.REDIS_URL))
    web_port, stream_port = free_port(), free_port()
    env = process_env(str(settings.REDIS_URL))
    stream_env = process_env(
        str(settings.REDIS_URL),
        DATABASE_URL=f"{harness.test_database_url()}?application_name={STREAM_APP}",
    )
    with (
        running("web", web_command(web_port), env) as web,
        running("stream", stream_command(stream_port), stream_env) as stream,
    ):
        web_url, stream_url = f"http://127.0.0.1:{web_port}", f"http://127.0.0.1:{stream_port}"
        wait_for_http(f"{web_url}/healthz/")
        wait_for_http(f"{stream_url}/healthz/")
        client = httpx.Client(base_url=web_url, timeout=30)
        sign_up(client, "two-processes@example.com")
        game = client.post("/api/v1/games/", json={"code": WON_DEAL["code"]}).json()

        listener = httpx.Client(base_url=stream_url, timeout=30, headers=client.headers)
        with (
            listener.stream("GET", f"/api/v1/games/{game['id']}/stream/") as game_stream,
            listener.stream("GET", "/api/v1/me/stream/") as feed_stream,
        ):
            assert game_stream.status_code == 200, game_stream.read()
            assert feed_stream.status_code == 200
            reader, feed = Reader(game_stream), Reader(feed_stream)
            assert reader.event().event == "resync"
            # Idle streams hold no connection to PostgreSQL.
            wait_until(lambda: stream_backends() == 0, 10, "the stream process holds one")

            for step in WON_DEAL["line"][:3]:
                moved = client.post(f"/api/v1/games/{game['id']}/commands/", json=step)
                assert moved.status_code == 200, moved.text
                frame = reader.event()
                assert frame.id == str(moved.json()["version"])
                assert frame.json()["columns"] == moved.json()["columns"]
            created = client.post("/api/v1/games/", json={}).json()
            frame = feed.event()
            assert (frame.event, frame.json()["id"]) == ("game_created", created["id"])
        assert web.popen.poll() is None
        assert stream.popen.poll() is None
        assert "Traceback" not in stream.output, stream.output[-3000:]


def test_the_sdk_resumes_after_the_stream_process_is_killed_mid_game() -> None:
    """SIGKILL the stream process while a client follows a game, start it again: the client
    reconnects by itself with Last-Event-ID and ends with exactly the events of the log."""
    require_service("PostgreSQL", connection.vendor == "postgresql")
    require_service("Redis", bool(settings.REDIS_URL))
    from scorpion_client import Scorpion, StreamOptions

    web_port, stream_port = free_port(), free_port()
    env = process_env(str(settings.REDIS_URL))
    web_url, stream_url = f"http://127.0.0.1:{web_port}", f"http://127.0.0.1:{stream_port}"
    with running("web", web_command(web_port), env):
        wait_for_http(f"{web_url}/healthz/")
        player = Scorpion(web_url)
        player.auth.signup("killed-stream@example.com", "a long password 62")
        game = player.games.create(code=WON_DEAL["code"])
        follower = Scorpion(stream_url, token=player.token)
        options = StreamOptions(backoff_base=0.2, backoff_max=1.0, max_failures=60)
        updates = follower.games.stream(game.id, since=0, options=options)
        line = WON_DEAL["line"]
        seen = []
        with running("stream", stream_command(stream_port), env) as first:
            wait_for_http(f"{stream_url}/healthz/")
            for step in line[:3]:
                game.move(step["card"], step.get("to"))
                seen.append(next(updates).version)
            first.kill()
        # Played while no stream process runs: the log has it.
        for step in line[3:6]:
            game.move(step["card"], step.get("to"))
        with running("stream", stream_command(stream_port), env) as second:
            wait_for_http(f"{stream_url}/healthz/")
            game.undo()
            game.resign()
            seen += [update.version for update in updates]  # ends with the game
            assert "Traceback" not in second.output, second.output[-3000:]
        log = [event.seq for event in player.games.events(game.id)]
        assert seen == log == list(range(1, 9))
        player.close()
        follower.close()


def make_run_server_command(port: int) -> list[str]:
    """The uvicorn line of the Makefile's `run` recipe, with its variables filled in."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    line = next(line for line in recipe.splitlines() if "uvicorn" in line)
    dirs = re.search(r"^RELOAD_DIRS := \$\(foreach dir,([^,]+),", makefile, re.MULTILINE)
    assert dirs is not None
    reload_dirs = " ".join(f"--reload-dir {name}" for name in dirs.group(1).split())
    command = (
        line.split("$(BIN)/", 1)[1]
        .replace("$(HOST)", "127.0.0.1")
        .replace("$(PORT)", str(port))
        .replace("$(RELOAD_DIRS)", reload_dirs)
    )
    parts = command.split()
    return [str(BIN / parts[0]), *parts[1:]]


def test_make_run_serves_streams_in_one_process_without_redis(tmp_path: Path) -> None:
    """The embedded default: SQLite, no Redis, one uvicorn process (with --reload)."""
    require_service("uvicorn", shutil.which("uvicorn", path=str(BIN)) is not None)
    port = free_port()
    database = tmp_path / "db.sqlite3"
    env = process_env("", DATABASE_URL=f"sqlite:///{database}", DEBUG="true")
    env.pop("REDIS_URL")
    with running("migrate", [str(BIN / "python"), "manage.py", "migrate", "--noinput"], env) as m:
        wait_until(lambda: m.popen.poll() is not None, 120, lambda: m.output[-2000:])
        assert m.popen.returncode == 0, m.output[-2000:]
    with running("run", make_run_server_command(port), env) as server:
        base = f"http://127.0.0.1:{port}"
        wait_for_http(f"{base}/healthz/")
        client = httpx.Client(base_url=base, timeout=30)
        sign_up(client, "make-run@example.com")
        assert client.get("/static/web/js/api.js").status_code == 200  # static files too
        game = client.post("/api/v1/games/", json={"code": WON_DEAL["code"]}).json()
        with client.stream("GET", f"/api/v1/games/{game['id']}/stream/") as response:
            assert response.status_code == 200
            reader = Reader(response)
            assert reader.event().event == "resync"
            moved = client.post(f"/api/v1/games/{game['id']}/commands/", json=WON_DEAL["line"][0])
            # Live, at once: before the stream's first heartbeat after the one it opens with,
            # which comes STREAM_HEARTBEAT_SECONDS (15 s) later, by the server's clock.
            frames = [reader.frame()]
            while frames[-1].data is None or frames[-1].event == "heartbeat":
                frames.append(reader.frame())
            heartbeats = [f for f in frames if f.event == "heartbeat"]
            assert len(heartbeats) <= 1, frames  # the opening one at most
            assert "keep-alive" not in [c for f in frames for c in f.comments]
            frame = frames[-1]
            assert frame.event == "command", frame
            assert frame.json()["columns"] == moved.json()["columns"]
        assert "Traceback" not in server.output, server.output[-3000:]
