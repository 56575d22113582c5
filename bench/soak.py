"""Soak: the service as deployed, on several processes, with many players for minutes; then
every game's log is checked against its projection and against what the players were told.

Run from the repository root with the project's interpreter (nginx installed, PostgreSQL on
127.0.0.1; ``redis-server`` on the PATH):
``.venv/bin/python bench/soak.py [--minutes 10] [--players 64] [--web 4] [--workers 2]``
``[--full | --replica --pooler] [--readers 16] [--pool-size N]``
Only 127.0.0.1 is contacted.

The stack (docker-compose.yml's process commands, as tests/ops/test_process_commands.py runs
them natively, with nginx's configuration rendered from deploy/nginx/ the same way):

- ``--web`` (4) gunicorn processes on ports of their own, each with ``--web-workers`` (2) sync
  workers: stateless web processes, as several machines would run them;
- the stream process (uvicorn: the live streams), a Celery beat and ``--workers`` (2) Celery
  worker processes (``--concurrency 1`` each);
- nginx in front of them all, one upstream server per web process;
- PostgreSQL (a database of its own, dropped at the end) and a private ``redis-server`` (on a
  free port, stopped at the end).

With ``--replica`` or ``--pooler`` (``--full``: both) the database is on a PostgreSQL primary
of the soak's own instead (bench/pg_pair.py: ``initdb`` in a temporary directory, thrown away at
the end; PostgreSQL's programs needed), with ``--replica`` its streaming replica
(``pg_basebackup -R``) as ``DATABASE_REPLICA_URL``, and with ``--pooler`` PgBouncer (Debian's
``pgbouncer``, deploy/pgbouncer/pgbouncer.ini; ``--pool-size`` server connections per database,
the file's 20 by default) between every process and both servers, ``DATABASE_POOLER=pgbouncer``.
With a replica, ``--readers`` (16) more players play short games and between them browse what
may lag (bench/soak_players.py ``Reader``). It then also prints the share of reads the replica
served, each server's CPU and PgBouncer's client and server connections (bench/soak_db.py says
how each is counted).

The app is told it sits behind two proxies (``NUM_PROXIES=2``: a load balancer, simulated by
the players' own ``X-Forwarded-For``, then nginx), so that each player has an address of its
own and the default throttle rates apply per player, as in production.

Each of ``--players`` (64) simulated players is a thread that plays one game after another:
mostly moves (a legal move chosen at random, or a deal), and sometimes an undo, a redo, hints,
the game, a page of events or a page of states; in a dead end it mostly undoes and tries another
line; it resigns after a random number of commands (40-160) or when stuck for good, then starts
a new game. Between two requests it thinks for a
random time (``--think``, mean seconds, exponentially distributed). Every command carries
``expected_version`` and an ``Idempotency-Key``, and a request whose answer was lost (a
transport error) is sent again with the same key: what the player was told is then exact.
``--followers`` (16) of the players also follow each of their games on its live stream
(``GET .../stream/?since=0`` through nginx to the stream process) until its ``end``.

Afterwards, from the database (bench/soak_check.py):

- every game's events are exactly seq 1..version (nothing lost, nothing doubled);
- folding its events from the deal gives exactly its stored projection (``Game.state``), and
  every stored snapshot equals the fold at its version;
- every command a player was answered 200 for is in its game's log, at the seq and of the type
  it was told, and the log holds no event the players were not told of (beyond commands whose
  every attempt lost its answer);
- every game a player created exists once;
- every followed game's stream sent its log's events in order, each once (all of them for a
  game followed to its end);
- no answer was a 5xx.

It prints the throughput, latency percentiles (p50/p90/p99 per request kind and overall), the
CPU each part of the stack used per request, the storage per event and per game, and the load
average; it exits with status 1 if a check failed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import pwd
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.cpu import TICK, cpu_model, loadavg, machine_ticks, pid_ticks, process_tree_ticks
from bench.load import percentile
from bench.soak_check import check
from bench.soak_db import Database, running
from bench.soak_players import Follower, Player, Reader, Record, Streamed
from bench.stack import (
    DJANGO_SCRIPT,
    PG_ADMIN,
    ROOT,
    Interrupted,
    Stack,
    free_port,
    on_sigterm,
    postgres_version,
    recreate_database,
    run_django_script,
    run_manage,
    service_environment,
    source_revision,
    start_redis,
)
from tests.ops.compose import operator_shell, render_nginx, service, service_env

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
BIN = Path(sys.executable).parent

# --- The stack ---


def nginx_command(prefix: Path, conf: Path) -> list[str]:
    """nginx as the current user, its pid and temporary files in ``prefix`` (as in
    tests/ops/test_process_commands.py)."""
    directives = f"daemon off; pid {prefix / 'nginx.pid'};"
    if os.geteuid() == 0:
        directives += f" user {pwd.getpwuid(os.geteuid()).pw_name};"
    return [NGINX, "-p", str(prefix), "-c", str(conf), "-e", "stderr", "-g", directives]


def compose_command(name: str, **replace: str) -> list[str]:
    """A compose service's command, with some arguments' values replaced and the programs
    taken from this interpreter's environment."""
    command = [str(part) for part in service(name)["command"]]
    for index, part in enumerate(command):
        if part in replace and index + 1 < len(command):
            command[index + 1] = replace[part]
    for option, value in replace.items():
        if option.startswith("--") and "=" in option:  # "--concurrency=": a joined option
            command = [f"{option}{value}" if part.startswith(option) else part for part in command]
    if command[0] in ("gunicorn", "uvicorn", "celery"):
        command[0] = str(BIN / command[0])
    return command


