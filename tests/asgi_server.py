"""An ASGI twin of pytest-django's ``live_server``: the real ASGI application (the stream
router in front of Django) served by uvicorn in a thread of the test process, on the test
database, as ``make run`` serves it. ``live_server`` is WSGI, which cannot hold a stream open.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application
from django.db import connections

from games.broadcast import hub
from games.streams import slots
from games.streams.app import StreamRouter


class AsgiServer:
    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = int(self.sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        # Static files from the apps' folders, as live_server serves them (no collectstatic).
        config = uvicorn.Config(
            StreamRouter(ASGIStaticFilesHandler(get_asgi_application())),
            log_level="warning",
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> AsgiServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)
        self.sock.close()


@pytest.fixture
def asgi_server(transactional_db: None, settings: Any) -> Iterator[str]:
    """The URL of a fresh ASGI server on the test database."""
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "127.0.0.1", "testserver"]
    database = connections.settings["default"]
    kept = database.get("CONN_MAX_AGE")
    # As scorpion_site/asgi.py does: each request's connection closes when it ends, so nothing
    # is left open in the server's threads when the test database goes.
    database["CONN_MAX_AGE"] = 0
    hub.reset_hub()
    slots.reset_slots()
    try:
        with AsgiServer() as server:
            yield server.url
    finally:
        database["CONN_MAX_AGE"] = kept
        hub.reset_hub()
        slots.reset_slots()
