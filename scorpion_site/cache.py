"""A Redis cache that fails open: with Redis down, reads miss and writes are dropped.

Everything we cache (rate-limit counters, throttle histories) is an optimisation or a
safeguard, never the truth, so an outage of Redis must degrade the service, not stop play.
Django's own RedisCache raises on every call while Redis is down; this one logs and goes on.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger(__name__)


def _warn(operation: str, exc: Exception) -> None:
    logger.warning("cache %s failed, carrying on without the cache: %s", operation, exc)


class FailOpenRedisCache(RedisCache):
    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        try:
            return bool(super().add(key, value, timeout, version))
        except redis.RedisError as exc:
            _warn("add", exc)
            return True

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        try:
            return super().get(key, default, version)
        except redis.RedisError as exc:
            _warn("get", exc)
            return default

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        try:
            super().set(key, value, timeout, version)
        except redis.RedisError as exc:
            _warn("set", exc)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        try:
            return bool(super().touch(key, timeout, version))
        except redis.RedisError as exc:
            _warn("touch", exc)
            return False

    def delete(self, key: Any, version: Any = None) -> bool:
        try:
            return bool(super().delete(key, version))
        except redis.RedisError as exc:
            _warn("delete", exc)
            return False

    def get_many(self, keys: Any, version: Any = None) -> dict[Any, Any]:
        try:
            return dict(super().get_many(keys, version))
        except redis.RedisError as exc:
            _warn("get_many", exc)
            return {}

    def has_key(self, key: Any, version: Any = None) -> bool:
        try:
            return bool(super().has_key(key, version))
        except redis.RedisError as exc:
            _warn("has_key", exc)
            return False

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        try:
            return int(super().incr(key, delta, version))
        except redis.RedisError as exc:
            _warn("incr", exc)
            return delta

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> list[Any]:
        try:
            return list(super().set_many(data, timeout, version))
        except redis.RedisError as exc:
            _warn("set_many", exc)
            return list(data)

    def delete_many(self, keys: Any, version: Any = None) -> None:
        try:
            super().delete_many(keys, version)
        except redis.RedisError as exc:
            _warn("delete_many", exc)
