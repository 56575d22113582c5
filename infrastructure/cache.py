"""A Redis cache that fails open: with Redis down, reads miss and writes are dropped.

Everything we cache (sessions, hints, rate-limit counters) is an optimisation or a safeguard,
never the truth, so an outage of Redis must degrade the service, not stop play. Django's own
RedisCache raises on every call while Redis is down; this one logs and goes on.

Rate limits are the exception to "reads miss": a limit whose counter always reads zero is no
limit, and a brute-force attack would simply wait for (or cause) an outage. So the keys of
rate limits (the API's throttle counters and allauth's log-in and sign-up histories) fall back
to a small cache in this process while Redis is down: every limit then holds per web process
instead of across all of them, until Redis answers again (docs/architecture.md, "Limits").
So does the read replica's pin of a player to the primary after a write (read-your-writes,
infrastructure/db_routing.py): a pin dropped sent the player's next read to a replica that may
not have the write yet, even on the process that made it; a pin kept too long only reads the
primary. Nothing else falls back: a session read from a stale local copy could outlive its
log-out.

"Reads miss" holds for a Redis that restarted empty, not for one that was only unreachable (a
network partition, a stalled or failing-over server): it still holds what it held, and a write
or delete that failed meanwhile left the old value there. A log-out deletes the session from
the database and the cache; with the delete lost, the session's cache entry, still signed in,
let its token in again once Redis answered, for the rest of the session's life. So each
process remembers the keys whose write or delete failed and deletes them first in its next call
that reaches Redis, and meanwhile tries every second on a thread of its own, so that other
processes meet the old value for about a second at most once Redis answers (a cache entry may
always go: the database answers).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

logger = logging.getLogger(__name__)

# The keys that fall back to this process while Redis is down: the API's throttle counters
# (infrastructure/throttles.py) and allauth's rate-limit histories and their locks.
LIMIT_KEY_PREFIXES = ("throttle:", "allauth:rl:")
# ... and the replica pins (db_routing.PIN_KEY), which must not vanish either.
LOCAL_FALLBACK_PREFIXES = (*LIMIT_KEY_PREFIXES, "db-pin:")

# Per process. Large enough that a flood of distinct clients cannot evict (and so reset) the
# counters of the others: LocMemCache drops a third of its entries when it is full.
local_limits = LocMemCache("scorpion-local-limits", {"OPTIONS": {"MAX_ENTRIES": 100_000}})


def redis_client(cache: BaseCache) -> Any:
    """The ``redis.Redis`` behind a Django Redis cache (for commands Django's API lacks:
    pipelines, sets, SET XX), or None for any other cache (memory, in the embedded default).
    Keys passed to it must be made with ``cache.make_and_validate_key``; errors are the
    caller's to handle (``redis.RedisError``)."""
    client = getattr(cache, "_cache", None)
    get_client = getattr(client, "get_client", None)
    return get_client(None, write=True) if get_client is not None else None


def _warn(operation: str, exc: Exception) -> None:
    logger.warning("cache %s failed, carrying on without the cache: %s", operation, exc)


def _is_limit(key: Any) -> bool:
    return isinstance(key, str) and key.startswith(LOCAL_FALLBACK_PREFIXES)


def when_answering(cache: BaseCache, action: Callable[[], None]) -> None:
    """Run ``action`` once ``cache`` answers again: for what a failed call could not even
    find out (the keys to delete). Only ``FailOpenRedisCache`` fails; for any other cache
    there is nothing to wait for."""
    defer = getattr(cache, "defer", None)
    if defer is not None:
        defer(action)


def incr_counter(cache: BaseCache, key: str, *, ttl: int) -> int:
    """Add one to the counter ``key``, created at 0 to expire ``ttl`` seconds from now.

    Atomic wherever the backend's ``add`` and ``incr`` are (LocMemCache holds a lock around
    each); a cache with its own ``incr_counter`` (FailOpenRedisCache) does it in one round trip.
    """
    own = getattr(cache, "incr_counter", None)
    if own is not None:
        return int(own(key, ttl=ttl))
    while True:
        cache.add(key, 0, ttl)
        try:
            return int(cache.incr(key))
        except ValueError:  # expired between add and incr: start it again
            continue


