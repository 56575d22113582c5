"""Throttle cost per request and overshoot under threads: DRF's timestamp lists against our
fixed-window counters, side by side in one run.

Run from the repository root with the project's interpreter:
``.venv/bin/python bench/throttle.py [--prior 6000] [--samples 400] [--redis-url URL]``.
Only 127.0.0.1 is contacted. Redis is the one of ``REDIS_URL`` (default database 13); the bench
touches only keys of its own (a random ident per run) and deletes them at the end.

1. Cost: ``allow_request`` of one signed-in caller, timed call by call (wall clock, and the
   CPU time of the calling thread, which the machine's other load inflates less), with ``--prior``
   requests already counted in the current window, and with none. DRF's ``UserRateThrottle``
   (the list of timestamps, read and written back whole) against ours
   (``infrastructure.throttles.UserRateThrottle``: one pipelined INCR + EXPIRE). Before each timed
   call the state is put back to exactly ``--prior`` requests (not timed), so every sample sees
   the same window; old and new samples alternate, so the machine's background load falls on
   both alike. On Redis (``FailOpenRedisCache``, as deployed) and on LocMemCache (the embedded
   default).
2. Overshoot: 8 threads call ``allow_request`` for one caller at the same moment, 40 calls each,
   against a limit of 100 per minute on Redis; how many were allowed.
"""

from __future__ import annotations

import argparse
import os
import platform
import secrets
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_site.settings")
os.environ.setdefault("DEBUG", "true")

import django

django.setup()

from django.core.cache.backends.base import BaseCache  # noqa: E402  (after django.setup())
from django.core.cache.backends.locmem import LocMemCache  # noqa: E402
from rest_framework import throttling as drf  # noqa: E402

from bench.machine import machine_description  # noqa: E402
from infrastructure import throttles  # noqa: E402
from infrastructure.cache import FailOpenRedisCache  # noqa: E402

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/13"
WINDOW = 60
THREADS = 8
CALLS_PER_THREAD = 40
THREAD_LIMIT = 100


def make_request(ident: str) -> Any:
    user = SimpleNamespace(is_authenticated=True, pk=ident)
    return SimpleNamespace(user=user, META={"REMOTE_ADDR": "127.0.0.1"}, headers={})


def throttle_classes(
    rate: str,
) -> tuple[type[drf.SimpleRateThrottle], type[drf.SimpleRateThrottle]]:
    old = type("Old", (drf.UserRateThrottle,), {"rate": rate})
    new = type("New", (throttles.UserRateThrottle,), {"rate": rate})
    return old, new


class Subject:
    """One implementation on one cache: how to set its window to ``prior`` requests, and one
    call of ``allow_request`` as a request makes it (a new throttle object per request)."""

    def __init__(self, cls: type[drf.SimpleRateThrottle], cache: BaseCache, ident: str) -> None:
        self.cls = cls
        self.cache = cache
        self.request = make_request(ident)
        self.now = time.time()

    def throttle(self) -> drf.SimpleRateThrottle:
        throttle = self.cls()
        throttle.cache = self.cache
        return throttle

    def set_prior(self, prior: int) -> None:
        throttle = self.throttle()
        key = throttle.get_cache_key(self.request, None)  # type: ignore[arg-type]
        assert key is not None
        now = time.time()
        if isinstance(throttle, throttles.FixedWindowRateThrottle):
            # The counter of the current window (the key allow_request computes).
            counter, _ = throttles.window_counter(key, WINDOW, now)
            self.cache.set(counter, prior, WINDOW + 1)
        else:
            # Newest first, all within the window, as SimpleRateThrottle keeps them.
            history = [now - i * (WINDOW / 2) / max(prior, 1) for i in range(prior)]
            self.cache.set(key, history, WINDOW)

    def call(self) -> bool:
        return bool(self.throttle().allow_request(self.request, None))  # type: ignore[arg-type]


Timings = dict[str, tuple[list[float], list[float]]]


