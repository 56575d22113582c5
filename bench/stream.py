"""Live streams on the real stack: how fast a command reaches the other devices, and what an
open stream costs.

Run from the repository root with the project's interpreter:
``.venv/bin/python bench/stream.py [--streams 500] [--games 50] [--rates 5,20] [--seconds 20]``
Only 127.0.0.1 is contacted.

What it does:

1. Drops and creates a PostgreSQL database (``scorpion_stream_bench``), migrates it, and starts
   the two processes of docker-compose.yml on free loopback ports, with production settings:
   ``web`` (gunicorn, 4 sync workers) and ``stream`` (uvicorn, one event loop), on one Redis
   (``--redis-url``; the bench's keys are its own and it deletes them at the end).
2. Creates ``--games`` games, each of a player of its own (one signed up through the API, the
   others made by a Django script, as bench/api.py makes them: a player's new game abandons
   the last, so no player can keep two open); then opens ``--streams`` streams on the
   stream process, spread evenly over the games (500 streams on 50 games: every command is
   fanned out to 10 streams), each a plain socket reading the event stream, as a browser tab
   would. The stream process's resident memory (VmRSS) is read before (after one stream was
   opened and closed, so that the code is loaded) and with every stream open, and so are its
   threads and its PostgreSQL connections.
3. For each rate of ``--rates`` (commands per second, open loop: sent on a fixed schedule,
   whatever the answers), sends commands through ``web`` for ``--seconds``: each game in turn
   alternates a move (its first hint) and an undo. For every command: its latency (sent ->
   answered) and, for each stream of its game, the fan-out (answered -> the event arrived on
   that stream; negative when the event arrived before the answer, since the event is
   published on commit, before the answer is written). Every event must arrive once on every
   stream of its game: the bench counts the missing and the duplicated.

The client (the streams and the commands) runs in this process, on the same cores as the
servers: figures are for this machine as a whole.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psycopg
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import machine_description
from bench.stack import (
    PG_URL,
    free_port,
    mint_session_tokens,
    postgres_version,
    random_secret,
    recreate_database,
    source_revision,
)

ROOT = Path(__file__).resolve().parents[1]
DATABASE = "scorpion_stream_bench"
STREAM_APP = "scorpion-stream-bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/7"
BIN = Path(sys.executable).parent


def service_environment(database: str, redis_url: str) -> dict[str, str]:
    """Production settings (DEBUG off) with every throttle out of the way: one address and a
    few accounts send all the traffic here."""
    environment = dict(os.environ)
    environment.update(
        DJANGO_SETTINGS_MODULE="scorpion_site.settings",
        DATABASE_URL=PG_URL.format(name=database),
        REDIS_URL=redis_url,
        DEBUG="false",
        SECRET_KEY=random_secret(),
        DAILY_DEAL_SECRET=random_secret(),
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="false",
        SESSION_COOKIE_SECURE="false",
        CSRF_COOKIE_SECURE="false",
        SECURE_HSTS_SECONDS="0",
        THROTTLE_USER="1000000/min",
        THROTTLE_ANON="1000000/min",
        THROTTLE_IP="1000000/min",
        LOG_LEVEL="WARNING",
        EMAIL_URL="consolemail://",
        PYTHONUNBUFFERED="1",
    )
    return environment


def wait_healthy(base_url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    with httpx.Client(base_url=base_url, timeout=5) as client:
        while time.monotonic() < deadline:
            if server.poll() is not None:
                break
            with contextlib.suppress(httpx.HTTPError):
                if client.get("/healthz/").status_code == 200:
                    return
            time.sleep(0.2)
    tail = log.read_text(errors="replace")[-3000:]
    raise RuntimeError(f"the server did not become healthy; its log ends with:\n{tail}")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is not None:
        return
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=5)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def stream_backends(database: str) -> int:
    with psycopg.connect(f"host=127.0.0.1 user=postgres dbname={database}") as connection:
        row = connection.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [STREAM_APP]
        ).fetchone()
    return int(row[0]) if row else -1


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


# --- The streams: plain sockets, as light as a client can be ---


@dataclass
class Game:
    """A game of the bench: its owner's session token, and the card its move moves."""

    token: str
    card: str


@dataclass
class Stream:
    game: str
    arrivals: dict[int, list[float]] = field(default_factory=dict)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    writer: asyncio.StreamWriter | None = None


