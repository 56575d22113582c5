"""On PostgreSQL, the event log and its snapshots become tables partitioned by hash of the game
(docs/scaling.md, "Past one machine"); SQLite keeps its plain tables. Django's view of the
models does not change: ``id`` is still the primary key it knows, and every constraint keeps
its name and meaning.

What changes in the database, for each of ``games_gameevent`` and ``games_gamesnapshot``:

- ``PARTITION BY HASH (game_id)`` into ``PARTITIONS`` tables ``<table>_p00``... : one game's
  log and snapshots live in one partition, and every read by game (all of them but the
  admin's lookup of one event by id) touches that partition only.
- The primary key is ``(id, game_id)``: PostgreSQL requires a partitioned table's unique keys
  to include the partition key. ``id`` stays an identity column, one sequence for all the
  partitions (kept at the value it had), so ids stay unique in practice, as before; only the
  index that enforced it alone is gone. Nothing refers to these rows by id (no foreign key).
- The unique ``(game, seq)`` / ``(game, version)``, the partial unique idempotency key, the
  checks and the foreign key to the game (DEFERRABLE INITIALLY DEFERRED, as Django makes
  them: the cascade is Django's) are created again under the names Django gave them, so a
  later migration that drops or alters one finds it.

The rows are moved in the migration's transaction (an ACCESS EXCLUSIVE lock on both tables for
its length: 1 million events in 17-31 s on the loaded development machine, docs/benchmarks.md;
plan a maintenance window, or the online route in docs/scaling.md, for a large log). The
reverse moves them back into plain tables with the primary key ``(id)``.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

# Hash partitions per table. A power of two, so that when partitions grow too large each can be
# split in two (modulus 32: remainder r of 16 becomes r and r + 16) one at a time, without
# rehashing the others. 16 keeps each partition near 1/16 of the log (at the 100,000-player
# day of docs/scaling.md, 28 GB a day, a year's log is some 600 GB a partition before
# archiving) while a query that cannot be pruned to one partition (a lookup by id alone, the
# admin's list of all events) plans and probes only 16 indexes. Changing it later is a new
# migration that moves the rows again.
PARTITIONS = 16

PARTITION_KEY = "game_id"
TABLES = ("games_gameevent", "games_gamesnapshot")
DETACHED = "{}_unpartitioned"


def _fetch(cursor: Any, statement: str, params: list[Any]) -> list[tuple[Any, ...]]:
    cursor.execute(statement, params)
    return list(cursor.fetchall())


def rebuild(schema_editor: Any, table: str, *, partitions: int | None) -> None:
    """``table`` made again, partitioned by hash of ``game_id`` into ``partitions`` tables (or
    plain when None), with its rows, its id sequence's position, and its constraints and
    indexes under their names."""
    quote = schema_editor.quote_name
    old = DETACHED.format(table)
    with schema_editor.connection.cursor() as cursor:
        # What Django (or the previous run of this function) made, read from the catalogue so
        # that every name and definition comes back as it was: constraints of the table itself
        # (not NOT NULL, which is a column's and comes with it), indexes no constraint owns.
        constraints = _fetch(
            cursor,
            "SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype IN ('p', 'u', 'f', 'c', 'x') "
            "ORDER BY conname",
            [table],
        )
        indexes = _fetch(
            cursor,
            "SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = %s::regclass "
            "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid "
            "AND k.conrelid = i.indrelid) ORDER BY c.relname",
            [table],
        )
        [(sequence, identity)] = _fetch(
            cursor,
            "SELECT pg_get_serial_sequence(%s, 'id'), attidentity FROM pg_attribute "
            "WHERE attrelid = %s::regclass AND attname = 'id'",
            [table, table],
        )
        columns = ", ".join(
            quote(name)
            for (name,) in _fetch(
                cursor,
                "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
                "AND NOT attisdropped ORDER BY attnum",
                [table],
            )
        )

    # The names are free once the old table no longer holds them (an index name is unique in
    # the schema); its rows stay until they are copied.
    for name, _, _ in constraints:
        schema_editor.execute(f"ALTER TABLE {quote(table)} DROP CONSTRAINT {quote(name)}")
    for name, _ in indexes:
        schema_editor.execute(f"DROP INDEX {quote(name)}")
    schema_editor.execute(f"ALTER TABLE {quote(table)} RENAME TO {quote(old)}")
    if identity and sequence:
        # The identity's sequence goes with the old table; the new one gets its own name.
        schema_editor.execute(f"ALTER SEQUENCE {sequence} RENAME TO {quote(old + '_id_seq')}")

    partition_by = f" PARTITION BY HASH ({quote(PARTITION_KEY)})" if partitions else ""
    schema_editor.execute(
        f"CREATE TABLE {quote(table)} (LIKE {quote(old)} INCLUDING DEFAULTS INCLUDING IDENTITY "
        f"INCLUDING STORAGE INCLUDING COMMENTS){partition_by}"
    )
    for remainder in range(partitions or 0):
        schema_editor.execute(
            f"CREATE TABLE {quote(f'{table}_p{remainder:02d}')} PARTITION OF {quote(table)} "
            f"FOR VALUES WITH (MODULUS {int(partitions or 0)}, REMAINDER {remainder})"
        )
    # Rows first, indexes after: one sorted build of each index instead of a million inserts.
    schema_editor.execute(
        f"INSERT INTO {quote(table)} ({columns}) OVERRIDING SYSTEM VALUE "
        f"SELECT {columns} FROM {quote(old)}"
    )
    if identity and sequence:
        # The next id is the one the old sequence would have given: ids never reused, even
        # those of events deleted with their game.
        schema_editor.execute(
            f"SELECT setval(pg_get_serial_sequence(%s, 'id'), last_value, is_called) "
            f"FROM {quote(old + '_id_seq')}",
            [table],
        )
    elif sequence:
        # A serial column (a table made before Django 4.1): the default still names the old
        # sequence; it now belongs to the new column, so that it outlives the old table.
        schema_editor.execute(f"ALTER SEQUENCE {sequence} OWNED BY {quote(table)}.id")

    for name, kind, definition in constraints:
        if kind == "p":
            # A partitioned table's unique keys must include its partition key.
            key = f"id, {quote(PARTITION_KEY)}" if partitions else "id"
            definition = f"PRIMARY KEY ({key})"
        schema_editor.execute(
            f"ALTER TABLE {quote(table)} ADD CONSTRAINT {quote(name)} {definition}"
        )
    for _, definition in indexes:
        # A partitioned index reads "ON ONLY table": made on a plain table, it is "ON table";
        # made on the partitioned one, it creates the index of every partition too.
        schema_editor.execute(definition.replace(" ON ONLY ", " ON ", 1))
    schema_editor.execute(f"DROP TABLE {quote(old)}")
    # Autovacuum never analyses a partitioned table itself (only its partitions): the planner's
    # statistics of the whole are taken here, and by a manual ANALYZE after large changes.
    schema_editor.execute(f"ANALYZE {quote(table)}")


def partition(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return  # SQLite keeps its plain tables
    for table in TABLES:
        rebuild(schema_editor, table, partitions=PARTITIONS)


def unpartition(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        rebuild(schema_editor, table, partitions=None)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0020_game_fair_play"),
    ]

    operations = [
        migrations.RunPython(partition, unpartition, elidable=False),
    ]
