"""Fixtures shared by the whole suite."""

from __future__ import annotations

import contextlib
import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require_service(name: str, available: bool) -> None:
    """Skip a test that needs a service when developing without it; in CI, fail instead."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"{name} is required in CI but is not configured")
    pytest.skip(f"{name} not configured (set it up or run .ci/run)")


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Rate-limit counters and cached hints live in the cache; each test starts clean."""
    from django.conf import settings
    from django.core.cache import cache

    from scorpion_site.cache import local_limits

    local_limits.clear()  # the counters that stand in for Redis's while it is down
    # A test that stops Redis on purpose must still be able to start.
    with contextlib.suppress(Exception):
        if settings.REDIS_URL:
            # Not cache.clear(): that flushes the whole Redis database, the Celery broker's
            # queues and bindings included. Only the cache's own keys go.
            import redis

            client = redis.Redis.from_url(settings.REDIS_URL)
            prefix = settings.CACHES["default"]["KEY_PREFIX"]
            for key in client.scan_iter(match=f"{prefix}:*", count=1000):
                client.delete(key)
        else:
            cache.clear()