def wait_http(url: str, process: subprocess.Popen[bytes], log: Path, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    with httpx.Client(timeout=5) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            with contextlib.suppress(httpx.HTTPError):
                if client.get(url).status_code == 200:
                    return
            time.sleep(0.2)
    raise RuntimeError(f"{url} never answered; {log.name} ends with:\n{log.read_text()[-3000:]}")


@dataclass
class Soak:
    stack: Stack
    database: Database | None = None
    web_ports: list[int] = field(default_factory=list)
    proxy_port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.proxy_port}"


def bring_up(soak: Soak, arguments: argparse.Namespace) -> None:
    stack = soak.stack
    start_redis(stack)
    stack.environment = service_environment(stack)
    stack.environment.update(
        NUM_PROXIES="2",  # a load balancer (the players' X-Forwarded-For), then nginx
        STATIC_ROOT=str(stack.workdir / "static"),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        # One connection per worker process, as deployed (CONN_MAX_AGE's default).
    )
    if soak.database is not None:
        stack.environment.update(soak.database.environment())
    recreate_database(stack.database, create=True, admin=stack.admin_dsn)
    for command in ("migrate", "collectstatic"):
        run_manage(stack, command, "--noinput")
    for index in range(arguments.web):
        port = free_port()
        soak.web_ports.append(port)
        stack.start(
            f"web{index}",
            compose_command(
                "web", **{"--bind": f"127.0.0.1:{port}", "--workers": str(arguments.web_workers)}
            ),
        )
    stream_port = free_port()
    stack.start(
        "stream", compose_command("stream", **{"--host": "127.0.0.1", "--port": str(stream_port)})
    )
    for index in range(arguments.workers):
        stack.start(
            f"worker{index}",
            [
                *compose_command("worker", **{"--concurrency=": "1", "--loglevel=": "WARNING"}),
                "--hostname",
                f"soak{index}-{secrets.token_hex(3)}@%h",
            ],
        )
    stack.start(
        "beat",
        compose_command(
            "beat",
            **{
                "--schedule=": str(stack.workdir / "celerybeat-schedule"),
                "--loglevel=": "WARNING",
            },
        ),
    )
    # nginx, rendered from the compose proxy's environment as the image's entrypoint does; one
    # upstream server per web process (the template's one `server ${SCORPION_UPSTREAM};`).
    prefix = stack.workdir / "nginx"
    (prefix / "temp").mkdir(parents=True)
    variables = service_env("proxy", operator_shell())
    soak.proxy_port = free_port()
    variables.update(
        SCORPION_UPSTREAM="; server ".join(f"127.0.0.1:{port}" for port in soak.web_ports),
        SCORPION_STREAM_UPSTREAM=f"127.0.0.1:{stream_port}",
        HTTP_LISTEN=f"127.0.0.1:{soak.proxy_port}",
        HTTPS_LISTEN=f"127.0.0.1:{free_port()}",
        STATIC_ROOT=str(stack.workdir / "static"),
        NGINX_TEMP=str(prefix / "temp"),
        TLS_CERTIFICATE=str(prefix / "cert.pem"),
        TLS_CERTIFICATE_KEY=str(prefix / "key.pem"),
        TLS="off",
    )
    conf = render_nginx(prefix / "conf", variables)
    nginx = stack.start("nginx", nginx_command(prefix, conf))
    for index, port in enumerate(soak.web_ports):
        web = stack.processes[f"web{index}"]
        wait_http(f"http://127.0.0.1:{port}/healthz/", web, stack.log(f"web{index}"))
    wait_http(
        f"http://127.0.0.1:{stream_port}/healthz/", stack.processes["stream"], stack.log("stream")
    )
    wait_http(f"{soak.base_url}/healthz/", nginx, stack.log("nginx"))


