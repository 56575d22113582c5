"""The event log plain and partitioned by hash of the game, side by side: inserts and reads at
1 million events, and the migration that moves them (games 0021, docs/scaling.md).

Run from the repository root with the project's interpreter, PostgreSQL on 127.0.0.1:5432::

    .venv/bin/python bench/partition.py [--events 1000000] [--games 20000] [--appends 2000]
        [--samples 500] [--database scorpion_bench_partition]

Two databases of its own, ``DATABASE`` and ``DATABASE_plain`` (dropped and created, dropped
again at the end), both migrated, the second taken back to games 0020: the same games (same
ids, so the same partitions) and the same work in each, interleaved step by step so that the
machine's background load falls on both alike. Nothing else is contacted.

- **load**: ``--events`` events across ``--games`` games, written as traffic writes them: one
  round per ``seq``, each an ``INSERT ... SELECT`` of one event for every game (server-side
  rows, each with an idempotency key, so the timing is the table's and its indexes'), plus the
  snapshot of every game at each multiple of ``SNAPSHOT_INTERVAL``;
- **append**: ``--appends`` times the service's own one-statement append
  (``games.services.commands._append_statement``: the game's compare-and-set and the event's
  insert), on random games, each statement its own transaction as a command's is;
- **reads**, ``--samples`` each, on random games, through the ORM as the selectors read: a
  game's whole log, a page of 10 events, its latest ``seq``, its nearest snapshot, and one
  event by id alone (the admin's lookup: the one read no partition can be pruned for); a
  tenth of them also under ``EXPLAIN ANALYZE`` (the server's planning and execution time);
- **migration**: the plain database migrated forward (its rows moved into the partitions) and
  back, each timed, the rows counted after each.

Figures are wall-clock times in this process (the ORM's own cost is the same on both sides).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import shlex
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cpu import cpu_model, loadavg  # noqa: E402
from bench.stack import PG_URL, postgres_version, recreate_database  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_site.settings")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "partition-bench-" + "k" * 50)
os.environ.setdefault("DAILY_DEAL_SECRET", "partition-bench-daily-" + "d" * 40)
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("EMAIL_URL", "consolemail://")
os.environ.setdefault("LOG_LEVEL", "ERROR")

SIDES = ("plain", "partitioned")
ALIAS = {"plain": "plain", "partitioned": "default"}
BEFORE, AFTER = "0020_game_fair_play", "0021_partitioned_event_log"
PAGE = 10
# A move's record as the engine writes it (about 100 bytes of JSON).
PAYLOAD = '{"card": 37, "from": 4, "to": 6, "count": 3, "revealed": 12, "completed": false}'


def setup(database: str) -> None:
    """Django, with the second database beside the first and no router (the project's sends
    every write to ``default``)."""
    os.environ["DATABASE_URL"] = PG_URL.format(name=database)
    import django
    from django.conf import settings

    default = settings.DATABASES["default"]
    settings.DATABASES["plain"] = {**default, "NAME": f"{database}_plain"}
    settings.DATABASE_ROUTERS = []
    django.setup()


def execute(alias: str, statement: str, params: list[Any] | None = None) -> None:
    from django.db import connections

    with connections[alias].cursor() as cursor:
        cursor.execute(statement, params)


def scalar(alias: str, statement: str, params: list[Any] | None = None) -> Any:
    from django.db import connections

    with connections[alias].cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchone()[0]


def timed(work: Callable[..., Any], *arguments: Any, **keywords: Any) -> float:
    start = time.perf_counter()
    work(*arguments, **keywords)
    return time.perf_counter() - start


def make_games(games: int) -> list[uuid.UUID]:
    from django.contrib.auth.models import User

    from games.engine.deals import deal_code_for_seed
    from games.models import Game
    from games.variants import deal_state

    rng = random.Random(28)
    ids = [uuid.UUID(int=rng.getrandbits(128), version=4) for _ in range(games)]
    deals = [deal_code_for_seed(seed) for seed in range(10)]
    states = [deal_state(code, "scorpion").to_dict() for code in deals]
    for alias in ALIAS.values():
        owner = User.objects.db_manager(alias).create_user(username="bench", password=None)
        rows = [
            Game(id=pk, owner=owner, deal_code=deals[n % 10], seed=n % 10, state=states[n % 10])
            for n, pk in enumerate(ids)
        ]
        Game.objects.using(alias).bulk_create(rows, batch_size=1000)
    return ids


def load(events_per_game: int) -> dict[str, dict[str, float]]:
    """One round per seq (every game gets its next event), alternating which side goes first."""
    from games.history import SNAPSHOT_INTERVAL

    spent = {side: {"events": 0.0, "snapshots": 0.0} for side in SIDES}
    for seq in range(1, events_per_game + 1):
        for side in SIDES if seq % 2 else SIDES[::-1]:
            alias = ALIAS[side]
            spent[side]["events"] += timed(
                execute,
                alias,
                "INSERT INTO games_gameevent (game_id, seq, type, payload, idempotency_key, "
                "request_fingerprint, created_at) SELECT id, %s, 'move', %s::jsonb, "
                "gen_random_uuid()::text, md5(id::text), now() FROM games_game",
                [seq, PAYLOAD],
            )
            if seq % SNAPSHOT_INTERVAL == 0:
                spent[side]["snapshots"] += timed(
                    execute,
                    alias,
                    "INSERT INTO games_gamesnapshot (game_id, version, state) "
                    "SELECT id, %s, state FROM games_game",
                    [seq],
                )
    for alias in ALIAS.values():
        execute(alias, "UPDATE games_game SET version = %s", [events_per_game])
        for table in ("games_game", "games_gameevent", "games_gamesnapshot"):
            execute(alias, f"VACUUM ANALYZE {table}")
    return spent


def appends(ids: list[uuid.UUID], count: int, start: int) -> dict[str, list[float]]:
    """The service's append statement, each in its own transaction (autocommit), as a
    command outside a finishing transaction sends it."""
    from django.db import connections
    from django.utils import timezone

    from games.history import SNAPSHOT_INTERVAL
    from games.models import Game, GameEvent
    from games.services.commands import _append_statement

    rng = random.Random(1)
    versions = dict.fromkeys(ids, start)
    state = Game.objects.using("default").values_list("state", flat=True).first()
    times: dict[str, list[float]] = {side: [] for side in SIDES}
    for n in range(count):
        pk = rng.choice(ids)
        game = Game(id=pk, version=versions[pk])
        now = timezone.now()
        changes = {"version": game.version + 1, "state": state, "moves": 1, "updated_at": now}
        event = GameEvent(
            game=game,
            seq=game.version + 1,
            type="move",
            payload={"card": 37, "from": 4, "to": 6},
            idempotency_key=str(uuid.uuid4()),
            request_fingerprint="f" * 64,
            created_at=now,
        )
        statement, params = _append_statement(
            game, changes, event, snapshot=event.seq % SNAPSHOT_INTERVAL == 0
        )
        for side in SIDES if n % 2 else SIDES[::-1]:
            with connections[ALIAS[side]].cursor() as cursor:
                start_at = time.perf_counter()
                cursor.execute(statement, params)
                assert cursor.fetchone() is not None, "the compare-and-set missed"
                times[side].append(time.perf_counter() - start_at)
        versions[pk] += 1
    return times


def reads(
    ids: list[uuid.UUID], samples: int, events_per_game: int
) -> tuple[dict[str, dict[str, list[float]]], dict[str, dict[str, list[float]]]]:
    """Each sample: one game, one page's start and one event id, read on both sides (the
    query evaluated as the selectors evaluate it); then, for a tenth of the samples, the
    same query under EXPLAIN ANALYZE: the server's planning plus execution time."""
    from django.db.models import QuerySet

    from games.models import GameEvent, GameSnapshot

    rng = random.Random(2)
    last_id = scalar("default", "SELECT max(id) FROM games_gameevent")
    kinds: dict[str, Callable[[str, uuid.UUID, int, int], QuerySet[Any, Any]]] = {
        "a game's whole log": lambda a, g, after, pk: (
            GameEvent.objects.using(a).filter(game_id=g).order_by("seq")
        ),
        f"a page of {PAGE} events": lambda a, g, after, pk: (
            GameEvent.objects.using(a).filter(game_id=g, seq__gt=after).order_by("seq")[:PAGE]
        ),
        "its latest seq": lambda a, g, after, pk: (
            GameEvent.objects.using(a)
            .filter(game_id=g)
            .order_by("-seq")
            .values_list("seq", flat=True)[:1]
        ),
        "its nearest snapshot": lambda a, g, after, pk: (
            GameSnapshot.objects.using(a)
            .filter(game_id=g, version__lte=events_per_game)
            .order_by("-version")
            .values_list("version", "state")[:1]
        ),
        "one event by id alone": lambda a, g, after, pk: GameEvent.objects.using(a).filter(pk=pk)[
            :1
        ],
    }
    times: dict[str, dict[str, list[float]]] = {
        name: {side: [] for side in SIDES} for name in kinds
    }
    server: dict[str, dict[str, list[float]]] = {
        name: {side: [] for side in SIDES} for name in kinds
    }
    for n in range(samples):
        game = rng.choice(ids)
        after = rng.randrange(max(1, events_per_game - PAGE))
        pk = rng.randint(1, last_id)
        for name, query in kinds.items():
            for side in SIDES if n % 2 else SIDES[::-1]:
                times[name][side].append(
                    timed(lambda q: list(q), query(ALIAS[side], game, after, pk))
                )
                if n % 10 == 0:
                    plan = json.loads(
                        query(ALIAS[side], game, after, pk).explain(format="json", analyze=True)
                    )[0]
                    seconds = (plan["Planning Time"] + plan["Execution Time"]) / 1000
                    server[name][side].append(seconds)
    return times, server


