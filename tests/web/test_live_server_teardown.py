"""A test may end while the live server is still answering one of its requests (a page's fetch
the browser sent just before the test closed it). On SQLite the live server's threads share the
test's in-memory connection, so the test database's flush ran beside that request and failed on
its open read: "database table is locked", a teardown error under load. The flush now waits for
the live server's requests to end (tests/conftest.py, ``_live_server_quiet_for_flush``)."""

from __future__ import annotations

import threading
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.signals import request_started
from django.db import connection

HOLD = "HTTP_X_TEST_HOLD_A_READ"


@pytest.fixture
def held_read() -> Iterator[threading.Event]:
    """A live-server request that, marked so, keeps a read open for a moment, as a page's
    fetch does while the test ends."""
    reading = threading.Event()

    def hold(sender: Any, environ: dict[str, Any] | None = None, **_: Any) -> None:
        if not environ or HOLD not in environ:
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT id FROM django_content_type")
            cursor.fetchone()  # the statement stays open on the rows after the first
            reading.set()
            threading.Event().wait(0.5)

    request_started.connect(hold)
    yield reading
    request_started.disconnect(hold)


def test_a_request_still_running_when_the_test_ends_does_not_break_the_flush(
    live_server: Any, held_read: threading.Event
) -> None:
    request = urllib.request.Request(
        live_server.url + "/healthz/", headers={"X-Test-Hold-A-Read": "1"}
    )
    answers: list[int] = []
    client = threading.Thread(
        target=lambda: answers.append(urllib.request.urlopen(request, timeout=10).status),
        daemon=True,
    )
    client.start()
    assert held_read.wait(10), "the request did not start reading"
    assert answers == []  # still running as the test ends: the teardown's flush comes next
