"""Is anyone doing the background work? When each queue's worker last ran a task, when beat
last ticked.

Each is a timestamp in Redis (the broker they share), written by the processes themselves:
beat on every tick of its scheduler (infrastructure.beat), a worker whenever it runs the
``heartbeat`` task that beat sends to each queue every HEARTBEAT_SECONDS (infrastructure/queues.py:
the default queue and ``hints``, each with a worker of its own, so each has its own key). A web
process reads them for the health check, the staff dashboard and the choice between sending
work to a worker and doing it inline, so an operator sees "beat stopped 20 minutes ago" rather
than a queue that quietly grows. Nothing here touches the database.
"""

from __future__ import annotations

import datetime
import os
import sys
import time
from dataclasses import dataclass

import redis

from infrastructure.queues import DEFAULT_QUEUE, HINTS_QUEUE, QUEUES

# The default queue's worker (the key's name predates the hints queue), then the hints one.
WORKER_KEY = "scorpion:liveness:worker"
HINTS_WORKER_KEY = f"{WORKER_KEY}:{HINTS_QUEUE}"
BEAT_KEY = "scorpion:liveness:beat"
HEARTBEAT_SECONDS = 30
# A worker busy with long tasks (certification may run for minutes on a 2-process worker) runs
# the heartbeat late; four missed beats is a real outage, not a busy minute.
STALE_AFTER_SECONDS = 4 * HEARTBEAT_SECONDS
# Keys outlive any outage worth reporting, then vanish rather than lie for ever.
KEY_TTL_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True)
class Liveness:
    configured: bool
    worker_seen_at: datetime.datetime | None = None
    beat_ticked_at: datetime.datetime | None = None
    hints_worker_seen_at: datetime.datetime | None = None
    error: str | None = None
    now: datetime.datetime | None = None

    def _fresh(self, moment: datetime.datetime | None) -> bool:
        if moment is None or self.now is None:
            return False
        return (self.now - moment).total_seconds() <= STALE_AFTER_SECONDS

    @property
    def worker_ok(self) -> bool:
        return self._fresh(self.worker_seen_at)

    @property
    def hints_worker_ok(self) -> bool:
        return self._fresh(self.hints_worker_seen_at)

    @property
    def beat_ok(self) -> bool:
        return self._fresh(self.beat_ticked_at)

    def queue_ok(self, queue: str) -> bool:
        """A worker consuming ``queue`` ran its heartbeat lately."""
        return self.hints_worker_ok if worker_key(queue) == HINTS_WORKER_KEY else self.worker_ok

    def as_dict(self) -> dict[str, object]:
        if not self.configured:
            return {"configured": False}
        if self.error:
            return {"configured": True, "error": self.error}
        return {
            "configured": True,
            "stale_after_seconds": STALE_AFTER_SECONDS,
            "worker": {"ok": self.worker_ok, "last_seen": _iso(self.worker_seen_at)},
            "hints_worker": {
                "ok": self.hints_worker_ok,
                "last_seen": _iso(self.hints_worker_seen_at),
            },
            "beat": {"ok": self.beat_ok, "last_tick": _iso(self.beat_ticked_at)},
        }


def _iso(moment: datetime.datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def worker_key(queue: str) -> str:
    """The key a worker consuming ``queue`` records its heartbeats under."""
    if queue not in QUEUES:
        raise ValueError(f"no queue {queue!r}: the queues are {', '.join(QUEUES)}")
    return WORKER_KEY if queue == DEFAULT_QUEUE else HINTS_WORKER_KEY


def _client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url, socket_connect_timeout=1, socket_timeout=1)


def record(*, key: str, redis_url: str | None, now: float | None = None) -> None:
    """Write "alive at ``now``" under ``key``; a Redis error is the caller's to log or ignore."""
    if not redis_url:
        return
    _client(redis_url).set(key, repr(time.time() if now is None else now), ex=KEY_TTL_SECONDS)


def read(*, redis_url: str | None, now: datetime.datetime) -> Liveness:
    """What the processes last wrote; never raises (a Redis outage is reported, not thrown)."""
    if not redis_url:
        return Liveness(configured=False)
    try:
        worker, beat, hints_worker = _client(redis_url).mget(
            [WORKER_KEY, BEAT_KEY, HINTS_WORKER_KEY]
        )
    except redis.RedisError as exc:
        return Liveness(configured=True, error=exc.__class__.__name__, now=now)
    return Liveness(
        configured=True,
        worker_seen_at=_moment(worker),
        beat_ticked_at=_moment(beat),
        hints_worker_seen_at=_moment(hints_worker),
        now=now,
    )


def _moment(raw: bytes | str | None) -> datetime.datetime | None:
    if raw is None:
        return None
    try:
        return datetime.datetime.fromtimestamp(float(raw), tz=datetime.UTC)
    except (ValueError, OverflowError):
        return None


def check(process: str, *, redis_url: str | None, now: datetime.datetime) -> str | None:
    """Why ``process`` (``beat``, or a queue's worker: ``worker``, ``hints``) is not live, or
    None when it is: the compose health checks' test."""
    liveness = read(redis_url=redis_url, now=now)
    if not liveness.configured:
        return "REDIS_URL is not set: nothing records liveness"
    if liveness.error:
        return f"Redis cannot be read: {liveness.error}"
    fresh = {
        "beat": liveness.beat_ok,
        "worker": liveness.worker_ok,
        "hints": liveness.hints_worker_ok,
    }
    if process not in fresh:
        raise ValueError(f"no process {process!r}: one of {', '.join(fresh)}")
    if fresh[process]:
        return None
    return f"{process} has not been seen within {STALE_AFTER_SECONDS} s"


def main(argv: list[str]) -> int:
    """``python -m infrastructure.liveness beat``: exit 0 when beat ticked lately, 1 otherwise.
    Reads REDIS_URL from the environment alone (no Django start-up: a health check runs often)."""
    if len(argv) != 1:
        print("usage: python -m infrastructure.liveness beat|worker|hints", file=sys.stderr)
        return 2
    try:
        problem = check(
            argv[0],
            redis_url=os.environ.get("REDIS_URL") or None,
            now=datetime.datetime.now(tz=datetime.UTC),
        )
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    if problem:
        print(problem, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
