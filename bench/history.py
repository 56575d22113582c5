"""History reads and undo at depth: does a request cost the same at event 10 and at 20,000?

Run from the repository root with the project's interpreter:
``.venv/bin/python bench/history.py [--depths 10,1000,5000,20000] [--samples 100]``
(``--commit REV`` serves a commit exported with ``git archive``). Only 127.0.0.1 is contacted.

The stack is bench/api.py's (gunicorn with 4 sync workers, ``DEBUG`` off, a Celery worker, a
PostgreSQL database and a private Redis of its own, all stopped and dropped at the end), with
the per-player and per-address throttles raised (one client sends everything here). Games
of each depth are built by a Django script calling ``games.services.game_execute_command``
(what the command endpoint calls, minus HTTP), as move/undo pairs ending on a move, 50
commands per transaction, each game a player's of its own (a player's new game abandons the
last). Then one client, sequentially, interleaving the depths sample by
sample (so the machine's background load falls on all alike), times through the API:

- ``undo`` (each followed by a ``redo``, untimed, so the game keeps its line);
- ``GET`` the game;
- a page of events: ``GET .../events/?after=<version - 10>&limit=10``, the last ten (the
  same size at every depth: the shortest game has about ten);
- ``GET .../states/1/`` (near the start) and ``GET .../states/<v>/`` near the end, ``v`` the
  last version before the end that is 31 events past a snapshot (the most folds there are);
- for information, the streamed export of the whole log (its cost grows with the log by
  design: it is the whole log).

The shortest depth gets a fresh game every 5 samples, so that it stays near its depth. Each
request's median is compared with its median at the shortest depth (aim: within 1.2x).
"""

from __future__ import annotations

import argparse
import platform
import shlex
import signal
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.cpu import (
    cpu_model,
    loadavg,
)
from bench.stack import (
    ROOT,
    Interrupted,
    Player,
    Stack,
    bring_up,
    export_commit,
    on_sigterm,
    postgres_version,
    run_django_script,
    source_revision,
)
from games.history import SNAPSHOT_INTERVAL

AIM = 1.2
PAGE = 10  # events per page: the same at every depth (the shortest game has about 10)
SHORT_SAMPLES_PER_GAME = 5

BUILD_SCRIPT = r"""
import json, sys, time
import django

django.setup()
from importlib import import_module
import itertools

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.db import transaction

from games import services
from games.engine.cards import parse_card
from games.history import Command

job = json.loads(sys.argv[1])
move = Command("move", parse_card(job["card"]))
undo = Command("undo")
store_class = import_module(settings.SESSION_ENGINE).SessionStore
numbers = itertools.count()


# A player of each game's own, with a session token: a player's new game abandons the last,
# so no player can keep two open.
def new_owner():
    email = f"history-{time.time_ns()}-{next(numbers)}@example.com"
    user = User.objects.create_user(username=email, email=email, password=None)
    store = store_class()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return user, store.session_key


def build(events):
    owner, token = new_owner()
    game = services.game_create(
        owner=owner, choice=services.DealChoice(mode="seeded", code=job["code"])
    )
    pairs = events // 2
    for first in range(0, pairs, 25):
        # 50 commands per transaction: the service's own statements run inside it, so the
        # build does not wait for a WAL flush per command.
        with transaction.atomic():
            for _ in range(min(25, pairs - first)):
                services.game_execute_command(owner=owner, game_id=game.id, command=move)
                services.game_execute_command(owner=owner, game_id=game.id, command=undo)
    services.game_execute_command(owner=owner, game_id=game.id, command=move)
    return {"id": str(game.id), "token": token}


started = time.perf_counter()
games = {str(depth): [build(depth) for _ in range(count)] for depth, count in job["games"]}
print("RESULT " + json.dumps({"games": games, "seconds": time.perf_counter() - started}))
"""


def timed(
    client: httpx.Client, method: str, path: str, into: list[float], token: str
) -> httpx.Response:
    started = time.perf_counter()
    body = {"type": "undo"} if method == "POST" else None
    response = client.request(method, path, json=body, headers={"X-Session-Token": token})
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise RuntimeError(f"{method} {path}: {response.status_code} {response.text[:300]}")
    into.append(elapsed * 1000)
    return response


