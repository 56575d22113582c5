"""Fixtures shared by the whole suite."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

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

    from infrastructure.cache import local_limits

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


# --- The live server and the test database's flush ---

# How long the flush waits for the live server's requests to end, and how long a request that
# arrives during the flush waits for it: far above a request's milliseconds, a bound on a hang.
LIVE_SERVER_DRAIN_SECONDS = 10.0


class _LiveServerGate:
    """Keeps the live server's requests and the test database's flush apart.

    A request still running when a test ends (a page's fetch sent just before the test closed
    the browser) read or wrote rows while the flush deleted them. Each request passes through
    here; before the flush no new one starts and the running ones are waited for, and after it
    (the next live server test) they go on. Waiting costs nothing when no request is running,
    the usual case.

    On SQLite the requests also run one at a time (``one_at_a_time``), as SQLite writes anyway.
    It began with the in-memory test database of old, whose connections shared one cache: two
    of a page's fetches at once deadlocked the test process there, and a read beside a write
    failed at once with "database table is locked". The test database is a file now
    (scorpion_site/test_settings.py), where readers go on beside the writer.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._running = 0
        self._open = True
        self.one_at_a_time = False

    def wrap(self, app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
        def gated(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            with self._changed:
                self._changed.wait_for(self._may_start, timeout=LIVE_SERVER_DRAIN_SECONDS)
                self._running += 1
            try:
                result = app(environ, start_response)
            except BaseException:
                self._done()
                raise
            return _ClosedThen(result, self._done)

        return gated

    def _may_start(self) -> bool:
        return self._open and not (self.one_at_a_time and self._running)

    def _done(self) -> None:
        with self._changed:
            self._running -= 1
            self._changed.notify_all()

    def close_and_drain(self) -> None:
        with self._changed:
            self._open = False
            self._changed.wait_for(lambda: self._running == 0, timeout=LIVE_SERVER_DRAIN_SECONDS)

    def open(self) -> None:
        with self._changed:
            self._open = True
            self._changed.notify_all()


class _ClosedThen:
    """A WSGI response that calls ``then`` once the server closes it (after the body, when
    Django's request_finished runs; the server closes it on a client's disconnection too)."""

    def __init__(self, result: Iterable[bytes], then: Callable[[], None]) -> None:
        self.result = result
        self.then: Callable[[], None] | None = then

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.result)

    def close(self) -> None:
        try:
            close = getattr(self.result, "close", None)
            if close is not None:
                close()
        finally:
            then, self.then = self.then, None
            if then is not None:
                then()


live_server_gate = _LiveServerGate()


@pytest.fixture(autouse=True)
def _live_server_quiet_for_flush(request: pytest.FixtureRequest) -> Iterator[None]:
    """For a test that uses ``live_server``: its requests end before the test database is
    flushed (``_LiveServerGate``). Set up after ``transactional_db``, so torn down before it."""
    if "live_server" not in request.fixturenames:
        yield
        return
    from django.db import connection

    request.getfixturevalue("transactional_db")
    server = request.getfixturevalue("live_server").thread.httpd
    if not getattr(server, "scorpion_gated", False):
        server.set_app(live_server_gate.wrap(server.get_app()))
        server.scorpion_gated = True
        live_server_gate.one_at_a_time = connection.vendor == "sqlite"
    live_server_gate.open()
    yield
    live_server_gate.close_and_drain()


# --- Today's daily challenge, with a deal whose winning line the tests know ---


@pytest.fixture
def steady_session_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    """For a test that counts a page's queries across a slow arrange step: without Redis a
    session's user snapshot lives seconds (accounts/sessions.py), and its lapse would add the
    session's and the user's reads to one count and not the other. The count is the page's."""
    from accounts import sessions

    monkeypatch.setattr(sessions, "LOCAL_USER_SNAPSHOT_TTL", sessions.USER_SNAPSHOT_TTL)


@pytest.fixture
def today(db: None) -> Any:
    """Today (UTC), its daily challenge dealt the first won deal of tests/data (its winning line
    is ``tests.stats.conftest.LINE``), so tests can play the daily through the API."""
    from django.utils import timezone

    from games.models import DailyDeal
    from tests.stats.conftest import CODE, LINE, certified

    day = timezone.now().date()
    DailyDeal.objects.create(date=day, candidate=0, **certified({"code": CODE, "line": LINE}, 5))
    return day


def small_chances(monkeypatch: pytest.MonkeyPatch, *, samples: int, node_budget: int) -> None:
    """Winning chances on a few samples with a small search each, computed in the request (no
    worker seen): the answer's shape and fairness do not need 200 samples; the tests' time does."""
    from games.services import chances as chances_services
    from games.services import workers as workers_services
    from games.variants import CHANCES_VARIANTS

    monkeypatch.setattr(chances_services, "CHANCE_SAMPLES", samples)
    monkeypatch.setattr(chances_services, "INLINE_CHANCE_SAMPLES", samples)
    monkeypatch.setattr(chances_services, "CHANCE_WORK_BUDGET", None)
    monkeypatch.setattr(
        chances_services, "INLINE_CHANCE_WORK_BUDGETS", dict.fromkeys(CHANCES_VARIANTS)
    )
    monkeypatch.setattr(chances_services, "CHANCE_NODE_BUDGET", node_budget)
    monkeypatch.setattr(workers_services, "worker_available", lambda _queue: False)


@pytest.fixture
def archive_dir(settings: Any, tmp_path: Any) -> Any:
    """The archive of finished games' logs (games/archive.py) in a directory of the test's own:
    this process's storage, and the ARCHIVE_DIR to give a worker process."""
    from games.archive import ARCHIVE_STORAGE

    directory = tmp_path / "archive"
    settings.STORAGES = {
        **settings.STORAGES,
        ARCHIVE_STORAGE: {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(directory)},
        },
    }
    return directory