def size(alias: str, table: str) -> int:
    """Bytes of the table and its indexes, its partitions' included."""
    return int(
        scalar(
            alias,
            "SELECT coalesce((SELECT sum(pg_total_relation_size(relid)) FROM "
            "pg_partition_tree(%s::regclass)), pg_total_relation_size(%s::regclass))",
            [table, table],
        )
    )


def relkind(alias: str) -> str:
    return str(
        scalar(alias, "SELECT relkind FROM pg_class WHERE oid = 'games_gameevent'::regclass")
    )


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"{statistics.median(ordered) * 1000:.3f} / {p95 * 1000:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--appends", type=int, default=2_000)
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--database", default="scorpion_bench_partition")
    arguments = parser.parse_args()
    per_game = max(1, arguments.events // arguments.games)
    databases = (arguments.database, f"{arguments.database}_plain")
    for name in databases:
        recreate_database(name, create=True)
    # Each database migrated as the default one (some data migrations know no other).
    for name, target in ((databases[0], []), (databases[1], ["games", BEFORE])):
        for command in (["migrate"], ["migrate", *target]) if target else (["migrate"],):
            subprocess.run(
                [sys.executable, "manage.py", *command, "--verbosity", "0"],
                cwd=ROOT,
                env={**os.environ, "DATABASE_URL": PG_URL.format(name=name)},
                check=True,
            )
    setup(arguments.database)
    from django.core.management import call_command
    from django.db import connections

    from games.history import SNAPSHOT_INTERVAL

    partitions = importlib.import_module(f"games.migrations.{AFTER}").PARTITIONS
    began = datetime.now(UTC)
    load_before = loadavg()
    try:
        assert (relkind("plain"), relkind("default")) == ("r", "p")
        ids = make_games(arguments.games)
        loaded = load(per_game)
        total = per_game * len(ids)
        sizes = {
            side: (size(ALIAS[side], "games_gameevent"), size(ALIAS[side], "games_gamesnapshot"))
            for side in SIDES
        }
        appended = appends(ids, arguments.appends, per_game)
        read, server = reads(ids, arguments.samples, per_game)
        rows = scalar("plain", "SELECT count(*) FROM games_gameevent")
        forward = timed(call_command, "migrate", "games", AFTER, database="plain", verbosity=0)
        assert relkind("plain") == "p"
        assert scalar("plain", "SELECT count(*) FROM games_gameevent") == rows
        backward = timed(call_command, "migrate", "games", BEFORE, database="plain", verbosity=0)
        assert relkind("plain") == "r"
        assert scalar("plain", "SELECT count(*) FROM games_gameevent") == rows
    finally:
        connections.close_all()
        for name in databases:
            recreate_database(name, create=False)

    print(f"$ .venv/bin/python bench/partition.py {shlex.join(sys.argv[1:])}")
    print(
        f"{began:%Y-%m-%d %H:%M} UTC, load average {load_before} -> {loadavg()}; "
        f"PostgreSQL {postgres_version()}; {cpu_model()}"
    )
    print(
        f"{total:,} events in {len(ids):,} games ({per_game} each), snapshots every "
        f"{SNAPSHOT_INTERVAL}; partitioned: hash of game_id, {partitions} partitions"
    )
    print(f"\n{'':34} {'plain':>30} {'partitioned':>30}")
    for side_label, key in (("load: events/s", "events"), ("load: snapshot rows/s", "snapshots")):
        count = total if key == "events" else len(ids) * (per_game // SNAPSHOT_INTERVAL)
        cells = [
            f"{count / loaded[side][key]:,.0f} ({loaded[side][key]:.1f} s)"
            if loaded[side][key]
            else "-"
            for side in SIDES
        ]
        print(f"{side_label:34} {cells[0]:>30} {cells[1]:>30}")
    cells = [f"{sizes[side][0] / total:,.0f} B/event" for side in SIDES]
    print(f"{'size: events, with indexes':34} {cells[0]:>30} {cells[1]:>30}")
    explained = len(next(iter(server.values()))["plain"])
    print(
        f"\nmedian / p95, ms ({arguments.appends} appends, {arguments.samples} reads each;"
        f" in brackets the server's planning + execution, median of {explained})"
    )
    cells = [ms(appended[side]) for side in SIDES]
    print(f"{'append (the service statement)':34} {cells[0]:>30} {cells[1]:>30}")
    for name, times in read.items():
        cells = [
            f"{ms(times[side])} [{statistics.median(server[name][side]) * 1000:.3f}]"
            for side in SIDES
        ]
        print(f"{name:34} {cells[0]:>30} {cells[1]:>30}")
    print(
        f"\nmigration games {AFTER} on the plain database ({rows:,} events): "
        f"forward {forward:.1f} s, backward {backward:.1f} s"
    )


if __name__ == "__main__":
    main()
