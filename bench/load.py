"""Load for the API benchmark: a closed loop (clients sending back to back: the capacity) and
an open loop (requests due at a fixed rate, latency counted from when each was due: no
coordinated omission), and the samples they gather."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import httpx

from bench.stack import Player


@dataclass
class Samples:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, label: str, milliseconds: float) -> None:
        with self.lock:
            self.latencies.setdefault(label, []).append(milliseconds)

    def fail(self, label: str, what: str) -> None:
        with self.lock:
            self.errors[label] = self.errors.get(label, 0) + 1
            if len(self.examples) < 5:
                self.examples.append(f"{label}: {what}")

    def merge(self, other: Samples) -> None:
        for label, values in other.latencies.items():
            self.latencies.setdefault(label, []).extend(values)
        for label, count in other.errors.items():
            self.errors[label] = self.errors.get(label, 0) + count
        self.examples.extend(other.examples[: max(0, 5 - len(self.examples))])

    def answered(self) -> int:
        return sum(len(values) for values in self.latencies.values())


def send(samples: Samples, label: str, request: Callable[[], httpx.Response], due: float) -> bool:
    """Send one request; its latency counts from ``due`` (the time it was meant to go)."""
    try:
        response = request()
    except httpx.HTTPError as error:
        samples.fail(label, f"{type(error).__name__}: {error}")
        return False
    elapsed = time.perf_counter() - due
    if response.status_code != 200:
        samples.fail(label, f"{response.status_code} {response.text[:200]}")
        return False
    samples.add(label, elapsed * 1000)
    return True


Operation = Callable[[Player, Samples, float], None]


def closed_slot(
    players: list[Player], clients: int, operation: Operation, seconds: float, stop: threading.Event
) -> tuple[Samples, float]:
    """``clients`` threads, each cycling through its share of the players, send requests back
    to back for ``seconds``; returns the samples and the wall time to the last answer."""
    samples = Samples()
    ready = threading.Barrier(clients + 1)
    deadline = [0.0]

    def work(mine: list[Player]) -> None:
        ready.wait()
        turn = 0
        while time.perf_counter() < deadline[0] and not stop.is_set():
            operation(mine[turn % len(mine)], samples, time.perf_counter())
            turn += 1

    threads = [
        threading.Thread(target=work, args=(players[index::clients],), daemon=True)
        for index in range(clients)
    ]
    for thread in threads:
        thread.start()
    started = time.perf_counter()
    deadline[0] = started + seconds
    ready.wait()
    for thread in threads:
        thread.join()
    return samples, time.perf_counter() - started


def open_slot(
    players: list[Player], rate: float, operation: Operation, seconds: float, stop: threading.Event
) -> tuple[Samples, float]:
    """Requests due at a fixed ``rate`` per second for ``seconds``, each on a player with no
    request in flight, whatever the answers' speed (a pool of 64 senders)."""
    samples = Samples()
    idle: queue.SimpleQueue[Player] = queue.SimpleQueue()
    for player in players:
        idle.put(player)
    count = max(1, int(rate * seconds))
    started = time.perf_counter() + 0.05

    def one(due: float) -> None:
        player = idle.get()
        try:
            operation(player, samples, due)
        finally:
            idle.put(player)

    with ThreadPoolExecutor(max_workers=64) as pool:
        for index in range(count):
            if stop.is_set():
                break
            due = started + index / rate
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            pool.submit(one, due)
    return samples, time.perf_counter() - started


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of sorted ``values``."""
    if not values:
        return float("nan")
    rank = max(1, round(fraction * len(values) + 0.5))
    return values[min(len(values), rank) - 1]