async def open_stream(port: int, token: str, stream: Stream) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    stream.writer = writer
    writer.write(
        (
            f"GET /api/v1/games/{stream.game}/stream/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"X-Session-Token: {token}\r\nAccept: text/event-stream\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"stream refused: {status!r} {await reader.read(500)!r}")
    version: int | None = None
    while True:
        line = await reader.readline()
        if not line:
            return
        # Chunked transfer: chunk sizes arrive as lines of their own and are skipped.
        if line.startswith(b"id: "):
            version = int(line[4:].strip())
        elif line.startswith(b"event: resync"):
            stream.ready.set()
        elif line.startswith(b"event: command") and version is not None:
            stream.arrivals.setdefault(version, []).append(time.monotonic())


# --- The commands ---


@dataclass
class Sent:
    game: str
    version: int
    sent: float
    answered: float


async def play(
    client: httpx.AsyncClient,
    games: dict[str, Game],
    rate: float,
    seconds: float,
) -> tuple[list[Sent], int]:
    """Open loop: one command every 1/rate s, games in turn; a game whose previous command
    is still on its way is skipped (counted)."""
    busy: set[str] = set()
    moved = dict.fromkeys(games, False)
    results: list[Sent] = []
    skipped = 0
    order = list(games)
    tasks: list[asyncio.Task[None]] = []

    async def one(game: str) -> None:
        body = {"type": "undo"} if moved[game] else {"type": "move", "card": games[game].card}
        sent = time.monotonic()
        response = await client.post(
            f"/api/v1/games/{game}/commands/",
            json=body,
            headers={"X-Session-Token": games[game].token},
        )
        answered = time.monotonic()
        busy.discard(game)
        if response.status_code != 200:
            raise RuntimeError(f"command failed: {response.status_code} {response.text[:300]}")
        moved[game] = not moved[game]
        results.append(Sent(game, response.json()["version"], sent, answered))

    start = time.monotonic()
    count = int(rate * seconds)
    for index in range(count):
        await asyncio.sleep(max(0.0, start + index / rate - time.monotonic()))
        game = order[index % len(order)]
        if game in busy:
            skipped += 1
            continue
        busy.add(game)
        tasks.append(asyncio.create_task(one(game)))
    await asyncio.gather(*tasks)
    return results, skipped


def summary(values: list[float]) -> str:
    return (
        f"{percentile(values, 0.5):7.1f} {percentile(values, 0.9):7.1f} "
        f"{percentile(values, 0.99):7.1f} {max(values):7.1f}"
    )


async def measure(
    args: argparse.Namespace, web: str, stream_port: int, pid: int, environment: dict[str, str]
) -> None:
    async with httpx.AsyncClient(base_url=web, timeout=30) as client:
        signup = await client.post(
            "/_allauth/app/v1/auth/signup",
            json={"email": "stream-bench@example.com", "password": "a long password 42"},
        )
        signup.raise_for_status()
        emails = [f"stream-bench-{index}@example.com" for index in range(1, args.games)]
        tokens = [signup.json()["meta"]["session_token"]]
        tokens += mint_session_tokens(ROOT, environment, emails)
        games: dict[str, Game] = {}
        seed = 1000
        for token in tokens:  # each a deal with a move to make (and undo) from the start
            headers = {"X-Session-Token": token}
            while True:
                created = await client.post("/api/v1/games/", json={"seed": seed}, headers=headers)
                game = created.json()
                seed += 1
                path = f"/api/v1/games/{game['id']}/hints/"
                hints = (await client.get(path, headers=headers)).json()
                if hints["moves"]:
                    games[game["id"]] = Game(token, hints["moves"][0]["card"])
                    break

        # Warm up: load the stream code, then measure the process at rest.
        warm = Stream(next(iter(games)))
        task = asyncio.create_task(open_stream(stream_port, games[warm.game].token, warm))
        await asyncio.wait_for(warm.ready.wait(), 30)
        assert warm.writer is not None
        warm.writer.close()
        task.cancel()
        await asyncio.sleep(1)
        before, threads_before = rss_kib(pid), threads(pid)

        spread = zip(range(args.streams), _cycle(games), strict=False)
        streams = [Stream(game) for _, game in spread]
        readers = []
        opened = time.monotonic()
        half = len(streams) // 2
        middle = before
        for batch in range(0, len(streams), 50):
            for stream in streams[batch : batch + 50]:
                token = games[stream.game].token
                readers.append(asyncio.create_task(open_stream(stream_port, token, stream)))
            await asyncio.gather(*(s.ready.wait() for s in streams[batch : batch + 50]))
            if batch + 50 == half:
                await asyncio.sleep(1)
                middle = rss_kib(pid)
        open_seconds = time.monotonic() - opened
        await asyncio.sleep(2)
        after, threads_after = rss_kib(pid), threads(pid)
        backends = stream_backends(args.database)
        per_stream = (after - before) / len(streams)
        print(
            f"\n{len(streams)} streams open on {len(games)} games in {open_seconds:.1f} s "
            f"({len(streams) / open_seconds:.0f}/s). Stream process: VmRSS {before / 1024:.1f} "
            f"MiB before, {after / 1024:.1f} MiB with them open: +{(after - before) / 1024:.1f} "
            f"MiB, {per_stream:.1f} KiB per stream; threads {threads_before} -> "
            f"{threads_after}; PostgreSQL connections held while idle: {backends}. The second "
            f"{len(streams) - half} streams alone: +{(after - middle) / 1024:.1f} MiB, "
            f"{(after - middle) / (len(streams) - half):.1f} KiB per stream (the first ones also "
            f"warm up the allocator and the code they run)."
        )

        print(
            "\n| rate (commands/s) | commands | command latency p50 / p90 / p99 / max (ms) "
            "| fan-out p50 / p90 / p99 / max (ms) | deliveries | missing | duplicated |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for rate in args.rates:
            for stream in streams:
                stream.arrivals.clear()
            results, skipped = await play(client, games, rate, args.seconds)
            await asyncio.sleep(2)
            latencies = [(r.answered - r.sent) * 1000 for r in results]
            fanout: list[float] = []
            missing = duplicated = 0
            by_game: dict[str, list[Stream]] = {}
            for stream in streams:
                by_game.setdefault(stream.game, []).append(stream)
            for result in results:
                for stream in by_game.get(result.game, []):
                    arrivals = stream.arrivals.get(result.version, [])
                    if not arrivals:
                        missing += 1
                        continue
                    duplicated += len(arrivals) - 1
                    fanout.append((arrivals[0] - result.answered) * 1000)
            print(
                f"| {rate:g} | {len(results)} (+{skipped} skipped) | {summary(latencies)} "
                f"| {summary(fanout) if fanout else '-'} | {len(fanout)} | {missing} "
                f"| {duplicated} |"
            )
        for stream in streams:
            if stream.writer is not None:
                stream.writer.close()
        for reader in readers:
            reader.cancel()


def _cycle(games: dict[str, Game]) -> Iterator[str]:
    while True:
        yield from games


def stream_command(port: int) -> list[str]:
    """docker-compose.yml's stream service, on a loopback port."""
    return [
        str(BIN / "uvicorn"),
        "scorpion_site.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--timeout-graceful-shutdown",
        "5",
        "--no-proxy-headers",
        "--no-access-log",
    ]


def web_command(port: int) -> list[str]:
    return [
        str(BIN / "gunicorn"),
        "scorpion_site.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "4",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--rates", type=lambda s: [float(r) for r in s.split(",")], default=[5, 20])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--database", default=DATABASE)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.streams + 256)), hard))

    print(f"$ {shlex.join([Path(sys.executable).name, *sys.argv])}")
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC{source_revision(ROOT)}; "
        f"{machine_description()}; Python {sys.version.split()[0]}; "
        f"PostgreSQL {postgres_version()}; load average {os.getloadavg()[0]:.1f} at the start"
    )
    recreate_database(args.database, create=True)
    environment = service_environment(args.database, args.redis_url)
    environment["STREAM_MAX_PER_USER"] = str(args.streams + 10)
    stream_environment = dict(environment)
    stream_environment["DATABASE_URL"] = (
        PG_URL.format(name=args.database) + f"?application_name={STREAM_APP}"
    )
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=environment,
        check=True,
        capture_output=True,
    )
    web_port, stream_port = free_port(), free_port()
    with tempfile.TemporaryDirectory() as logs:
        web_log, stream_log = Path(logs) / "web.log", Path(logs) / "stream.log"
        with web_log.open("wb") as web_out, stream_log.open("wb") as stream_out:
            web = subprocess.Popen(
                web_command(web_port), cwd=ROOT, env=environment, stdout=web_out, stderr=web_out
            )
            stream = subprocess.Popen(
                stream_command(stream_port),
                cwd=ROOT,
                env=stream_environment,
                stdout=stream_out,
                stderr=stream_out,
            )
            try:
                wait_healthy(f"http://127.0.0.1:{web_port}", web, web_log)
                wait_healthy(f"http://127.0.0.1:{stream_port}", stream, stream_log)
                web_url = f"http://127.0.0.1:{web_port}"
                asyncio.run(measure(args, web_url, stream_port, stream.pid, environment))
            finally:
                stop_server(stream)
                stop_server(web)
                recreate_database(args.database, create=False)
                client = redis.Redis.from_url(args.redis_url)
                # Its own keys: open-stream slots, the cache (throttle counters, sessions) and
                # the analysis tasks that no worker consumes here.
                for pattern in ("scorpion:streams:*", "scorpion:1:*", "celery"):
                    for key in client.scan_iter(match=pattern, count=1000):
                        client.delete(key)
                errors = stream_log.read_text(errors="replace")
                if "Traceback" in errors:
                    print("\nThe stream process logged errors:\n" + errors[-3000:])


if __name__ == "__main__":
    main()