def time_calls(subjects: dict[str, Subject], prior: int, samples: int) -> Timings:
    """Per subject: the wall-clock time and the CPU time of this thread, call by call."""
    timings: Timings = {name: ([], []) for name in subjects}
    for _ in range(samples):
        for name, subject in subjects.items():  # alternating, sample by sample
            subject.set_prior(prior)
            started, started_cpu = time.perf_counter(), time.thread_time()
            allowed = subject.call()
            cpu = time.thread_time() - started_cpu
            timings[name][0].append(time.perf_counter() - started)
            timings[name][1].append(cpu)
            assert allowed, f"{name}: the rate must not be reached while timing"
    return timings


def overshoot(cls: type[drf.SimpleRateThrottle], cache: BaseCache, ident: str) -> int:
    subject = Subject(cls, cache, ident)
    barrier = threading.Barrier(THREADS)
    allowed = [0] * THREADS

    def body(index: int) -> None:
        barrier.wait()
        allowed[index] = sum(subject.call() for _ in range(CALLS_PER_THREAD))

    threads = [threading.Thread(target=body, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(allowed)


def describe(wall: list[float], cpu: list[float]) -> str:
    ordered = sorted(wall)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return (
        f"wall {statistics.median(wall) * 1e6:6.0f} µs p50 {p90 * 1e6:6.0f} µs p90, "
        f"CPU {statistics.mean(cpu) * 1e6:5.0f} µs mean"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prior", type=int, default=6_000)
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL)
    arguments = parser.parse_args()

    run = secrets.token_hex(6)
    redis_cache = FailOpenRedisCache(
        arguments.redis_url,
        {"KEY_PREFIX": f"bench-throttle-{run}", "OPTIONS": {"socket_timeout": 5}},
    )
    local_cache = LocMemCache(f"bench-{run}", {"OPTIONS": {"MAX_ENTRIES": 100_000}})
    caches: list[tuple[str, BaseCache]] = [("Redis", redis_cache), ("LocMem", local_cache)]
    old, new = throttle_classes("100000000/min")

    print(f"command:  python {' '.join(sys.argv)}")
    print(f"python:   {platform.python_implementation()} {platform.python_version()}")
    print(f"machine:  {machine_description()}")
    print(f"redis:    {arguments.redis_url}")
    print(f"cost of one allow_request, {arguments.samples} samples each, alternating:")
    try:
        for cache_name, cache in caches:
            for prior in (0, arguments.prior):
                subjects: dict[str, Subject] = {
                    "DRF list": Subject(old, cache, f"old-{run}"),
                    "counter": Subject(new, cache, f"new-{run}"),
                }
                timings = time_calls(subjects, prior, arguments.samples)
                for name, (wall, cpu) in timings.items():
                    print(f"  {cache_name:6} {prior:>6,} prior  {name:9} {describe(wall, cpu)}")
                (old_wall, old_cpu), (new_wall, new_cpu) = timings["DRF list"], timings["counter"]
                print(
                    f"  {cache_name:6} {prior:>6,} prior  DRF list / counter: "
                    f"{statistics.median(old_wall) / statistics.median(new_wall):.1f}x wall p50, "
                    f"{statistics.mean(old_cpu) / statistics.mean(new_cpu):.1f}x CPU"
                )
        print(
            f"overshoot: {THREADS} threads x {CALLS_PER_THREAD} calls, limit {THREAD_LIMIT}/min, "
            "Redis:"
        )
        old_limited, new_limited = throttle_classes(f"{THREAD_LIMIT}/min")
        for name, cls in (("DRF list", old_limited), ("counter", new_limited)):
            allowed = overshoot(cls, redis_cache, f"crowd-{name[:3]}-{run}")
            print(
                f"  {name:9} allowed {allowed:4} of {THREADS * CALLS_PER_THREAD} "
                f"({(allowed - THREAD_LIMIT) / THREAD_LIMIT:+.0%} over the limit)"
            )
    finally:
        client: Callable[..., Any] = redis_cache._cache.get_client
        connection = client(None, write=True)
        for key in connection.scan_iter(match=f"bench-throttle-{run}:*", count=1000):
            connection.delete(key)


if __name__ == "__main__":
    main()
