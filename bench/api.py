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
import os
import platform
import shlex
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.cpu import (
    CpuMeter,
    CpuUse,
    cpu_model,
    loadavg,
)
from bench.load import Operation, Samples, closed_slot, open_slot, percentile, send
from bench.stack import (
    PG_URL,
    ROOT,
    SIGNUPS,
    Interrupted,
    Player,
    Stack,
    bring_up,
    export_commit,
    on_sigterm,
    postgres_version,
    source_revision,
)

AIM_MOVE_OVER_FLOOR = 1.3
AIM_OPEN_P99_MS = 50.0


# --- Players ---


# --- Measurement ---


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

    signal.signal(signal.SIGTERM, on_sigterm)
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
