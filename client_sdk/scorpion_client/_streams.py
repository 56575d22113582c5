"""Following a live stream: the request to (re)open it with, each event read into a model,
and how long to wait after an answer, an end or a failure before opening it again. Both
clients share this; they only do the I/O."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import httpx

from scorpion_client._problem_details import problem_code
from scorpion_client._retries import parse_retry_after
from scorpion_client._sse import ServerSentEvent, SSEDecoder
from scorpion_client.errors import UnexpectedResponse
from scorpion_client.models import (
    ChallengeResult,
    DailyResult,
    FeedEvent,
    FeedResync,
    FriendBeatTime,
    GameCreated,
    GameEnded,
    GameResync,
    GameStreamEvent,
    GameUpdate,
)

if TYPE_CHECKING:
    from scorpion_client._core import BaseClient

T = TypeVar("T")


END_EVENT = "end"
HEARTBEAT_EVENT = "heartbeat"
# The server's heartbeat interval until it says otherwise (its ``heartbeat`` events do).
DEFAULT_HEARTBEAT_SECONDS = 15.0


@dataclass(frozen=True)
class StreamSpec(Generic[T]):
    """A stream to follow: its path and query, and how to read each event (None: skip it)."""

    path: str
    read: Callable[[ServerSentEvent], T | None]
    params: Mapping[str, str | int] | None = None


@dataclass(frozen=True)
class StreamOptions:
    """How a stream is followed.

    ``read_timeout``: seconds without a byte before the connection is deemed dead and opened
    again (resuming with ``Last-Event-ID``); None (the default): two missed heartbeats, that
    is twice the interval the server announces in its ``heartbeat`` events, plus a second
    (31 s for the server's default of 15 s). ``max_failures``: failed connection
    attempts in a row before giving up (``TransportError``, or the server's error); None to
    try forever. Waits between attempts: full-jitter exponential backoff from
    ``backoff_base`` up to ``backoff_max`` seconds, or the server's ``Retry-After``.
    ``stop``: asked whenever anything arrives, heartbeats included (so at least every 15 s):
    True ends the iteration, e.g. from another thread of the program.
    """

    read_timeout: float | None = None
    max_failures: int | None = 10
    backoff_base: float = 0.5
    backoff_max: float = 15.0
    stop: Callable[[], bool] | None = None

    def backoff(self, failures: int) -> float:
        return random.uniform(0.0, min(self.backoff_max, self.backoff_base * 2 ** (failures - 1)))


class StreamFollower(Generic[T]):
    """What both clients do with a stream, apart from the I/O: the request to send (with
    ``Last-Event-ID`` once an id was seen), what each event becomes, and how long to wait
    after each answer, end or failure before opening it again (None: stop)."""

    def __init__(
        self,
        spec: StreamSpec[T],
        options: StreamOptions,
        last_event_id: str | None = None,
    ) -> None:
        self.spec = spec
        self.options = options
        self.last_event_id = last_event_id
        self.failures = 0
        self.received = False  # anything received on the current connection
        self.ended = False  # the server said the stream is over ("end")
        self.decoder = SSEDecoder()
        self.heartbeat_seconds = DEFAULT_HEARTBEAT_SECONDS  # as the server last announced it
        self.connection_timeout = 0.0  # the read timeout the current connection was opened with
        self.reopen = False  # open the connection again now (with a shorter read timeout)

    def read_timeout(self) -> float:
        """Seconds without a byte before the connection is deemed dead: two missed
        heartbeats, unless the options say otherwise."""
        if self.options.read_timeout is not None:
            return self.options.read_timeout
        return 2 * self.heartbeat_seconds + 1.0

    def request(self, client: BaseClient, http: httpx.Client | httpx.AsyncClient) -> httpx.Request:
        headers = {
            **client.default_headers,
            "Accept": "text/event-stream",
            "Cache-Control": "no-cache",
            **client.credentials.headers(),
        }
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        self.received = False
        self.reopen = False
        self.decoder = SSEDecoder()
        self.connection_timeout = self.read_timeout()
        url = client.base_url.join(self.spec.path.lstrip("/"))
        params = dict(self.spec.params or {}) if self.last_event_id is None else None
        return http.build_request(
            "GET",
            url,
            params=params,
            headers=headers,
            timeout=httpx.Timeout(self.connection_timeout, connect=10.0),
        )

    def delay_after_answer(self, response: httpx.Response) -> float | None:
        """A non-200 answer (body read): the wait before trying again, or None to raise it."""
        if response.status_code not in (429, 500, 502, 503, 504):
            return None
        if response.status_code == 503 and problem_code(response) == "stream_unavailable":
            return None  # not a passing condition: this server serves no streams
        delay = self._failure()
        if delay is None:
            return None
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        return delay if retry_after is None else retry_after

    def line(self, text: str) -> T | None:
        """One line of the stream: the event it completes, if any."""
        self.received = True
        if self.options.stop is not None and self.options.stop():
            self.ended = True
            return None
        event = self.decoder.feed(text)
        if event is None:
            return None
        self.failures = 0
        if event.id is not None:
            self.last_event_id = event.id
        if event.event == END_EVENT:
            self.ended = True
            return None
        if event.event == HEARTBEAT_EVENT:
            self._heartbeat(event)
            return None
        if event.data is None:
            return None
        return self.spec.read(event)

    def _heartbeat(self, event: ServerSentEvent) -> None:
        """The server's heartbeat (the first comes as the stream opens): it says how often the
        next ones come. A connection opened expecting them less often is opened again at once,
        so that a silent one is noticed after two missed heartbeats."""
        try:
            seconds = float(_event_json(event)["interval_seconds"])
        except (KeyError, TypeError, ValueError, UnexpectedResponse):
            return
        if seconds > 0:
            self.heartbeat_seconds = seconds
            self.reopen = self.read_timeout() < self.connection_timeout

    def delay_after_close(self, error: Exception | None) -> float | None:
        """The connection closed (cleanly, or with ``error``): the wait before opening it
        again, or None to stop (the stream ended, or too many failures)."""
        if self.options.stop is not None and self.options.stop():
            self.ended = True
        if self.ended:
            return None
        if error is None and self.received:
            return 0.0  # the server closed a stream that worked (its lifetime): resume now
        return self._failure()

    def _failure(self) -> float | None:
        self.failures += 1
        limit = self.options.max_failures
        if limit is not None and self.failures > limit:
            return None
        return self.options.backoff(self.failures)


def _event_json(event: ServerSentEvent) -> Mapping[str, Any]:
    import json

    data = json.loads(event.data or "null")
    if not isinstance(data, Mapping):
        raise UnexpectedResponse(f"a {event.event} event without a JSON object: {event.data!r}")
    return data


def read_game_event(event: ServerSentEvent) -> GameStreamEvent | None:
    try:
        if event.event == "command":
            return GameUpdate.from_json(_event_json(event))
        if event.event == "resync":
            return GameResync.from_json(_event_json(event))
    except (KeyError, TypeError, ValueError, AssertionError) as exc:
        raise UnexpectedResponse(f"cannot read a {event.event} event: {exc}") from exc
    return None  # an event this SDK does not know yet


def read_feed_event(event: ServerSentEvent) -> FeedEvent | None:
    readers: dict[str, Callable[[Mapping[str, Any]], FeedEvent]] = {
        "game_created": GameCreated.from_json,
        "game_finished": GameEnded.from_json,
        "daily_result": DailyResult.from_json,
        "challenge_result": ChallengeResult.from_json,
        "friend_beat_time": FriendBeatTime.from_json,
        "resync": lambda data: FeedResync(),
    }
    reader = readers.get(event.event)
    if reader is None:
        return None
    try:
        return reader(_event_json(event))
    except (KeyError, TypeError, ValueError, AssertionError) as exc:
        raise UnexpectedResponse(f"cannot read a {event.event} event: {exc}") from exc
