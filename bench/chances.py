"""Winning chances as players get them: from a pause to a ready answer, on the stack as
docker-compose.yml runs it, with open-loop arrivals.

Run from the repository root with the project's interpreter:
``.venv/bin/python bench/chances.py [--rate 0.5] [--seconds 60] [--players 40]
[--variant scorpion] [--finish-rate 0] [--request-ms 300]``. Only 127.0.0.1 is contacted.

The stack is docker-compose.yml's own process commands, read from the file: gunicorn (``web``),
the default queue's worker (``worker``), the hints queue's worker (``worker-hints``, which
computes the chances and the analyses) and beat (``beat``, whose heartbeats tell the web
processes that a worker consumes the hints queue, so that chances go to it rather than being
computed in the request), with their default settings and limits, a PostgreSQL database and a
private redis-server of the bench's own (dropped and stopped at the end).

Each player has a game of ``--variant`` from a fixed seed, played for 0-11 moves along its
hints. A *pause* arrives every ``1 / --rate`` seconds, whatever the answers' speed (open
loop), at the next player with no pause of its own in flight: the player plays its next move
(the first hint), then pauses (``POST /chances/``, as the web client does), then asks
(``GET /chances/``) every ``--poll`` seconds until the answer is ready (200): 2 s by default, as
the web client does after a pending answer's ``Retry-After``. The latency is from the pause to
the first ready answer: the time a player waits for chances after a move (a pause answered by
its own request counts its request's time). With ``--finish-rate R``, other players also
finish a game (resign) R times a second, and each finished game's analysis goes to the same
worker: the load a busy service adds. ``--request-ms`` sets ``CHANCES_REQUEST_MS`` (0: every
answer computed by the worker, as before the setting existed).

Prints the command, date, machine and commit, then the pauses answered, the latency's median,
p90, p99 and max, the samples an answer rests on, how many pauses their own request answered,
the CPU of the hints worker and of gunicorn per answer, and the hints queue's length at the
end.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shlex
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import redis
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.cpu import (
    TICK,
    loadavg,
    process_tree_ticks,
)
from bench.load import (
    percentile,
)
from bench.machine import machine_description
from bench.stack import (
    ROOT,
    Interrupted,
    Player,
    Stack,
    free_port,
    make_players,
    migrate_fresh,
    on_sigterm,
    source_revision,
    start_redis,
    wait_healthy,
)
from infrastructure.queues import HINTS_QUEUE

COMPOSE_SERVICES = ("web", "worker", "worker-hints", "beat")
FIRST_SEED = 5_000
MAX_OPENING_MOVES = 12


def compose_commands() -> dict[str, list[str]]:
    """The process commands docker-compose.yml gives the web process, the workers and beat."""
    spec = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return {name: list(spec["services"][name]["command"]) for name in COMPOSE_SERVICES}


def native(command: list[str], *, port: int, workdir: Path) -> list[str]:
    """A compose command run here: the virtualenv's programs, a local port, a private beat file."""
    program, *arguments = command
    arguments = [
        argument.replace("0.0.0.0:8000", f"127.0.0.1:{port}").replace(
            "/tmp/celerybeat-schedule", str(workdir / "celerybeat-schedule")
        )
        for argument in arguments
    ]
    return [str(Path(sys.executable).parent / program), *arguments]


def bring_up(stack: Stack, players: int) -> None:
    start_redis(stack)
    migrate_fresh(stack)
    port = free_port()
    stack.base_url = f"http://127.0.0.1:{port}"
    commands = compose_commands()
    server = stack.start("gunicorn", native(commands["web"], port=port, workdir=stack.workdir))
    for name in COMPOSE_SERVICES[1:]:
        stack.start(name, native(commands[name], port=port, workdir=stack.workdir))
    wait_healthy(stack, server)
    # Chances go to a worker only once its heartbeat has been seen (infrastructure.liveness).
    deadline = time.monotonic() + 150
    with httpx.Client(base_url=stack.base_url, timeout=5) as client:
        while client.get("/healthz/workers/").status_code != 200:
            if time.monotonic() > deadline:
                raise RuntimeError("the workers' heartbeats were not seen within 150 s")
            time.sleep(1)
    stack.players = make_players(stack, players)


# --- Players and their games ---


class Seeds:
    """The next seed for a new game, for any thread."""

    def __init__(self, first: int) -> None:
        self._next = first
        self._lock = threading.Lock()

    def take(self) -> int:
        with self._lock:
            value = self._next
            self._next += 1
            return value


@dataclass
class Seat:
    """A player of the bench, with its game; ``busy`` while a pause of its own is in flight."""

    player: Player
    seed: int
    busy: bool = False


def new_game(seat: Seat, variant: str, seeds: Seeds) -> None:
    seat.seed = seeds.take()
    created = seat.player.client.post(
        "/api/v1/games/", json={"seed": seat.seed, "variant": variant}
    )
    created.raise_for_status()
    seat.player.game_id = created.json()["id"]


