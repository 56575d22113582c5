"""A PostgreSQL primary (and its streaming replica) and a PgBouncer of their own, in temporary
directories: for the soak (bench/soak.py ``--replica``, ``--pooler``) and the ops tests
(tests/ops/test_read_replica.py, tests/ops/test_pooler.py), which import them from here.

The primary is made by ``initdb`` (wal_level=replica), the replica by ``pg_basebackup -R`` from
it and run as a second ``postgres`` on another port in hot standby; PgBouncer runs Debian's
program with deploy/pgbouncer/pgbouncer.ini, only its addresses, its databases, its pool size
and its authentication made local. This machine's own cluster is left alone.

PostgreSQL and PgBouncer refuse to run as root: as root, every command runs as the
``postgres`` user (runuser). Only the standard library: no Django, nothing of the tests."""

from __future__ import annotations

import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
CONFIG = ROOT / "deploy" / "pgbouncer" / "pgbouncer.ini"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def as_postgres(command: list[str]) -> list[str]:
    """``command`` as the ``postgres`` user when run as root (PgBouncer and PostgreSQL refuse
    root), else as is."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


def private_directory() -> Path:
    """A temporary directory the ``postgres`` user owns when run as root."""
    path = Path(tempfile.mkdtemp(prefix="scorpion-pg-"))
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")
    path.chmod(0o755)
    return path


def postgres_bin() -> Path | None:
    """The newest PostgreSQL's programs (Debian keeps them out of PATH), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_basebackup"))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_basebackup")
    return Path(on_path).parent if on_path else None


class CommandFailed(RuntimeError):
    """A PostgreSQL program failed: its arguments and output."""


@dataclass
class Pair:
    """A primary (``primary``) and, when made, its replica (``replica``) under ``directory``."""

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
        if result.returncode != 0:
            raise CommandFailed(f"{program} {args}: {result.stdout}{result.stderr}")
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

    def stop_if_running(self, name: str) -> None:
        if self.running(name):
            self.stop(name, "immediate")

    def postmaster_pid(self, name: str) -> int | None:
        """The server's postmaster (the first line of its postmaster.pid), or None."""
        try:
            return int((self.directory / name / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None


@contextmanager
def primary_and_replica(*settings: str, replica: bool = True) -> Iterator[Pair]:
    """A primary and (unless ``replica`` is false) its streaming replica, both running with
    ``settings`` (``name=value``, e.g. ``shared_preload_libraries=pg_stat_statements``); both
    stopped and thrown away at the end."""
    binaries = postgres_bin()
    if binaries is None:
        raise CommandFailed("no PostgreSQL programs (apt-get install postgresql)")
    directory = private_directory()
    pair = Pair(directory, binaries, free_port(), free_port())
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, directory, True)
        # initdb's pg_hba.conf trusts local connections, replication ones included.
        pair.run(
            "initdb", "-D", str(directory / "primary"), "-U", "postgres",
            "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync",
        )  # fmt: skip
        pair.start(
            "primary", pair.primary_port, "wal_level=replica", "max_wal_senders=4", *settings
        )
        stack.callback(pair.stop_if_running, "primary")
        if replica:
            # -R: standby.signal and primary_conninfo written for us; -X stream: the WAL made
            # while the copy runs comes along.
            pair.run(
                "pg_basebackup", "-h", "127.0.0.1", "-p", str(pair.primary_port),
                "-U", "postgres", "-D", str(directory / "replica"), "-R", "-X", "stream",
                "--no-sync",
            )  # fmt: skip
            pair.start("replica", pair.replica_port, "hot_standby=on", *settings)
            stack.callback(pair.stop_if_running, "replica")
        yield pair


# --- PgBouncer --------------------------------------------------------------------------------


def render_pgbouncer(
    *, databases: Mapping[str, str], port: int, pool_size: int | None, directory: Path
) -> Path:
    """deploy/pgbouncer/pgbouncer.ini with ``databases`` (name -> connection string) instead of
    its one entry, this listening address, this machine's authentication (trust, as its
    PostgreSQL) and, when given, this pool size (and no reserve)."""
    text = CONFIG.read_text()
    entries = "\n".join(f"{name} = {target}" for name, target in databases.items())
    text, count = re.subn(r"^scorpion = .*$", lambda _: entries, text, flags=re.M)
    if count != 1:
        raise ValueError(f"{CONFIG} has no one `scorpion = ...` database entry")
    changes = {
        "listen_addr": "127.0.0.1",
        "listen_port": str(port),
        "auth_type": "trust",
        "auth_file": str(directory / "userlist.txt"),
        "admin_users": "postgres",
    }
    if pool_size is not None:
        changes.update(default_pool_size=str(pool_size), reserve_pool_size="0")
    for name, value in changes.items():
        text, count = re.subn(rf"^{name} = .*$", f"{name} = {value}", text, flags=re.M)
        if count != 1:
            raise ValueError(f"{CONFIG} has no one `{name} = ...`")
    text += f"unix_socket_dir =\npidfile = {directory / 'pgbouncer.pid'}\n"
    (directory / "userlist.txt").write_text('"postgres" ""\n')
    path = directory / "pgbouncer.ini"
    path.write_text(text)
    return path


@dataclass
class Bouncer:
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid


@contextmanager
def pgbouncer(*, databases: Mapping[str, str], pool_size: int | None = None) -> Iterator[Bouncer]:
    """A PgBouncer in front of ``databases`` (name -> ``host=... port=... dbname=...``),
    listening on a free port of 127.0.0.1 once this yields; stopped (its whole process group)
    at the end."""
    directory = private_directory()
    port = free_port()
    config = render_pgbouncer(
        databases=databases, port=port, pool_size=pool_size, directory=directory
    )
    log = directory / "pgbouncer.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            as_postgres([PGBOUNCER, str(config)]),
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise CommandFailed(f"pgbouncer did not start: {log.read_text()}") from None
                time.sleep(0.1)
        yield Bouncer(port, process, log)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)
        shutil.rmtree(directory, ignore_errors=True)


def admin(port: int, command: str) -> list[dict[str, str]]:
    """A command of PgBouncer's admin console (``SHOW POOLS``): its rows, by column name."""
    result = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-p", str(port), "-d", "pgbouncer",
         "-AF", "\t", "-P", "footer=off", "-c", command],
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    )  # fmt: skip
    header, *rows = [line.split("\t") for line in result.stdout.splitlines() if line]
    return [dict(zip(header, row, strict=True)) for row in rows]
