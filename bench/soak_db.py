"""The soak's database side with ``--replica`` and ``--pooler`` (bench/soak.py): a PostgreSQL
primary of its own and its streaming replica (bench/pg_pair.py), PgBouncer in front of both,
and what they did.

- **The share of reads the replica served** is counted by the servers themselves:
  ``pg_stat_statements`` is loaded on both (``shared_preload_libraries``; the extension is
  created on the primary and replicated), reset as the players start, and read at the end.
  A *read* is a top-level ``SELECT`` (or read-only ``WITH``) of the soak's database, not
  ``FOR UPDATE``/``FOR SHARE``; left out are the connection checks (``SELECT $1``: Django's
  health check of a kept connection, PgBouncer's ``server_check_query``) and the router's own
  look at the replica's lag (``pg_is_in_recovery``). The share is given in statements, rows
  returned and execution time: what the router sent where, not what it meant to.
- **Each server's CPU** from /proc: its postmaster, every process under it, and the children
  it has reaped (bench/cpu.py ``cluster_ticks``): the replica's includes its WAL replay.
- **Connections**: PgBouncer's admin console (``SHOW CLIENTS`` and ``SHOW POOLS`` every 2 s:
  client and server connections per database; ``SHOW STATS`` before and after: transactions,
  and the time clients spent in them and waiting for a server), and the client backends each
  server ran (``pg_stat_activity``), sampled alike.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import threading
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import psycopg

from bench import pg_pair
from bench.cpu import cluster_ticks, process_tree_ticks

STATEMENTS = "pg_stat_statements"
REPLICA_SUFFIX = "_replica"  # PgBouncer's name for the replica's pool of the same database


def dsn(port: int, database: str) -> str:
    return f"host=127.0.0.1 port={port} user=postgres dbname={database}"


def classify(query: str) -> str:
    """``read``, ``check`` (a connection or lag check) or ``other`` (writes, transaction
    control, settings)."""
    text = query.strip().lower()
    if re.fullmatch(r"select \$1;?", text) or "pg_is_in_recovery" in text:
        return "check"
    if STATEMENTS in text or "pg_stat_activity" in text:
        return "check"  # this bench's own looks
    if re.search(r"\bfor (no key )?update\b|\bfor (key )?share\b", text):
        return "other"
    if text.startswith("select"):
        return "read"
    if text.startswith("with") and not re.search(r"\b(insert|update|delete)\b", text):
        return "read"
    return "other"


@dataclass
class Usage:
    """pg_stat_statements of one server, summed by kind: calls, rows, milliseconds."""

    calls: Counter[str] = field(default_factory=Counter)
    rows: Counter[str] = field(default_factory=Counter)
    ms: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))


@dataclass
class Peaks:
    clients: Counter[str] = field(default_factory=Counter)  # per PgBouncer database
    servers: Counter[str] = field(default_factory=Counter)
    waiting: Counter[str] = field(default_factory=Counter)
    backends: Counter[str] = field(default_factory=Counter)  # per server
    samples: int = 0


@dataclass
class Database:
    """The running primary, replica and PgBouncer, as the app reaches them."""

    pair: pg_pair.Pair
    name: str
    replica: bool
    bouncer: pg_pair.Bouncer | None
    peaks: Peaks = field(default_factory=Peaks)
    stats_before: dict[str, dict[str, str]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _sampler: threading.Thread | None = None

    # --- What the app is given ---

    def environment(self) -> dict[str, str]:
        """DATABASE_URL, DATABASE_REPLICA_URL and DATABASE_POOLER: through PgBouncer to both
        servers with the pooler (the replica as a database entry of its own: every web worker
        keeps a connection to each, so the replica would otherwise run as many backends as the
        primary did without a pooler), else straight to them."""
        user = "postgres@127.0.0.1"
        if self.bouncer is not None:
            primary = f"postgres://{user}:{self.bouncer.port}/{self.name}"
            replica = f"postgres://{user}:{self.bouncer.port}/{self.name}{REPLICA_SUFFIX}"
        else:
            primary = f"postgres://{user}:{self.pair.primary_port}/{self.name}"
            replica = f"postgres://{user}:{self.pair.replica_port}/{self.name}"
        environment = {
            "DATABASE_URL": primary,
            "DATABASE_POOLER": "pgbouncer" if self.bouncer else "",
        }
        if self.replica:
            environment["DATABASE_REPLICA_URL"] = replica
        return environment

    @property
    def admin_dsn(self) -> str:
        return dsn(self.pair.primary_port, "postgres")

    def servers(self) -> dict[str, int]:
        ports = {"primary": self.pair.primary_port}
        if self.replica:
            ports["replica"] = self.pair.replica_port
        return ports

    def describe(self) -> str:
        servers = "a primary and its streaming replica" if self.replica else "a primary"
        text = f"{servers} of its own (initdb, fsync off)"
        if self.bouncer is not None:
            text += ", PgBouncer in transaction mode in front (deploy/pgbouncer/pgbouncer.ini)"
        return text

    # --- Measures ---

    def prepare(self) -> None:
        """Once migrated: pg_stat_statements in the database (replicated), every counter reset,
        PgBouncer's totals noted, and the sampling started."""
        with psycopg.connect(dsn(self.pair.primary_port, self.name), autocommit=True) as conn:
            conn.execute(f"CREATE EXTENSION IF NOT EXISTS {STATEMENTS}")
            conn.execute("SELECT pg_switch_wal()")  # nothing: a known point to wait for
            lsn = conn.execute("SELECT pg_current_wal_lsn()").fetchone()
        if self.replica and lsn is not None:
            with psycopg.connect(dsn(self.pair.replica_port, self.name), autocommit=True) as conn:
                for _ in range(600):  # the extension replayed on the replica
                    row = conn.execute(
                        "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (lsn[0],)
                    ).fetchone()
                    if row and row[0]:
                        break
                    threading.Event().wait(0.1)
        for port in self.servers().values():
            with psycopg.connect(dsn(port, self.name), autocommit=True) as conn:
                conn.execute(f"SELECT {STATEMENTS}_reset()")
        if self.bouncer is not None:
            self.stats_before = self.bouncer_stats()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def ticks(self) -> dict[str, int]:
        """CPU clock ticks so far: each server's, and PgBouncer's."""
        ticks = {}
        for name in self.servers():
            pid = self.pair.postmaster_pid(name)
            ticks["postgres" if name == "primary" else "replica"] = cluster_ticks(pid) if pid else 0
        if self.bouncer is not None:
            ticks["pgbouncer"] = process_tree_ticks(self.bouncer.pid)
        return ticks

    def bouncer_stats(self) -> dict[str, dict[str, str]]:
        assert self.bouncer is not None
        return {row["database"]: row for row in pg_pair.admin(self.bouncer.port, "SHOW STATS")}

    def _sample(self) -> None:
        connections = {
            name: psycopg.connect(dsn(port, "postgres"), autocommit=True)
            for name, port in self.servers().items()
        }
        try:
            while not self._stop.wait(2.0):
                with contextlib.suppress(psycopg.Error, OSError, ValueError):
                    self._sample_once(connections)
        finally:
            for connection in connections.values():
                connection.close()

    def _sample_once(self, connections: dict[str, psycopg.Connection[Any]]) -> None:
        peaks = self.peaks
        for name, connection in connections.items():
            row = connection.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s "
                "AND backend_type = 'client backend'",
                (self.name,),
            ).fetchone()
            peaks.backends[name] = max(peaks.backends[name], int(row[0]) if row else 0)
        if self.bouncer is not None:
            with contextlib.suppress(subprocess.SubprocessError):
                clients = Counter(
                    row["database"] for row in pg_pair.admin(self.bouncer.port, "SHOW CLIENTS")
                )
                for database, count in clients.items():
                    peaks.clients[database] = max(peaks.clients[database], count)
                for pool in pg_pair.admin(self.bouncer.port, "SHOW POOLS"):
                    database = pool["database"]
                    if not database.startswith(self.name):
                        continue
                    servers = sum(
                        int(pool.get(k, 0))
                        for k in ("sv_active", "sv_idle", "sv_used", "sv_tested", "sv_login")
                    )
                    peaks.servers[database] = max(peaks.servers[database], servers)
                    peaks.waiting[database] = max(peaks.waiting[database], int(pool["cl_waiting"]))
        peaks.samples += 1

    def stop_sampling(self) -> None:
        self._stop.set()
        if self._sampler is not None:
            self._sampler.join(timeout=30)

    def usage(self, port: int) -> Usage:
        usage = Usage()
        with psycopg.connect(dsn(port, self.name), autocommit=True) as connection:
            rows = connection.execute(
                f"SELECT s.query, s.calls, s.rows, s.total_exec_time FROM {STATEMENTS} s "
                "JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = %s AND s.toplevel",
                (self.name,),
            ).fetchall()
        for query, calls, returned, ms in rows:
            kind = classify(query)
            usage.calls[kind] += int(calls)
            usage.rows[kind] += int(returned)
            usage.ms[kind] += float(ms)
        return usage

    # --- The report ---

    def report(self, *, wall: float, used: dict[str, float], requests: int) -> None:
        self.stop_sampling()
        print()
        print(f"Database: {self.describe()}")
        primary = self.usage(self.pair.primary_port)
        replica = self.usage(self.pair.replica_port) if self.replica else Usage()
        if self.replica:
            calls = primary.calls["read"] + replica.calls["read"]
            rows = primary.rows["read"] + replica.rows["read"]
            ms = primary.ms["read"] + replica.ms["read"]
            everything = sum(primary.ms.values()) + replica.ms["read"]
            print(
                f"Reads served by the replica (pg_stat_statements on both): "
                f"**{replica.calls['read'] / max(calls, 1):.1%} of read statements** "
                f"({replica.calls['read']:,} of {calls:,}), "
                f"{replica.rows['read'] / max(rows, 1):.1%} of the rows they returned, "
                f"{replica.ms['read'] / max(ms, 1e-9):.1%} of their execution time; "
                f"{replica.ms['read'] / max(everything, 1e-9):.1%} of all statements' execution "
                f"time (writes included: {everything / 1000:.1f} s)"
            )
        on_replica = f"; on the replica: {replica.calls['check']:,} checks" if self.replica else ""
        print(
            f"Statements on the primary: {primary.calls['read']:,} reads "
            f"({primary.ms['read'] / 1000:.1f} s), {primary.calls['other']:,} others (writes, "
            f"transaction control: {primary.ms['other'] / 1000:.1f} s), "
            f"{primary.calls['check']:,} checks{on_replica}"
        )
        parts = [f"primary {used.get('postgres', 0.0) / wall:.2f}"]
        if self.replica:
            parts.append(f"replica {used.get('replica', 0.0) / wall:.2f} (its WAL replay included)")
        if self.bouncer is not None:
            parts.append(f"PgBouncer {used.get('pgbouncer', 0.0) / wall:.2f}")
        per_request = ", ".join(
            f"{name} {used.get(key, 0.0) * 1000 / max(requests, 1):.2f} ms"
            for name, key in (
                ("primary", "postgres"),
                ("replica", "replica"),
                ("PgBouncer", "pgbouncer"),
            )
            if key in used
        )
        print(f"Database CPU, cores busy on average: {', '.join(parts)}; per request {per_request}")
        backends = ", ".join(f"{name} {count}" for name, count in self.peaks.backends.items())
        print(f"Client backends on the servers, at most (sampled every 2 s): {backends}")
        if self.bouncer is None:
            return
        after = self.bouncer_stats()
        for database in sorted(after):
            if not database.startswith(self.name):
                continue
            start = self.stats_before.get(database, {})

            def delta(
                column: str, row: dict[str, str] = after[database], start: Any = start
            ) -> int:
                return int(row[column]) - int(start.get(column, 0))

            xacts, xact_us, wait_us = (
                delta("total_xact_count"),
                delta("total_xact_time"),
                delta("total_wait_time"),
            )
            print(
                f"PgBouncer {database}: clients at most {self.peaks.clients[database]}, server "
                f"connections at most {self.peaks.servers[database]} (clients waiting for one at "
                f"most {self.peaks.waiting[database]}); {xacts:,} transactions "
                f"({xacts / wall:.1f}/s), {delta('total_query_count'):,} statements; "
                f"**server connections busy on average {xact_us / 1e6 / wall:.2f}** (time in "
                f"transactions / wall), clients' wait for a server {wait_us / 1000:,.0f} ms in all"
            )


@contextlib.contextmanager
def running(*, name: str, replica: bool, pooler: bool, pool_size: int | None) -> Iterator[Database]:
    """The primary (and replica) with pg_stat_statements, and PgBouncer in front when asked."""
    with ExitStack() as stack:
        pair = stack.enter_context(
            pg_pair.primary_and_replica(
                f"shared_preload_libraries={STATEMENTS}",
                "max_connections=200",
                replica=replica,
            )
        )
        bouncer = None
        if pooler:
            databases = {name: f"host=127.0.0.1 port={pair.primary_port} dbname={name}"}
            if replica:
                databases[name + REPLICA_SUFFIX] = (
                    f"host=127.0.0.1 port={pair.replica_port} dbname={name}"
                )
            bouncer = stack.enter_context(
                pg_pair.pgbouncer(databases=databases, pool_size=pool_size)
            )
        database = Database(pair=pair, name=name, replica=replica, bouncer=bouncer)
        stack.callback(database.stop_sampling)
        yield database