def play_first_hint(seat: Seat) -> bool:
    """Play the first hinted move; False if there is none (the game is stuck or over)."""
    game = f"/api/v1/games/{seat.player.game_id}/"
    hints = seat.player.client.get(game + "hints/")
    if hints.status_code != 200 or not hints.json()["moves"]:
        return False
    move = hints.json()["moves"][0]
    body = {"type": "move", "card": move["card"], "to": move["to"], "from": move["from"]}
    played = seat.player.client.post(game + "commands/", json=body)
    return played.status_code == 200 and played.json()["status"] == "playing"


def seat_players(
    players: list[Player], variant: str, seeds: Seeds, rng: random.Random
) -> list[Seat]:
    seats = []
    for player in players:
        seat = Seat(player, 0)
        new_game(seat, variant, seeds)
        for _ in range(rng.randrange(MAX_OPENING_MOVES)):
            if not play_first_hint(seat):
                new_game(seat, variant, seeds)
                break
        seats.append(seat)
    return seats


# --- Measurement ---


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)  # pause -> ready, seconds
    samples: list[int] = field(default_factory=list)
    at_once: int = 0  # answered by the pause's own request (CHANCES_REQUEST_MS)
    no_free_player: int = 0
    errors: list[str] = field(default_factory=list)
    finished: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, what: str) -> None:
        with self.lock:
            self.errors.append(what)


def pause(
    seat: Seat, variant: str, seeds: Seeds, poll: float, give_up: float, out: Figures
) -> None:
    try:
        if not play_first_hint(seat):
            new_game(seat, variant, seeds)
        chances = f"/api/v1/games/{seat.player.game_id}/chances/"
        started = time.perf_counter()
        asked = seat.player.client.post(chances)
        if asked.status_code != 202:
            out.fail(f"POST chances {asked.status_code} {asked.text[:200]}")
            return
        if asked.json()["status"] == "ready":
            with out.lock:
                out.at_once += 1
        while time.perf_counter() - started < give_up:
            answer = seat.player.client.get(chances)
            if answer.status_code == 200:
                with out.lock:
                    out.latencies.append(time.perf_counter() - started)
                    out.samples.append(int(answer.json()["samples"]))
                return
            if answer.status_code != 202:
                out.fail(f"GET chances {answer.status_code} {answer.text[:200]}")
                return
            time.sleep(poll)
        out.fail(f"no answer within {give_up:.0f} s")
    except httpx.HTTPError as error:
        out.fail(f"{type(error).__name__}: {error}")
    finally:
        seat.busy = False


def finish_one(seat: Seat, seeds: Seeds, out: Figures) -> None:
    """A game played a little, then resigned: its analysis goes to the hints worker."""
    try:
        new_game(seat, "scorpion", seeds)
        play_first_hint(seat)
        game = f"/api/v1/games/{seat.player.game_id}/"
        resigned = seat.player.client.post(game + "commands/", json={"type": "resign"})
        if resigned.status_code == 200:
            with out.lock:
                out.finished += 1
        else:
            out.fail(f"resign {resigned.status_code} {resigned.text[:200]}")
    except httpx.HTTPError as error:
        out.fail(f"{type(error).__name__}: {error}")
    finally:
        seat.busy = False


def open_loop(
    seats: list[Seat],
    finishers: list[Seat],
    arguments: argparse.Namespace,
    seeds: Seeds,
    out: Figures,
) -> float:
    """Pauses (and finished games) at fixed rates for ``--seconds``; returns the wall time."""
    arrivals: list[tuple[float, str]] = [
        (index / arguments.rate, "pause")
        for index in range(int(arguments.seconds * arguments.rate))
    ]
    if arguments.finish_rate > 0:
        count = int(arguments.seconds * arguments.finish_rate)
        arrivals += [(index / arguments.finish_rate, "finish") for index in range(count)]
    arrivals.sort()
    give_up = arguments.seconds + arguments.give_up
    workers = len(seats) + len(finishers)
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        turn = {"pause": 0, "finish": 0}
        for offset, kind in arrivals:
            delay = started + offset - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            group = seats if kind == "pause" else finishers
            seat = None
            for step in range(len(group)):
                candidate = group[(turn[kind] + step) % len(group)]
                if not candidate.busy:
                    seat = candidate
                    turn[kind] = (turn[kind] + step + 1) % len(group)
                    break
            if seat is None:
                out.no_free_player += 1
                continue
            seat.busy = True
            if kind == "pause":
                pool.submit(pause, seat, arguments.variant, seeds, arguments.poll, give_up, out)
            else:
                pool.submit(finish_one, seat, seeds, out)
    return time.perf_counter() - started


