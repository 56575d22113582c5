"""Stream tests: the real ASGI application (stream router + Django) served by uvicorn in a
thread of the test process, against the test database, as ``make run`` serves it.

pytest-django's ``live_server`` is a WSGI server, which cannot hold a stream open; this one is
the ASGI twin. Commands may go through it or through the in-process API client: either way
they commit in this process and publish through the process's hub (Redis when ``REDIS_URL`` is
set, else in-process), which is what the streams follow.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.api.conftest import Player, sign_up
from tests.asgi_server import asgi_server  # noqa: F401  (the fixture)

_players = iter(range(10**9))


@pytest.fixture
def make_player(transactional_db: None) -> Callable[[], Player]:
    def make() -> Player:
        return sign_up(f"streamer{next(_players)}@example.com")

    return make


@pytest.fixture
def player(make_player: Callable[[], Player]) -> Player:
    return make_player()


# --- Reading a stream ---


@dataclass
class Frame:
    """One block of an event stream, up to its blank line (an event, or comments, or an id)."""

    id: str | None = None
    event: str | None = None
    data: str | None = None
    retry: int | None = None
    comments: list[str] = field(default_factory=list)

    def json(self) -> Any:
        import json

        assert self.data is not None
        return json.loads(self.data)


class Reader:
    """Frames of an open ``text/event-stream`` response, one at a time."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.lines = response.iter_lines()

    def frame(self) -> Frame:
        frame = Frame()
        seen = False
        for line in self.lines:
            if line == "":
                if seen:
                    return frame
                continue
            seen = True
            if line.startswith(":"):
                frame.comments.append(line[1:].strip())
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "id":
                frame.id = value
            elif name == "event":
                frame.event = value
            elif name == "data":
                frame.data = value if frame.data is None else frame.data + "\n" + value
            elif name == "retry":
                frame.retry = int(value)
        raise EOFError("the stream ended")

    def event(self) -> Frame:
        """The next frame that is an event (skipping comments, bare ids and heartbeats)."""
        while True:
            frame = self.frame()
            if frame.data is not None and frame.event != "heartbeat":
                return frame

    def events_until(self, condition: Callable[[Frame], bool]) -> list[Frame]:
        frames = []
        while True:
            frame = self.event()
            frames.append(frame)
            if condition(frame):
                return frames

    def rest(self) -> list[Frame]:
        """Every remaining event, until the server ends the stream."""
        frames = []
        while True:
            try:
                frames.append(self.event())
            except EOFError:
                return frames


def ends_soon(reader: Reader) -> list[str]:
    """Reads the stream to its end, which must be its credentials check's: the comment that
    says so, not the silent end of its lifetime (STREAM_MAX_SECONDS, 30 s with
    ``fast_credential_checks``, thirty of its checks). The server's own clock orders the two,
    whatever the speed of the machine. Answers the comments seen on the way."""
    comments: list[str] = []
    while True:
        try:
            frame = reader.frame()
        except EOFError:
            break
        comments += frame.comments
    assert "credentials no longer valid" in comments, "the stream did not end at a check"
    return comments


@pytest.fixture
def fast_credential_checks(settings: Any) -> None:
    """An open stream's credentials are checked again every second (STREAM_CREDENTIALS_SECONDS),
    and its lifetime ends after thirty of them (``ends_soon``)."""
    settings.STREAM_CREDENTIALS_SECONDS = 1
    settings.STREAM_MAX_SECONDS = 30


class Streams:
    """Opens streams on the ASGI server as a player (or as nobody)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx.Client(base_url=url, timeout=httpx.Timeout(10.0))
        self.open: list[Any] = []

    def connect(
        self, path: str, token: str | None = None, **headers: str
    ) -> tuple[httpx.Response, Reader]:
        if token is not None:
            headers["X-Session-Token"] = token
        context = self.client.stream("GET", path, headers=headers)
        response = context.__enter__()
        self.open.append(context)
        return response, Reader(response)

    def close(self) -> None:
        for context in reversed(self.open):
            with contextlib.suppress(httpx.HTTPError):
                context.__exit__(None, None, None)
        self.client.close()


@pytest.fixture
def streams(asgi_server: str) -> Iterator[Streams]:  # noqa: F811
    opened = Streams(asgi_server)
    yield opened
    opened.close()