# --- CPU ---


def cpu_ticks(soak: Soak) -> dict[str, int]:
    ticks: Counter[str] = Counter()
    for name, process in soak.stack.processes.items():
        group = name.rstrip("0123456789")
        ticks[group] += process_tree_ticks(process.pid)
    busy, _steal = machine_ticks()
    ticks["machine"] = busy
    if soak.database is not None:  # servers of the soak's own: everything they ran
        ticks.update(soak.database.ticks())
        return dict(ticks)
    with psycopg.connect(PG_ADMIN, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (soak.stack.database,)
        ).fetchall()
    ticks["postgres"] = sum(pid_ticks(int(pid)) for (pid,) in rows)
    return dict(ticks)


# --- Main ---


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--web", type=int, default=4, help="gunicorn processes")
    parser.add_argument("--web-workers", type=int, default=2, help="sync workers per process")
    parser.add_argument("--workers", type=int, default=2, help="Celery worker processes")
    parser.add_argument("--followers", type=int, default=16, help="players followed live")
    parser.add_argument("--think", type=float, default=0.25, help="mean think time, seconds")
    parser.add_argument("--database", default="scorpion_soak")
    parser.add_argument("--replica", action="store_true", help="a streaming replica of its own")
    parser.add_argument("--pooler", action="store_true", help="PgBouncer in front")
    parser.add_argument("--full", action="store_true", help="--replica and --pooler")
    parser.add_argument("--pool-size", type=int, default=None, help="PgBouncer's, per database")
    parser.add_argument(
        "--readers",
        type=int,
        default=None,
        help="players browsing between games (16 with a replica)",
    )
    arguments = parser.parse_args()
    arguments.replica |= arguments.full
    arguments.pooler |= arguments.full
    if arguments.readers is None:
        arguments.readers = 16 if arguments.replica else 0
    if arguments.minutes <= 0 or arguments.players < 1 or arguments.web < 1:
        parser.error("--minutes, --players and --web must be positive")
    if not Path(NGINX).exists():
        raise SystemExit("nginx is needed (apt-get install nginx)")

    signal.signal(signal.SIGTERM, on_sigterm)
    print(f"command:  {shlex.join(sys.orig_argv)}   (in {Path.cwd()})")
    print(f"date:     {datetime.now(UTC).isoformat(timespec='seconds')}")
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    print(
        f"machine:  {platform.system()} {platform.release()}, nproc {affinity}, {cpu_model()}, "
        f"load average {loadavg()}; PostgreSQL {postgres_version()}"
    )
    workdir = tempfile.TemporaryDirectory(prefix="scorpion-soak-")
    stack = Stack(
        name="soak",
        tree=ROOT,
        revision=source_revision(ROOT),
        database=arguments.database,
        workdir=Path(workdir.name),
    )
    soak = Soak(stack)
    stop = threading.Event()
    resources = contextlib.ExitStack()
    try:
        if arguments.replica or arguments.pooler:
            soak.database = resources.enter_context(
                running(
                    name=arguments.database,
                    replica=arguments.replica,
                    pooler=arguments.pooler,
                    pool_size=arguments.pool_size,
                )
            )
            stack.admin_dsn = soak.database.admin_dsn
        bring_up(soak, arguments)
        database = soak.database.describe() if soak.database else "PostgreSQL"
        print(
            f"stack:    nginx -> {arguments.web} gunicorn processes x {arguments.web_workers} "
            f"sync workers, stream (uvicorn), {arguments.workers} Celery workers "
            f"(concurrency 1), beat; {database}, redis-server; code {ROOT} "
            f"{stack.revision.strip()}"
        )
        count = arguments.players + arguments.readers
        emails = [f"soak-{secrets.token_hex(3)}-{index}@example.com" for index in range(count)]
        tokens = run_django_script(stack, {"emails": emails}, script=DJANGO_SCRIPT)["tokens"]
        players = [
            (Player if index < arguments.players else Reader)(
                index, token, soak.base_url, arguments
            )
            for index, token in enumerate(tokens)
        ]
        followers = [
            Follower(player, tokens[player.index], soak.base_url)
            for player in players[: arguments.followers]
        ]
        print(
            f"players:  {len(players)}, think time {arguments.think} s on average, for "
            f"{arguments.minutes:g} min; {len(followers)} of them followed on their live "
            f"streams; {arguments.readers} of them readers between short games; load average "
            f"{loadavg()}"
        )
        if soak.database is not None:
            soak.database.prepare()
        before = cpu_ticks(soak)
        started = time.monotonic()
        until = started + arguments.minutes * 60
        threads = [
            threading.Thread(target=player.run, args=(until, stop), daemon=True)
            for player in players
        ]
        for follower in followers:
            threading.Thread(target=follower.run, args=(until,), daemon=True).start()
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads):
            time.sleep(min(30.0, max(0.5, until - time.monotonic())))
            if time.monotonic() < until:
                done = sum(sum(len(v) for v in p.record.latencies.values()) for p in players)
                print(
                    f"  {time.monotonic() - started:5.0f} s: {done:,} requests, "
                    f"load average {loadavg()}",
                    flush=True,
                )
        wall = time.monotonic() - started
        after = cpu_ticks(soak)
        load_at_end = loadavg()
        record = Record()
        for player in players:
            record.merge(player.record)
        streamed = Streamed()
        for follower in followers:
            with follower.lock:
                streamed.add(follower)
        used, requests = report(record, streamed, wall, before, after, load_at_end)
        if soak.database is not None:
            soak.database.report(wall=wall, used=used, requests=requests)
        passed = check(stack, record, streamed, emails)
        print()
        print(f"load average at the end {loadavg()}")
        if not passed:
            raise SystemExit(1)
    finally:
        stop.set()
        stack.stop()
        resources.close()
        workdir.cleanup()