def describe(out: Figures, sent: int, worker_cpu: float, web_cpu: float, waiting: int) -> None:
    latencies = sorted(out.latencies)
    answered = len(latencies)
    print(
        f"pauses sent {sent}, answered {answered}, errors {len(out.errors)}, "
        f"skipped for want of a free player {out.no_free_player}"
    )
    if out.finished:
        print(f"games finished (each an analysis for the hints worker): {out.finished}")
    if latencies:
        median, p90 = statistics.median(latencies), percentile(latencies, 0.90)
        p99, worst = percentile(latencies, 0.99), latencies[-1]
        print(
            f"pause -> chances ready: median {median:.2f} s, p90 {p90:.2f} s, "
            f"p99 {p99:.2f} s, max {worst:.2f} s"
        )
        print(
            f"samples an answer rests on: median {statistics.median(out.samples):.0f}, "
            f"min {min(out.samples)}"
        )
        print(f"answered by the pause's own request: {out.at_once}; the rest by the hints worker")
        print(
            f"CPU per answered pause: hints worker {worker_cpu / answered:.2f} s (analyses "
            f"included; {worker_cpu:.1f} s in all), gunicorn {web_cpu / answered:.2f} s "
            f"({web_cpu:.1f} s in all)"
        )
    print(f"hints queue waiting at the end: {waiting}")
    for example in out.errors[:5]:
        print(f"  error: {example}")


@contextlib.contextmanager
def stack_running(stack: Stack) -> Iterator[Stack]:
    try:
        yield stack
    finally:
        stack.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=0.5, help="pauses a second")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long pauses arrive")
    parser.add_argument("--players", type=int, default=40, help="players who pause")
    parser.add_argument("--variant", default="scorpion")
    parser.add_argument(
        "--poll", type=float, default=2.0, help="seconds between GETs (Retry-After: 2)"
    )
    parser.add_argument(
        "--give-up", type=float, default=300.0, help="seconds past the arrivals to wait"
    )
    parser.add_argument(
        "--finish-rate", type=float, default=0.0, help="games finished a second (analyses)"
    )
    parser.add_argument(
        "--request-ms",
        type=int,
        help="CHANCES_REQUEST_MS for the stack (its default unless given; 0: all to the worker)",
    )
    parser.add_argument("--database", default="scorpion_bench_chances")
    parser.add_argument("--seed", type=int, default=0, help="the openings' random moves")
    arguments = parser.parse_args()
    if arguments.rate <= 0 or arguments.seconds <= 0 or arguments.players < 1:
        parser.error("--rate, --seconds and --players must be positive")
    if arguments.finish_rate < 0 or arguments.poll <= 0:
        parser.error("--finish-rate must be 0 or more, --poll positive")

    # SIGTERM unwinds like Ctrl-C, so the stack's processes and database go with the bench.
    signal.signal(signal.SIGTERM, on_sigterm)
    print(f"command:  {shlex.join(sys.orig_argv)}   (in {Path.cwd()})")
    print(f"date:     {datetime.now(UTC).isoformat(timespec='seconds')}")
    print(f"machine:  {machine_description()}, load average {loadavg()}")
    finishers_count = max(1, int(arguments.finish_rate * 20)) if arguments.finish_rate else 0
    with tempfile.TemporaryDirectory(prefix="scorpion-bench-chances-") as workdir:
        stack = Stack("chances", ROOT, source_revision(ROOT), arguments.database, Path(workdir))
        if arguments.request_ms is not None:
            stack.overrides["CHANCES_REQUEST_MS"] = str(arguments.request_ms)
        with stack_running(stack):
            bring_up(stack, arguments.players + finishers_count)
            print(
                f"stack:    {stack.revision}; docker-compose.yml's web, worker, worker-hints and "
                f"beat commands, default settings"
                + (
                    f" but CHANCES_REQUEST_MS={arguments.request_ms}"
                    if arguments.request_ms is not None
                    else ""
                )
                + f"; {arguments.players} players pausing"
                + (f", {finishers_count} finishing games" if finishers_count else "")
            )
            shared_seeds = Seeds(FIRST_SEED)
            rng = random.Random(arguments.seed)
            seats = seat_players(
                stack.players[: arguments.players], arguments.variant, shared_seeds, rng
            )
            finishers = [Seat(player, 0) for player in stack.players[arguments.players :]]
            hints_worker = stack.processes["worker-hints"].pid
            web = stack.processes["gunicorn"].pid
            cpu_before = process_tree_ticks(hints_worker)
            web_before = process_tree_ticks(web)
            out = Figures()
            wall = open_loop(seats, finishers, arguments, shared_seeds, out)
            # The hints worker may still be at work on an analysis: let the queue drain.
            broker = redis.Redis.from_url(stack.redis_url)
            waiting = int(broker.llen(HINTS_QUEUE))
            worker_cpu = (process_tree_ticks(hints_worker) - cpu_before) / TICK
            web_cpu = (process_tree_ticks(web) - web_before) / TICK
            print(f"wall time {wall:.0f} s (arrivals for {arguments.seconds:.0f} s)")
            describe(out, int(arguments.seconds * arguments.rate), worker_cpu, web_cpu, waiting)
    print(f"load average at the end {loadavg()}")


if __name__ == "__main__":
    try:
        main()
    except (KeyboardInterrupt, Interrupted):
        print("\ninterrupted: the stack stopped, its database dropped", file=sys.stderr)
        sys.exit(130)
