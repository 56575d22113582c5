"""A real PgBouncer for the tests: Debian's, run with deploy/pgbouncer/pgbouncer.ini (only its
addresses, its pool size and its authentication made local), in a directory of its own.

PgBouncer refuses to run as root: as root, it runs as the ``postgres`` user (runuser)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.ops.compose import ROOT
from tests.workers.harness import Process, free_port, running

PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
PSQL = ("psql", "-h", "127.0.0.1", "-U", "postgres")
CONFIG = ROOT / "deploy" / "pgbouncer" / "pgbouncer.ini"


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


def render(*, database: str, port: int, server_port: int, pool_size: int, directory: Path) -> Path:
    """The compose configuration with the server, the listening address, the pool size and
    the authentication of this machine (trust, as its PostgreSQL)."""
    text = CONFIG.read_text()
    text = re.sub(
        r"^scorpion = .*$",
        f"{database} = host=127.0.0.1 port={server_port} dbname={database}",
        text,
        flags=re.M,
    )
    changes = {
        "listen_addr": "127.0.0.1",
        "listen_port": str(port),
        "auth_type": "trust",
        "auth_file": str(directory / "userlist.txt"),
        "default_pool_size": str(pool_size),
        "reserve_pool_size": "0",
        "admin_users": "postgres",
    }
    for name, value in changes.items():
        text, count = re.subn(rf"^{name} = .*$", f"{name} = {value}", text, flags=re.M)
        assert count == 1, name
    text += f"unix_socket_dir =\npidfile = {directory / 'pgbouncer.pid'}\n"
    (directory / "userlist.txt").write_text('"postgres" ""\n')
    path = directory / "pgbouncer.ini"
    path.write_text(text)
    return path


@contextmanager
def pgbouncer(*, database: str, server_port: int, pool_size: int) -> Iterator[tuple[int, Process]]:
    """A PgBouncer in front of ``database`` (on 127.0.0.1:``server_port``): its port."""
    directory = private_directory()
    port = free_port()
    config = render(
        database=database,
        port=port,
        server_port=server_port,
        pool_size=pool_size,
        directory=directory,
    )
    try:
        with running("pgbouncer", as_postgres([PGBOUNCER, str(config)]), dict(os.environ)) as p:
            yield port, p
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def admin(port: int, command: str) -> list[dict[str, str]]:
    """A command of PgBouncer's admin console (``SHOW POOLS``): its rows, by column name."""
    result = subprocess.run(
        [*PSQL, "-p", str(port), "-d", "pgbouncer", "-AF", "\t", "-P", "footer=off", "-c", command],
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    )
    header, *rows = [line.split("\t") for line in result.stdout.splitlines() if line]
    return [dict(zip(header, row, strict=True)) for row in rows]
