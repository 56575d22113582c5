"""The cap on a player's open streams, across every process that serves streams.

With Redis, each player has a sorted set of open streams scored by when each expires; a
stream renews its entry with every heartbeat and removes it when it ends, so the entry of a
process that died lapses by itself after ``slot_ttl()``. Taking a slot is one Lua script
(count the live entries, add one if under the cap), atomic however many processes race.
Without Redis, the same in memory (one process serves everything).

Like the cache, the cap fails open: with Redis down a stream is allowed, not refused.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
import weakref
from typing import Protocol

import redis
import redis.asyncio
from django.conf import settings

logger = logging.getLogger(__name__)

KEY_PREFIX = "scorpion:streams:open:"

_ACQUIRE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
"""


def slot_ttl() -> float:
    """How long a slot lives without a heartbeat renewing it."""
    return float(3 * settings.STREAM_HEARTBEAT_SECONDS + 5)


def _key(user_id: int) -> str:
    return f"{KEY_PREFIX}{user_id}"


class Slots(Protocol):
    def acquire(self, user_id: int) -> str | None: ...

    async def renew(self, user_id: int, slot: str) -> None: ...

    async def release(self, user_id: int, slot: str) -> None: ...

    def open_count(self, user_id: int) -> int: ...


class LocalSlots:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[int, dict[str, float]] = {}

    def _live(self, user_id: int, now: float) -> dict[str, float]:
        slots = self._open.setdefault(user_id, {})
        for slot, expires in list(slots.items()):
            if expires <= now:
                del slots[slot]
        return slots

    def acquire(self, user_id: int) -> str | None:
        now = time.monotonic()
        with self._lock:
            slots = self._live(user_id, now)
            if len(slots) >= settings.STREAM_MAX_PER_USER:
                return None
            slot = uuid.uuid4().hex
            slots[slot] = now + slot_ttl()
            return slot

    async def renew(self, user_id: int, slot: str) -> None:
        with self._lock:
            slots = self._open.get(user_id, {})
            if slot in slots:
                slots[slot] = time.monotonic() + slot_ttl()

    async def release(self, user_id: int, slot: str) -> None:
        with self._lock:
            slots = self._open.get(user_id, {})
            slots.pop(slot, None)
            if not slots:
                self._open.pop(user_id, None)

    def open_count(self, user_id: int) -> int:
        with self._lock:
            return len(self._live(user_id, time.monotonic()))


class RedisSlots:
    def __init__(self, url: str) -> None:
        self.url = url
        self._client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        self._acquire = self._client.register_script(_ACQUIRE)
        self._async: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, redis.asyncio.Redis] = (
            weakref.WeakKeyDictionary()
        )

    def _async_client(self) -> redis.asyncio.Redis:
        loop = asyncio.get_running_loop()
        client = self._async.get(loop)
        if client is None:
            client = redis.asyncio.Redis.from_url(
                self.url, socket_timeout=1, socket_connect_timeout=1
            )
            self._async[loop] = client
        return client

    def acquire(self, user_id: int) -> str | None:
        slot = uuid.uuid4().hex
        now = time.time()
        ttl = slot_ttl()
        try:
            taken = self._acquire(
                keys=[_key(user_id)],
                args=[now, now + ttl, settings.STREAM_MAX_PER_USER, slot, int(ttl * 1000)],
            )
        except redis.RedisError as exc:
            logger.warning("stream slots unavailable, allowing the stream: %s", exc)
            return slot
        return slot if taken else None

    async def renew(self, user_id: int, slot: str) -> None:
        try:
            await self._async_client().zadd(
                _key(user_id), {slot: time.time() + slot_ttl()}, xx=True
            )
        except redis.RedisError as exc:
            logger.info("stream slot renewal failed: %s", exc)

    async def release(self, user_id: int, slot: str) -> None:
        try:
            await self._async_client().zrem(_key(user_id), slot)
        except redis.RedisError as exc:
            logger.info("stream slot release failed (it lapses by itself): %s", exc)

    def open_count(self, user_id: int) -> int:
        try:
            return int(self._client.zcount(_key(user_id), time.time(), "+inf"))
        except redis.RedisError:
            return 0


_slots: Slots | None = None
_lock = threading.Lock()


def get_slots() -> Slots:
    global _slots
    with _lock:
        if _slots is None:
            _slots = RedisSlots(settings.REDIS_URL) if settings.REDIS_URL else LocalSlots()
        return _slots


def reset_slots() -> None:
    global _slots
    with _lock:
        _slots = None
