"""The cap on a player's open streams, across every process that serves streams.

With Redis, each player has a sorted set of open streams scored by when each expires; a
stream renews its entry with every heartbeat and removes it when it ends, so the entry of a
process that died lapses by itself after ``slot_ttl()``. Taking a slot is one Lua script
(count the live entries, add one if under the cap), atomic however many processes race.
Without Redis, the same in memory (one process serves everything).

Redis is not the truth about which streams are open: the processes holding them are. Each
process keeps its own streams' slots in memory too, and puts them back whenever Redis may
have lost them: every heartbeat adds the stream's entry (not only refreshes it) and pushes
back the set's expiry, and taking a slot adds the process's other slots of that player
first. So after Redis restarts empty, a process counts its own streams at once and every
process's streams are back within one heartbeat.

While Redis is down the cap holds per process, like every other limit (docs/architecture.md,
"Limits"): a process counts the streams it holds, and refuses past the cap.
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

# KEYS[1]: the player's set. ARGV: now, expiry, cap, the new slot, the set's lifetime (ms),
# then the slots of this process's open streams of the player (put back if Redis lost them).
_ACQUIRE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for i = 6, #ARGV do
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
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

    def add(self, user_id: int, slot: str) -> None:
        """Counts ``slot`` (granted elsewhere: by Redis) among the player's open streams."""
        with self._lock:
            self._open.setdefault(user_id, {})[slot] = time.monotonic() + slot_ttl()

    def held(self, user_id: int) -> list[str]:
        with self._lock:
            return list(self._live(user_id, time.monotonic()))

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
        # This process's open streams, whatever Redis holds: put back into Redis when it may
        # have lost them, and the cap (per process) while Redis is down.
        self._here = LocalSlots()
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
                args=[
                    now,
                    now + ttl,
                    settings.STREAM_MAX_PER_USER,
                    slot,
                    int(ttl * 1000),
                    *self._here.held(user_id),
                ],
            )
        except redis.RedisError as exc:
            logger.warning("stream slots unavailable, capping this process's streams: %s", exc)
            return self._here.acquire(user_id)
        if not taken:
            return None
        self._here.add(user_id, slot)
        return slot

    async def renew(self, user_id: int, slot: str) -> None:
        await self._here.renew(user_id, slot)
        ttl = slot_ttl()
        try:
            # ZADD, not ZADD XX: an entry Redis lost (a restart) is registered again; and the
            # set's own expiry is pushed back, or it would lapse with every slot still live.
            async with self._async_client().pipeline(transaction=False) as pipe:
                pipe.zadd(_key(user_id), {slot: time.time() + ttl})
                pipe.pexpire(_key(user_id), int(ttl * 1000))
                await pipe.execute()
        except redis.RedisError as exc:
            logger.info("stream slot renewal failed: %s", exc)

    async def release(self, user_id: int, slot: str) -> None:
        await self._here.release(user_id, slot)
        try:
            await self._async_client().zrem(_key(user_id), slot)
        except redis.RedisError as exc:
            logger.info("stream slot release failed (it lapses by itself): %s", exc)

    def open_count(self, user_id: int) -> int:
        try:
            return int(self._client.zcount(_key(user_id), time.time(), "+inf"))
        except redis.RedisError:
            return self._here.open_count(user_id)


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