class SharedClientRedisCacheClient(RedisCacheClient):
    """Django's Redis cache client, with one ``redis.Redis`` per connection pool.

    Django builds a new ``redis.Redis`` object for every cache call; redis-py 8 fills a table
    of about 170 response callbacks in each, which cost more CPU (0.18 ms) than the round
    trip itself (0.12 ms), several times per request. A ``redis.Redis`` is thread-safe and
    its pool notices a fork, so one per pool is enough.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        django: Any = self  # Django's attributes, which its stubs do not declare
        index = django._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            pool = django._pools.get(index)
            if pool is None:
                pool = django._pools[index] = django._pool_class.from_url(
                    django._servers[index], **django._pool_options
                )
            client = self._clients[index] = django._client(connection_pool=pool)
        return client


# How many keys a process remembers to delete; past it the oldest are forgotten (the bound
# on their staleness is then their own expiry, as before).
MAX_STALE_KEYS = 100_000
# How often a process tries again to delete them while Redis does not answer.
STALE_RETRY_SECONDS = 1.0


class FailOpenRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedClientRedisCacheClient
        # Keys (as stored) whose write or delete failed: Redis may still hold an old value
        # (the module's docstring). An insertion-ordered dict as an ordered set.
        self._stale: dict[str, None] = {}
        self._stale_lock = threading.Lock()
        self._retrier: threading.Thread | None = None
        # What could not be done while Redis failed and is done once it answers (defer()).
        self._deferred: list[Callable[[], None]] = []

    def _remember_stale(self, keys: Iterable[Any], version: Any = None) -> None:
        stored = [self.make_and_validate_key(key, version) for key in keys if not _is_limit(key)]
        with self._stale_lock:
            for key in stored:
                self._stale[key] = None
            while len(self._stale) > MAX_STALE_KEYS:
                del self._stale[next(iter(self._stale))]
            self._start_retrier()

    def defer(self, action: Callable[[], None]) -> None:
        """Run ``action`` once Redis answers again (``when_answering``)."""
        with self._stale_lock:
            self._deferred.append(action)
            del self._deferred[:-MAX_STALE_KEYS]  # the oldest go past the bound
            self._start_retrier()

    def _start_retrier(self) -> None:
        if self._retrier is None or not self._retrier.is_alive():
            self._retrier = threading.Thread(
                target=self._retry_stale, name="cache-stale-keys", daemon=True
            )
            self._retrier.start()

    def _retry_stale(self) -> None:
        """Until the stale keys are gone: every second, try to delete them. Another process
        may read an old value from Redis until then; this bounds that to about a second after
        Redis answers again, however long this process waits for its next request."""
        while self._stale or self._deferred:
            time.sleep(STALE_RETRY_SECONDS)
            try:
                self._delete_stale()
            except redis.RedisError:
                continue

    def _delete_stale(self) -> None:
        """Delete the keys whose write or delete failed, and run the deferred actions, once
        Redis answers; first in every call, so that no read of this process meets their old
        values, and a write made now is not deleted after it. Raises ``redis.RedisError``
        while Redis is still away: the call then fails open at once, without a second wait."""
        if not self._stale and not self._deferred:
            return
        with self._stale_lock:
            keys = list(self._stale)
        if keys:
            self._cache.delete_many(keys)
        else:  # only deferred actions: run them once Redis answers, not at every failing call
            self._cache.get_client(None, write=True).ping()
        with self._stale_lock:
            for key in keys:
                self._stale.pop(key, None)
            actions, self._deferred = self._deferred, []
        for action in actions:  # each uses the cache, failing open (and deferring) as usual
            try:
                action()
            except Exception:
                logger.exception("a cache action deferred until Redis answered failed")

    def incr_counter(self, key: str, *, ttl: int) -> int:
        """INCR and EXPIRE, pipelined: one round trip.

        INCR is atomic, so concurrent requests can neither lose a count nor both see the same
        value. No MULTI/EXEC around the two (it costs a sixth more CPU per call): callers put
        the window in the key (infrastructure/throttles.py), so a counter whose EXPIRE were
        lost would never be read again, only left behind. While Redis is down the counter lives
        in this process instead (see the module's docstring).
        """
        full_key = self.make_and_validate_key(key)
        try:
            self._delete_stale()
            client = self._cache.get_client(full_key, write=True)
            with client.pipeline(transaction=False) as pipe:
                pipe.incr(full_key)
                pipe.expire(full_key, ttl)
                count, _ = pipe.execute()
            return int(count)
        except redis.RedisError as exc:
            _warn("incr_counter", exc)
            return incr_counter(local_limits, key, ttl=ttl)

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        try:
            self._delete_stale()
            return bool(super().add(key, value, timeout, version))
        except redis.RedisError as exc:
            _warn("add", exc)
            if _is_limit(key):
                return bool(local_limits.add(key, value, timeout, version))
            return True

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        try:
            self._delete_stale()
            return super().get(key, default, version)
        except redis.RedisError as exc:
            _warn("get", exc)
            if _is_limit(key):
                return local_limits.get(key, default, version)
            return default

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        try:
            self._delete_stale()
            super().set(key, value, timeout, version)
        except redis.RedisError as exc:
            _warn("set", exc)
            self._remember_stale([key], version)
            if _is_limit(key):
                local_limits.set(key, value, timeout, version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        try:
            self._delete_stale()
            return bool(super().touch(key, timeout, version))
        except redis.RedisError as exc:
            _warn("touch", exc)
            return False

    def delete(self, key: Any, version: Any = None) -> bool:
        try:
            self._delete_stale()
            return bool(super().delete(key, version))
        except redis.RedisError as exc:
            _warn("delete", exc)
            self._remember_stale([key], version)
            if _is_limit(key):
                return bool(local_limits.delete(key, version))
            return False

    def get_many(self, keys: Any, version: Any = None) -> dict[Any, Any]:
        keys = list(keys)
        try:
            self._delete_stale()
            return dict(super().get_many(keys, version))
        except redis.RedisError as exc:
            _warn("get_many", exc)
            return dict(local_limits.get_many([k for k in keys if _is_limit(k)], version))

    def has_key(self, key: Any, version: Any = None) -> bool:
        try:
            self._delete_stale()
            return bool(super().has_key(key, version))
        except redis.RedisError as exc:
            _warn("has_key", exc)
            return False

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        try:
            self._delete_stale()
            return int(super().incr(key, delta, version))
        except redis.RedisError as exc:
            _warn("incr", exc)
            self._remember_stale([key], version)
            return delta

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> list[Any]:
        try:
            self._delete_stale()
            return list(super().set_many(data, timeout, version))
        except redis.RedisError as exc:
            _warn("set_many", exc)
            self._remember_stale(data, version)
            return list(data)

    def delete_many(self, keys: Any, version: Any = None) -> None:
        keys = list(keys)  # a generator would be spent by the failed call
        try:
            self._delete_stale()
            super().delete_many(keys, version)
        except redis.RedisError as exc:
            _warn("delete_many", exc)
            self._remember_stale(keys, version)
