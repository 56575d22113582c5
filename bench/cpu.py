"""CPU accounting from /proc (Linux): what the machine and each process of a stack spent, for
the benchmarks that report CPU per request beside their latencies (bench/api.py, bench/soak.py)."""

from __future__ import annotations

import contextlib
import os
import platform
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bench.stack import PG_ADMIN, Stack


def cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    return platform.processor() or "unknown"


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


TICK = os.sysconf("SC_CLK_TCK")


def machine_ticks() -> tuple[int, int]:
    """(busy, steal) jiffies of all CPUs since boot, from /proc/stat."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return user + nice + system + irq + softirq, steal


def process_tree_ticks(pid: int) -> int:
    """utime + stime of a process and its children (e.g. gunicorn's master and workers)."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            stat = Path(f"/proc/{current}/stat").read_text()
            parts = stat.rpartition(")")[2].split()
            total += int(parts[11]) + int(parts[12])
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        pending.extend(int(child) for child in children)
    return total


def cluster_ticks(postmaster: int) -> int:
    """What a PostgreSQL server used in all, in clock ticks: its postmaster and every process
    alive under it (backends, WAL sender or replay, checkpointer...) and, in the postmaster's
    cutime and cstime, every child it has reaped (backends closed since it started)."""
    try:
        parts = Path(f"/proc/{postmaster}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0
    return process_tree_ticks(postmaster) + int(parts[13]) + int(parts[14])


def pid_ticks(pid: int) -> int:
    """utime + stime of one process, in clock ticks (0 once it is gone)."""
    try:
        parts = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0
    return int(parts[11]) + int(parts[12])


@dataclass
class CpuUse:
    """CPU seconds used during measurements, by part; ``wall`` is their total duration."""

    wall: float = 0.0
    web: float = 0.0  # gunicorn master and workers
    worker: float = 0.0  # the Celery worker and its pool processes
    database: float = 0.0  # the PostgreSQL backends serving the stack's database
    redis: float = 0.0  # the stack's redis-server (0 when it is a shared one)
    machine: float = 0.0  # all CPUs, everything
    steal: float = 0.0

    def add(self, other: CpuUse) -> None:
        for name in ("wall", "web", "worker", "database", "redis", "machine", "steal"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def describe(self) -> str:
        if self.wall <= 0:
            return ""
        parts = {
            "gunicorn": self.web,
            "worker": self.worker,
            "PostgreSQL": self.database,
            "Redis": self.redis,
        }
        rest = self.machine - sum(parts.values())
        return (
            ", ".join(f"{name} {value / self.wall:.2f}" for name, value in parts.items())
            + f", everything else {max(0.0, rest) / self.wall:.2f}, steal "
            f"{self.steal / self.wall:.2f} (cores of {os.cpu_count()})"
        )


class CpuMeter:
    """Measures the CPU each part of a stack uses, from /proc (Linux)."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.connection = psycopg.connect(PG_ADMIN, autocommit=True)

    def close(self) -> None:
        self.connection.close()

    def backend_ticks(self) -> dict[int, int]:
        rows = self.connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.stack.database,)
        ).fetchall()
        return {int(pid): pid_ticks(int(pid)) for (pid,) in rows}

    def _ticks(self) -> tuple[int, int, dict[int, int], int]:
        processes = self.stack.processes
        return (
            process_tree_ticks(processes["gunicorn"].pid),
            process_tree_ticks(processes["worker"].pid),
            self.backend_ticks(),
            pid_ticks(self.stack.redis_pid) if self.stack.redis_pid else 0,
        )

    @contextlib.contextmanager
    def measure(self, into: CpuUse) -> Iterator[None]:
        wall = time.perf_counter()
        web, worker, backends, redis_ticks = self._ticks()
        busy, steal = machine_ticks()
        try:
            yield
        finally:
            busy_after, steal_after = machine_ticks()
            web_after, worker_after, backends_after, redis_after = self._ticks()
            database = sum(ticks - backends.get(pid, 0) for pid, ticks in backends_after.items())
            into.add(
                CpuUse(
                    wall=time.perf_counter() - wall,
                    web=(web_after - web) / TICK,
                    worker=(worker_after - worker) / TICK,
                    database=database / TICK,
                    redis=(redis_after - redis_ticks) / TICK,
                    machine=(busy_after - busy) / TICK,
                    steal=(steal_after - steal) / TICK,
                )
            )