def report(
    record: Record,
    streamed: Streamed,
    wall: float,
    before: dict[str, int],
    after: dict[str, int],
    load: str,
) -> tuple[dict[str, float], int]:
    requests = sum(len(values) for values in record.latencies.values())
    commands = sum(
        len(record.latencies.get(kind, [])) for kind in ("move", "undo", "other command")
    )
    everything = sorted(value for values in record.latencies.values() for value in values)
    print()
    print(
        f"Throughput: {requests:,} requests in {wall:.0f} s = {requests / wall:.1f} req/s, "
        f"of which commands {commands / wall:.1f}/s; load average during: {load}"
    )
    print(f"{'request':<16}{'count':>9}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    rows = sorted(record.latencies.items(), key=lambda item: -len(item[1]))
    for kind, values in [*rows, ("all", everything)]:
        ordered = sorted(values)
        print(
            f"{kind:<16}{len(ordered):>9,}{percentile(ordered, 0.5):>9.1f}"
            f"{percentile(ordered, 0.9):>9.1f}{percentile(ordered, 0.99):>9.1f}"
            f"{(ordered[-1] if ordered else float('nan')):>9.1f}"
        )
    statuses = ", ".join(
        f"{status}: {count:,}" for status, count in sorted(record.statuses.items())
    )
    fives = sum(count for status, count in record.statuses.items() if status.startswith("5"))
    print(f"statuses: {statuses}; 5xx: {fives}; transport errors: {record.transport_errors}")
    for example in record.examples:
        print(f"  e.g. {example}")
    used = {name: (after.get(name, 0) - before.get(name, 0)) / TICK for name in after}
    parts = ", ".join(
        f"{name} {seconds / wall:.2f}"
        for name, seconds in sorted(used.items())
        if name != "machine"
    )
    print(f"CPU, cores busy on average: {parts}; the whole machine {used['machine'] / wall:.2f}")
    web = used.get("web", 0.0) + used.get("nginx", 0.0)
    print(
        f"CPU per request: web processes {used.get('web', 0.0) * 1000 / max(requests, 1):.2f} ms, "
        f"nginx {used.get('nginx', 0.0) * 1000 / max(requests, 1):.2f} ms, PostgreSQL backends "
        f"{used.get('postgres', 0.0) * 1000 / max(requests, 1):.2f} ms, Celery workers "
        f"{used.get('worker', 0.0) * 1000 / max(requests, 1):.2f} ms "
        f"(web + nginx {web * 1000 / max(requests, 1):.2f} ms)"
    )
    stream_cpu = used.get("stream", 0.0)
    print(
        f"Live streams: {streamed.events:,} events received on {len(streamed.received)} games' "
        f"streams ({len(streamed.ended)} followed to their end); the stream process used "
        f"{stream_cpu * 1000 / max(streamed.events, 1):.2f} ms of CPU per event delivered"
    )
    for error in streamed.errors:
        print(f"  stream error: {error}")
    if fives:
        print(f"FAILED: {fives} answers were 5xx")
    return used, requests


if __name__ == "__main__":
    try:
        main()
    except (KeyboardInterrupt, Interrupted):
        print("\ninterrupted: stack stopped, soak database dropped", file=sys.stderr)
        sys.exit(130)
