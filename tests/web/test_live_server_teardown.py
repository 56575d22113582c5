"""The live server on SQLite, whose threads' connections share the test's database.

A test may end while the live server is still answering one of its requests (a page's fetch
the browser sent just before the test closed it): the test database's flush ran beside that
request and failed on its open read, "database table is locked", a teardown error under load.
The flush now waits for the live server's requests to end, and on SQLite they run one at a
time. tests/conftest.py, ``_LiveServerGate``. And the test database is a file, not the shared
in-memory database whose table locks failed a read beside the test's write at once."""

from __future__ import annotations

import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.signals import request_started
from django.db import connection, transaction
from django.db.models import F

from tests.conftest import live_server_gate

HOLD = "HTTP_X_TEST_HOLD_A_READ"


class Held:
    """A live-server request that, marked so, keeps a read open for a moment, as a page's
    fetch does while the test ends."""

    def __init__(self) -> None:
        self.reading = threading.Event()
        self.finished = threading.Event()

    def __call__(self, sender: Any, environ: dict[str, Any] | None = None, **_: Any) -> None:
        if not environ or HOLD not in environ:
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT id FROM django_content_type")
            cursor.fetchone()  # the statement stays open on the rows after the first
            self.reading.set()
            time.sleep(0.5)
        self.finished.set()


@pytest.fixture
def held() -> Iterator[Held]:
    receiver = Held()
    request_started.connect(receiver)
    yield receiver
    request_started.disconnect(receiver)


def send_marked(url: str) -> None:
    request = urllib.request.Request(url + "/healthz/", headers={"X-Test-Hold-A-Read": "1"})
    threading.Thread(
        target=urllib.request.urlopen, args=(request,), kwargs={"timeout": 10}, daemon=True
    ).start()


def test_the_flush_waits_for_a_request_still_running(live_server: Any, held: Held) -> None:
    send_marked(live_server.url)
    assert held.reading.wait(10), "the request did not start reading"
    # What the teardown does before the flush (and does again after this test).
    live_server_gate.close_and_drain()
    try:
        assert held.finished.is_set()
    finally:
        live_server_gate.open()


def test_requests_on_the_shared_connection_run_one_at_a_time(live_server: Any) -> None:
    # On SQLite (one shared in-memory database) the gate lets one request in at a time; on
    # PostgreSQL they run side by side. Either way all three pass the gate and finish.
    serial = connection.vendor == "sqlite"
    lock = threading.Lock()
    inside = [0]
    most = [0]
    done = [0]

    def overlap(sender: Any, environ: dict[str, Any] | None = None, **_: Any) -> None:
        if not environ or HOLD not in environ:
            return
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.2)
        with lock:
            inside[0] -= 1
            done[0] += 1

    request_started.connect(overlap)
    try:
        for _ in range(3):
            send_marked(live_server.url)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (most[0] and not inside[0] and done[0] == 3):
            time.sleep(0.05)
    finally:
        request_started.disconnect(overlap)
    assert done[0] == 3
    if serial:
        assert most[0] == 1
    else:
        assert most[0] >= 1


def test_a_request_reads_a_table_the_test_is_writing(live_server: Any) -> None:
    # The test's thread writes (a command sent through the test client) while a live server's
    # thread reads the same table (the other device's page): the read waits for nothing and
    # sees the last committed rows. On the in-memory test database of old, whose connections
    # shared SQLite's table locks, it failed at once, "database table is locked", a 500 that
    # made tests/web/test_live.py flaky (scorpion_site/test_settings.py: a file instead).
    read: list[object] = []

    def read_while_written(sender: Any, environ: dict[str, Any] | None = None, **_: Any) -> None:
        if not environ or HOLD not in environ:
            return
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM django_content_type")
                read.append(cursor.fetchone()[0])
        except Exception as exc:  # the failure is what the test reports
            read.append(exc)

    expected = ContentType.objects.count()
    request_started.connect(read_while_written)
    try:
        with transaction.atomic():
            ContentType.objects.filter(app_label="games").update(model=F("model"))
            send_marked(live_server.url)
            deadline = time.monotonic() + 10
            while not read and time.monotonic() < deadline:
                time.sleep(0.05)
    finally:
        request_started.disconnect(read_while_written)
    assert read == [expected]