def near_end(version: int) -> int:
    """The last version before ``version`` that is ``SNAPSHOT_INTERVAL - 1`` events past a
    snapshot (or the last one before the end, for a short game)."""
    if version <= SNAPSHOT_INTERVAL:
        return version - 1
    candidate = version - 1
    while candidate % SNAPSHOT_INTERVAL != SNAPSHOT_INTERVAL - 1:
        candidate -= 1
    return candidate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", default="10,1000,5000,20000")
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--database", default="scorpion_bench_history")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--worker-concurrency", type=int, default=2, help="Celery processes")
    parser.add_argument("--commit", help="serve this commit instead of the working tree")
    arguments = parser.parse_args()
    depths = sorted(int(depth) for depth in arguments.depths.split(","))
    if depths[0] < 4 or arguments.samples < 1:
        parser.error("depths of at least 4 events, at least one sample")

    signal.signal(signal.SIGTERM, on_sigterm)
    print(f"command:  {shlex.join(sys.orig_argv)}   (in {Path.cwd()})")
    print(f"date:     {datetime.now(UTC).isoformat(timespec='seconds')}")
    print(
        f"machine:  {platform.system()} {platform.release()} {platform.machine()}, "
        f"{cpu_model()}, load average {loadavg()}"
    )
    print(f"software: CPython {platform.python_version()}, PostgreSQL {postgres_version()}")
    workdir = tempfile.TemporaryDirectory(prefix="scorpion-history-")
    work = Path(workdir.name)
    if arguments.commit:
        tree, revision = export_commit(arguments.commit, work / "tree")
    else:
        tree, revision = ROOT, source_revision(ROOT)
    stack = Stack("history", tree, revision, arguments.database, work)
    # One client sends every request back to back: beyond the per-player rate of the defaults
    # (20 a second). This measures cost per request, not the throttles.
    stack.overrides = {"THROTTLE_USER": "1000000/min", "THROTTLE_IP": "1000000/min"}
    stop = threading.Event()
    try:
        bring_up(stack, arguments, players=1)
        player: Player = stack.players[0]
        print(f"code:     {revision}; gunicorn --workers {arguments.workers}, a Celery worker")
        deal = deal_code_of(player)
        shortest = depths[0]
        counts = [
            (depth, -(-arguments.samples // SHORT_SAMPLES_PER_GAME) if depth == shortest else 1)
            for depth in depths
        ]
        print(f"building games of {', '.join(f'{d:,}' for d in depths)} events ...", flush=True)
        built = run_django_script(
            stack,
            {"code": deal, "card": player.card, "games": counts},
            script=BUILD_SCRIPT,
        )
        print(f"  built in {built['seconds']:.0f} s")
        measure(player.client, built["games"], depths, arguments.samples, stop)
        print()
        print(f"load average at the end {loadavg()}")
    finally:
        stop.set()
        stack.stop()
        workdir.cleanup()


def deal_code_of(player: Player) -> str:
    """The deal code of the player's game (a seeded game from bench/api.py's start_game)."""
    game = player.client.get(f"/api/v1/games/{player.game_id}/").json()
    code: str = game["code"]
    return code


def measure(
    client: httpx.Client,
    games: dict[str, list[dict[str, str]]],
    depths: list[int],
    samples: int,
    stop: threading.Event,
) -> None:
    requests = ("undo", "GET game", "events page", "states near start", "states near end")
    times: dict[tuple[str, int], list[float]] = {(r, d): [] for r in requests for d in depths}
    versions: dict[int, tuple[int, int]] = {}
    for index in range(samples):
        if stop.is_set():
            break
        order = depths if index % 2 == 0 else list(reversed(depths))
        for depth in order:
            pool = games[str(depth)]
            game = pool[min(len(pool) - 1, index // SHORT_SAMPLES_PER_GAME)]
            base, token = f"/api/v1/games/{game['id']}/", game["token"]
            undo: list[float] = times[("undo", depth)]
            timed(client, "POST", base + "commands/", undo, token)
            redo = client.post(
                base + "commands/", json={"type": "redo"}, headers={"X-Session-Token": token}
            )
            version = int(redo.json()["version"])
            versions.setdefault(depth, (version, near_end(version)))
            calls: list[tuple[str, str]] = [
                ("GET game", base),
                ("events page", f"{base}events/?after={max(0, version - PAGE)}&limit={PAGE}"),
                ("states near start", f"{base}states/1/"),
                ("states near end", f"{base}states/{near_end(version)}/"),
            ]
            for name, path in calls:
                timed(client, "GET", path, times[(name, depth)], token)
    print()
    print(
        f"sequential, 1 client, {samples} samples per request and depth, depths interleaved; "
        f"a snapshot every {SNAPSHOT_INTERVAL} events"
    )
    header = "".join(f"{f'{d:,} ev. p50':>15}" for d in depths)
    print(f"{'request':<20}{header}{'worst ratio':>13}")
    verdicts: list[str] = []
    for name in requests:
        medians = [statistics.median(times[(name, d)]) for d in depths]
        ratios = [median / medians[0] for median in medians]
        worst = max(ratios)
        cells = "".join(
            f"{median:>9.2f} ms{'' if i == 0 else f' {ratios[i]:.2f}x'}".rjust(15)
            for i, median in enumerate(medians)
        )
        print(f"{name:<20}{cells}{worst:>12.2f}x")
        verdicts.append(f"{name} {'within' if worst <= AIM else 'OUTSIDE'}")
    deepest = depths[-1]
    print(
        "  states near the end: versions "
        + ", ".join(f"{versions[d][1]:,} of {versions[d][0]:,}" for d in depths if d in versions)
    )
    print(f"aim: each within {AIM}x of its {depths[0]}-event median: " + "; ".join(verdicts))
    export(client, games[str(deepest)][0], deepest)


def export(client: httpx.Client, game: dict[str, str], depth: int) -> None:
    """The whole log of the deepest game, streamed: for information (it grows with the log)."""
    started = time.perf_counter()
    size = 0
    path, headers = f"/api/v1/games/{game['id']}/events/export/", {"X-Session-Token": game["token"]}
    with client.stream("GET", path, headers=headers) as response:
        for chunk in response.iter_bytes():
            size += len(chunk)
    elapsed = time.perf_counter() - started
    print(
        f"for information: GET events/export/ of the ~{depth:,}-event game: {elapsed * 1000:.0f}"
        f" ms, {size / 1024:,.0f} KiB ({size / max(1, depth):.0f} bytes per event), streamed"
    )


if __name__ == "__main__":
    try:
        main()
    except (KeyboardInterrupt, Interrupted):
        print("\ninterrupted: servers stopped, bench database dropped", file=sys.stderr)
        sys.exit(130)
