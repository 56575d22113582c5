"""Migration 0021: on PostgreSQL the event log and the snapshots are partitioned by hash of the
game, their rows moved by the migration (and back by its reverse) on a database that holds
games; on SQLite the tables stay as they were."""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from games.history import SNAPSHOT_INTERVAL
from games.models import Game, GameEvent, GameSnapshot
from tests.api.conftest import Player, sign_up
from tests.conftest import require_service

migration = importlib.import_module("games.migrations.0021_partitioned_event_log")
BEFORE = ("games", "0020_game_fair_play")
AFTER = ("games", "0021_partitioned_event_log")
TABLES = {GameEvent: "games_gameevent", GameSnapshot: "games_gamesnapshot"}

_emails = itertools.count()


def migrate(target: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate([target])


def latest() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


@pytest.fixture
def postgres_before_partitioning() -> Iterator[None]:
    """The test database taken back to before the migration (plain tables), and forward to
    the latest migrations afterwards whatever happens (the next tests expect them)."""
    require_service("PostgreSQL", connection.vendor == "postgresql")
    migrate(BEFORE)
    try:
        yield
    finally:
        MigrationExecutor(connection).migrate(latest())


def play(
    player: Player, game_id: str, commands: int, *, key: str = ""
) -> list[tuple[dict[str, Any], dict[str, str]]]:
    """The hints' best move, else a deal, else an undo: a log of every kind of event. Each
    command carries an Idempotency-Key when ``key`` is given. The commands sent, with their
    headers."""
    sent = []
    for step in range(commands):
        hints = player.get(f"/api/v1/games/{game_id}/hints/").json()
        if hints["moves"]:
            best = hints["moves"][0]
            body: dict[str, Any] = {
                "type": "move",
                "card": best["card"],
                "from": best["from"],
                "to": best["to"],
            }
        elif hints["deal"]:
            body = {"type": "deal"}
        else:
            body = {"type": "undo"}
        headers = {"Idempotency-Key": f"{key}-{step}"} if key else {}
        response = player.command(game_id, body, **headers)
        assert response.status_code == 200, (body, response.content)
        sent.append((body, headers))
    return sent


def rows(model: type[GameEvent] | type[GameSnapshot]) -> list[dict[str, Any]]:
    return list(model.objects.order_by("pk").values())


def table_kind(table: str) -> tuple[str, int]:
    """The table's kind (r: plain, p: partitioned) and its number of partitions."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relkind, (SELECT count(*) FROM pg_inherits WHERE inhparent = c.oid) "
            "FROM pg_class c WHERE oid = %s::regclass",
            [table],
        )
        kind, partitions = cursor.fetchone()
    return str(kind), int(partitions)


def constraints(table: str) -> dict[str, tuple[Any, ...]]:
    """Django's own view of the table's constraints and indexes: name -> what it is."""
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, table)
    return {
        name: (tuple(c["columns"]), c["primary_key"], c["unique"], c["foreign_key"], c["check"])
        for name, c in found.items()
    }


def partitions_per_game(table: str) -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(DISTINCT tableoid) FROM {connection.ops.quote_name(table)} "
            "GROUP BY game_id"
        )
        return {count for (count,) in cursor.fetchall()}


@pytest.mark.django_db(transaction=True)
def test_the_migration_partitions_a_log_with_games_and_its_reverse_puts_it_back(
    postgres_before_partitioning: None,
) -> None:
    # A player's new game abandons their last: one game each.
    players = [sign_up(f"partition{next(_emails)}@example.com") for _ in range(4)]
    games = [(player, player.new_game(seed=seed)["id"]) for seed, player in enumerate(players)]
    last = [
        play(player, game_id, SNAPSHOT_INTERVAL + 4, key=f"before-{number}")[-1]
        for number, (player, game_id) in enumerate(games)
    ]
    events, snapshots = rows(GameEvent), rows(GameSnapshot)
    assert len(snapshots) == len(games)  # one at version 32 each
    plain = {table: constraints(table) for table in TABLES.values()}
    assert table_kind("games_gameevent") == ("r", 0)

    migrate(AFTER)

    for table in TABLES.values():
        assert table_kind(table) == ("p", migration.PARTITIONS)
        assert partitions_per_game(table) == {1}  # a game's rows live in one partition
        partitioned = constraints(table)
        # Every constraint under the name Django gave it; the primary key now holds the game.
        assert partitioned.keys() == plain[table].keys()
        pk = next(name for name, c in partitioned.items() if c[1])
        assert partitioned[pk][0] == ("id", "game_id")
        assert {n: c for n, c in partitioned.items() if n != pk} == {
            n: c for n, c in plain[table].items() if n != pk
        }
    assert rows(GameEvent) == events
    assert rows(GameSnapshot) == snapshots

    # One event per (game, seq), one snapshot per (game, version), one event per key.
    first = GameEvent.objects.get(pk=events[0]["id"])
    for duplicate in (
        GameEvent(game_id=first.game_id, seq=first.seq, type="move"),
        GameEvent(game_id=first.game_id, seq=999, type="move", idempotency_key="before-0-0"),
        GameSnapshot(game_id=first.game_id, version=SNAPSHOT_INTERVAL, state={}),
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            duplicate.save()
    # The rows are still append-only.
    first.payload = {}
    with pytest.raises(RuntimeError, match="append-only"):
        first.save()

    # The service goes on: a retried command is answered from the log, new commands append
    # after the moved ids, and the history and the states read through the snapshots.
    player, game_id = games[0]
    version = Game.objects.get(pk=game_id).version
    body, headers = last[0]
    retried = player.command(game_id, body, **headers)
    assert (retried.status_code, retried.json()["version"]) == (200, version)
    play(player, game_id, SNAPSHOT_INTERVAL, key="after")
    game = Game.objects.get(pk=game_id)
    assert game.version == version + SNAPSHOT_INTERVAL
    new = GameEvent.objects.filter(game_id=game_id, seq__gt=version)
    assert min(new.values_list("pk", flat=True)) > events[-1]["id"]
    assert GameSnapshot.objects.filter(game_id=game_id).count() == 2
    page = player.get(f"/api/v1/games/{game_id}/events/?after={version - 1}&limit=5").json()
    assert [event["seq"] for event in page["results"]] == list(range(version, version + 5))
    assert player.get(f"/api/v1/games/{game_id}/states/{version + 3}/").status_code == 200
    # Deleting a game takes its log and snapshots with it (Django's cascade).
    _, other_game = games[3]
    Game.objects.filter(pk=other_game).delete()
    assert not GameEvent.objects.filter(game_id=other_game).exists()
    assert not GameSnapshot.objects.filter(game_id=other_game).exists()
    events, snapshots = rows(GameEvent), rows(GameSnapshot)

    migrate(BEFORE)

    for table in TABLES.values():
        assert table_kind(table) == ("r", 0)
        assert constraints(table) == plain[table]
    assert rows(GameEvent) == events
    assert rows(GameSnapshot) == snapshots
    play(player, game_id, 1)
    assert GameEvent.objects.order_by("pk").last().pk > events[-1]["id"]  # type: ignore[union-attr]


@pytest.mark.django_db
def test_on_sqlite_the_log_stays_one_plain_table() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT type FROM sqlite_master WHERE name IN ('games_gameevent', 'games_gamesnapshot')"
        )
        assert [kind for (kind,) in cursor.fetchall()] == ["table", "table"]
        names = connection.introspection.table_names(cursor)
    assert not [name for name in names if name.startswith("games_gameevent_p")]
