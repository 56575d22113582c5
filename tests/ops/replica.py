"""A PostgreSQL primary and its streaming replica, made by the test in a temporary directory:
``initdb`` (wal_level=replica), ``pg_basebackup -R`` from it, a second ``postgres`` on another
port in hot standby. This machine's own cluster is left alone (its other databases, its
settings): the pair is the test's to pause, to stop, to throw away.

PostgreSQL refuses to run as root: as root, every command runs as the ``postgres`` user."""

from __future__ import annotations

import glob
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.ops.pgbouncer import as_postgres, private_directory
from tests.workers.harness import free_port


def postgres_bin() -> Path | None:
    """The newest PostgreSQL's programs (Debian keeps them out of PATH), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_basebackup"))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_basebackup")
    return Path(on_path).parent if on_path else None


@dataclass
class Pair:
    directory: Path
    bin: Path
    primary_port: int
    replica_port: int

    def run(self, program: str, *args: str) -> str:
        result = subprocess.run(
            as_postgres([str(self.bin / program), *args]),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert result.returncode == 0, f"{program} {args}: {result.stdout}{result.stderr}"
        return result.stdout

    def sql(self, port: int, statement: str, database: str = "postgres") -> str:
        """One statement on the server at ``port``: its output, unaligned, without headers."""
        return self.run(
            "psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", database,
            "-v", "ON_ERROR_STOP=1", "-Atc", statement,
        ).strip()  # fmt: skip

    def start(self, name: str, port: int, *settings: str) -> None:
        options = f"-p {port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        options += "".join(f" -c {setting}" for setting in settings)
        data, log = self.directory / name, self.directory / f"{name}.log"
        self.run("pg_ctl", "-D", str(data), "-o", options, "-l", str(log), "-w", "start")

    def stop(self, name: str, mode: str = "fast") -> None:
        self.run("pg_ctl", "-D", str(self.directory / name), "-m", mode, "-w", "stop")

    def running(self, name: str) -> bool:
        status = subprocess.run(
            as_postgres([str(self.bin / "pg_ctl"), "-D", str(self.directory / name), "status"]),
            capture_output=True,
            check=False,
        )
        return status.returncode == 0


@contextmanager
def primary_and_replica() -> Iterator[Pair]:
    binaries = postgres_bin()
    assert binaries is not None, "no PostgreSQL programs (apt-get install postgresql)"
    directory = private_directory()
    pair = Pair(directory, binaries, free_port(), free_port())
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, directory, True)
        # initdb's pg_hba.conf trusts local connections, replication ones included.
        pair.run(
            "initdb", "-D", str(directory / "primary"), "-U", "postgres",
            "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync",
        )  # fmt: skip
        pair.start("primary", pair.primary_port, "wal_level=replica", "max_wal_senders=4")
        stack.callback(lambda: pair.running("primary") and pair.stop("primary", "immediate"))
        # -R: standby.signal and primary_conninfo written for us; -X stream: the WAL made
        # while the copy runs comes along.
        pair.run(
            "pg_basebackup", "-h", "127.0.0.1", "-p", str(pair.primary_port), "-U", "postgres",
            "-D", str(directory / "replica"), "-R", "-X", "stream", "--no-sync",
        )  # fmt: skip
        pair.start("replica", pair.replica_port, "hot_standby=on")
        stack.callback(lambda: pair.running("replica") and pair.stop("replica", "immediate"))
        yield pair
