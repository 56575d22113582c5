"""The SDK follows games and the player's feed live, and resumes without a gap or a duplicate
when the connection drops: against the ASGI server (the stream server), over real HTTP."""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import httpx
import pytest
from scorpion_client import (
    AsyncScorpion,
    AuthenticationError,
    ChallengeResult,
    DailyResult,
    FriendBeatTime,
    GameCreated,
    GameEnded,
    GameResync,
    GameUpdate,
    NotFound,
    RateLimited,
    Scorpion,
    ServiceUnavailable,
    StreamOptions,
)
from scorpion_client._core import SSEDecoder

from tests.asgi_server import asgi_server  # noqa: F401  (the fixture)
from tests.sdk.conftest import PASSWORD, WON_DEAL, fast_async_transport, fast_transport, new_email
from tests.swallowing_proxy import SwallowingProxy

pytestmark = pytest.mark.django_db(transaction=True)

LINE: list[dict[str, Any]] = WON_DEAL["line"]


def is_stream(request: httpx.Request) -> bool:
    return request.url.path.endswith("/stream/")


class _Dropping(httpx.SyncByteStream):
    """A stream's body that breaks off, as a dropped connection does, after ``events``."""

    def __init__(self, inner: httpx.SyncByteStream, events: int) -> None:
        self.inner = inner
        self.events = events

    def __iter__(self) -> Iterator[bytes]:
        seen = 0
        for chunk in self.inner:
            yield chunk
            seen += chunk.count(b"\nevent: command\n")
            if seen >= self.events:
                raise httpx.ReadError("connection reset by peer")

    def close(self) -> None:
        self.inner.close()


class DropStreams(httpx.BaseTransport):
    """Every stream connection breaks after ``events`` command events; records the requests."""

    def __init__(self, events: int = 2) -> None:
        self.inner = fast_transport()
        self.events = events
        self.streams: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if not is_stream(request) or response.status_code != 200:
            return response
        self.streams.append(request)
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Dropping(response.stream, self.events),
            request=request,
        )

    def close(self) -> None:
        self.inner.close()


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def async_sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("scorpion_client._sync._sleep", sleep)
    monkeypatch.setattr("scorpion_client._async._sleep", async_sleep)
    return waits


@pytest.fixture
def clients(asgi_server: str) -> Iterator[Callable[..., Scorpion]]:  # noqa: F811
    made: list[Scorpion] = []

    def make(token: str | None = None, **kwargs: Any) -> Scorpion:
        kwargs.setdefault("transport", fast_transport())
        client = Scorpion(asgi_server, token=token, **kwargs)
        made.append(client)
        if token is None:
            client.auth.signup(new_email(), PASSWORD)
        return client

    yield make
    for client in made:
        client.close()


class Collector:
    """Consumes an iterator in a thread; the test reads what it got, as it comes."""

    def __init__(self, items: Iterable[Any]) -> None:
        self.items: queue.Queue[Any] = queue.Queue()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(items,), daemon=True)
        self.thread.start()

    def _run(self, items: Iterable[Any]) -> None:
        try:
            for item in items:
                self.items.put(item)
        except BaseException as exc:
            self.error = exc
        finally:
            self.items.put(StopIteration)

    def next(self, timeout: float = 15) -> Any:
        item = self.items.get(timeout=timeout)
        if item is StopIteration:
            raise AssertionError(f"the stream ended ({self.error!r})")
        return item

    def rest(self, timeout: float = 15) -> list[Any]:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the stream did not end"
        items = []
        while (item := self.items.get_nowait()) is not StopIteration:
            items.append(item)
        if self.error is not None:
            raise self.error
        return items


def test_a_move_on_another_device_reaches_the_handle_at_once(
    clients: Callable[..., Scorpion],
) -> None:
    laptop = clients()
    phone = clients(laptop.token)
    game = laptop.games.create(code=WON_DEAL["code"])
    followed = Collector(game.stream())
    elsewhere = phone.games.get(game.id)
    for step in LINE[:3]:
        event = elsewhere.move(step["card"], step.get("to"))
        update = followed.next()
        assert isinstance(update, GameUpdate)
        assert update.version == elsewhere.version
        assert update.event.seq == event.seq
        assert update.event.card == step["card"]
        assert update.game.columns == elsewhere.columns
    assert game.version == 3  # the handle followed, with no request of its own
    assert game.columns == elsewhere.columns
    assert game.last_event is not None
    assert game.last_event.seq == 3
    elsewhere.resign()
    ended = followed.rest()
    assert [type(item) for item in ended] == [GameUpdate]
    assert game.status == "resigned"


def test_a_dropped_connection_resumes_with_last_event_id_no_gap_no_duplicate(
    clients: Callable[..., Scorpion], sleeps: list[float]
) -> None:
    player = clients()
    dropping = DropStreams(events=2)
    follower = clients(player.token, transport=dropping)
    game = player.games.create(code=WON_DEAL["code"])
    followed = Collector(follower.games.stream(game.id, since=0))
    versions = []
    for step in LINE[:9]:
        versions.append(game.move(step["card"], step.get("to")).seq)
        followed.next()  # each move arrives before the next is made
    game.undo()
    game.redo()
    game.resign()
    updates = followed.rest()
    log = player.games.events(game.id)
    # Everything, once, in order, whatever the drops: exactly the log.
    assert [u.version for u in updates] == [event.seq for event in log][9:]
    assert len(dropping.streams) >= 6  # it did drop, again and again
    resumed = [request.headers.get("Last-Event-ID") for request in dropping.streams[1:]]
    assert resumed[0] == "2"
    assert all(value is not None for value in resumed)
    # A connection that worked and broke is opened again after a short wait (backoff from
    # 0.5 s, growing only while attempts keep failing).
    assert len(sleeps) == len(dropping.streams) - 1
    assert all(0 <= wait <= 0.5 for wait in sleeps)


def test_every_event_of_the_log_arrives_once_across_drops(
    clients: Callable[..., Scorpion], sleeps: list[float]
) -> None:
    player = clients()
    dropping = DropStreams(events=1)
    follower = clients(player.token, transport=dropping)
    game = player.games.create(code=WON_DEAL["code"])
    collected = Collector(follower.games.stream(game.id, since=0))
    for step in LINE[:6]:
        game.move(step["card"], step.get("to"))
    for _ in range(3):
        game.undo()
    game.resign()
    updates = collected.rest()
    log = player.games.events(game.id)
    assert [u.version for u in updates] == [event.seq for event in log]
    assert [u.event.type for u in updates] == [event.type for event in log]
    assert [u.event.card for u in updates] == [event.card for event in log]
    assert updates[-1].game.status == "resigned"


def test_a_first_connection_without_a_version_starts_with_the_whole_game(
    clients: Callable[..., Scorpion],
) -> None:
    player = clients()
    game = player.games.create(code=WON_DEAL["code"])
    game.move(LINE[0]["card"])
    stream = player.games.stream(game.id)
    first = next(iter(stream))
    assert isinstance(first, GameResync)
    assert first.version == 1
    assert first.game.columns == game.columns


def test_the_async_client_follows_with_async_for(clients: Callable[..., Scorpion]) -> None:
    player = clients()
    game = player.games.create(code=WON_DEAL["code"])
    url = str(player.base_url)

    async def follow() -> list[int]:
        async with AsyncScorpion(
            url, token=player.token, transport=fast_async_transport()
        ) as client:
            handle = await client.games.get(game.id)
            seen = []
            async for update in handle.stream():
                seen.append(update.version)
                # The stream can be quicker than the answer: play without the version check.
                if update.version == 1:
                    await asyncio.to_thread(
                        game.move, LINE[1]["card"], LINE[1].get("to"), check_version=False
                    )
                if update.version == 2:
                    await asyncio.to_thread(game.resign, check_version=False)
            assert handle.version == 3
            assert handle.status == "resigned"
            return seen

    async def main() -> list[int]:
        task = asyncio.create_task(follow())
        await asyncio.sleep(0.5)
        await asyncio.to_thread(game.move, LINE[0]["card"], LINE[0].get("to"))
        return await asyncio.wait_for(task, 30)

    assert asyncio.run(main()) == [1, 2, 3]


def test_the_feed_brings_typed_events(clients: Callable[..., Scorpion]) -> None:
    player = clients()
    # From a moment before the game: whether the stream connects before or after it is created,
    # the creation is in the feed (replayed from the games, or live).
    since = str(int(time.time() * 1_000_000) - 1)
    feed = Collector(player.me.stream(last_event_id=since))
    created = player.games.create()
    # A random game of the account's left open by an earlier test is abandoned by this one,
    # and that is in the feed too (GameEnded, "abandoned"): this game's own events are awaited.
    seen: list[Any] = []

    def next_of(kind: type) -> Any:
        while True:
            item: Any = feed.next()
            seen.append(item)
            assert isinstance(item, (GameCreated, GameEnded)), seen
            if isinstance(item, kind) and item.game.id == created.id:
                return item

    assert next_of(GameCreated).game.id == created.id
    created.resign()
    assert next_of(GameEnded).game.status == "resigned"


def test_the_feed_reports_a_daily_result() -> None:
    message: dict[str, Any] = {
        "date": "2026-03-14",
        "game": "g",
        "status": "won",
        "moves": 50,
        "elapsed_seconds": 96.25,
        "solved": True,
        "attempts": 2,
        "rank": 3,
    }
    result = DailyResult.from_json(message)
    assert (result.status, result.moves, result.attempts, result.solved) == ("won", 50, 2, True)
    assert result.extra == {"rank": 3}


def test_the_feed_brings_the_result_of_someone_who_played_your_challenge(
    clients: Callable[..., Scorpion],
) -> None:
    """The feed's social notices (docs/api.md, "Playing together") arrive typed, as its game
    events do: they used to be dropped as events the SDK did not know."""
    creator, friend = clients(), clients()
    own = creator.games.create(code=WON_DEAL["code"])
    for command in WON_DEAL["line"]:
        creator.games.command(own.id, command)
    challenge = creator.social.challenge(own.id)
    since = str(int(time.time() * 1_000_000) - 1)
    feed = Collector(creator.me.stream(last_event_id=since))
    game = friend.social.play_challenge(challenge["url"])
    for command in WON_DEAL["line"]:
        friend.games.command(game.id, command)
    seen: list[Any] = []
    while not isinstance(item := feed.next(), ChallengeResult):
        seen.append(item)
        assert isinstance(item, (GameCreated, GameEnded)), seen
    assert (item.challenge, item.status, item.won, item.is_me) == (
        challenge["id"],
        "won",
        True,
        False,
    )
    assert item.moves == game.refresh().moves
    assert item.player  # the name the boards show


def test_the_feed_reports_a_friend_who_beat_your_daily_time() -> None:
    message: dict[str, Any] = {
        "date": "2026-03-14",
        "friend": "Ann#3f9c",
        "time": 96.25,
        "moves": 50,
        "your_time": 120.5,
        "your_moves": 61,
        "medal": "gold",
    }
    beaten = FriendBeatTime.from_json(message)
    assert (beaten.friend, beaten.time, beaten.your_time, beaten.your_moves) == (
        "Ann#3f9c",
        96.25,
        120.5,
        61,
    )
    assert beaten.date.isoformat() == "2026-03-14"
    assert beaten.extra == {"medal": "gold"}


def test_errors_of_a_stream_are_the_sdks_errors(
    clients: Callable[..., Scorpion], sleeps: list[float], settings: Any
) -> None:
    player, other = clients(), clients()
    game = player.games.create()
    with pytest.raises(NotFound):
        next(iter(other.games.stream(game.id)))
    anonymous = clients(player.token)
    anonymous.token = "expired"
    with pytest.raises(AuthenticationError):
        next(iter(anonymous.games.stream(game.id)))
    settings.STREAM_MAX_PER_USER = 1
    holding = iter(player.me.stream())
    opened = Collector(holding)
    game.deal()  # nothing on the feed; the stream stays open
    with pytest.raises(RateLimited):
        next(iter(player.games.stream(game.id, options=StreamOptions(max_failures=2))))
    assert len(sleeps) == 2  # waited (Retry-After) twice before giving up
    assert opened.error is None


def test_a_server_that_serves_no_streams_says_so_at_once(
    server_url: str, sleeps: list[float]
) -> None:
    """pytest-django's live server is WSGI, like gunicorn: 503 stream_unavailable."""
    client = Scorpion(server_url, transport=fast_transport())
    client.auth.signup(new_email(), PASSWORD)
    game = client.games.create()
    with pytest.raises(ServiceUnavailable) as raised:
        next(iter(client.games.stream(game.id)))
    assert raised.value.code == "stream_unavailable"
    assert sleeps == []
    client.close()


def test_the_decoder_reads_the_event_stream_format() -> None:
    decoder = SSEDecoder()
    lines = [
        "retry: 2000",
        "",
        ": keep-alive",
        "",
        "id: 7",
        "event: command",
        'data: {"a":',
        "data: 1}",
        "",
        "id: 8",
        "",
    ]
    events = [event for line in lines if (event := decoder.feed(line)) is not None]
    assert [(e.event, e.id, e.data, e.retry) for e in events] == [
        ("message", None, None, 2000),
        ("command", "7", '{"a":\n1}', None),
        ("message", "8", None, None),
    ]


def test_a_stream_that_goes_silent_is_opened_again_after_two_missed_heartbeats(
    asgi_server: str,  # noqa: F811
    settings: Any,
) -> None:
    # The connection dies without closing (a network change): nothing arrives, nothing ends.
    # The SDK counts the server's heartbeats (here every second) and, after two missed ones,
    # opens the stream again with Last-Event-ID: the move made meanwhile arrives.
    settings.STREAM_HEARTBEAT_SECONDS = 1
    port = int(asgi_server.rsplit(":", 1)[1])
    with SwallowingProxy(port) as proxy:
        phone = Scorpion(asgi_server, transport=fast_transport())
        phone.auth.signup(new_email(), PASSWORD)
        game = phone.games.create(code=WON_DEAL["code"])
        laptop = Scorpion(proxy.url, token=phone.token, transport=fast_transport())
        updates = Collector(laptop.games.stream(game.id, since=0))
        phone.games.move(game.id, LINE[0]["card"], LINE[0].get("to"))
        assert updates.next().version == 1
        # The SDK opens a stream expecting the default heartbeat (every 15 s) and, told by the
        # first heartbeat that they come every second, opens it again at once with a 3-second
        # watch. Swallow that second connection: swallowing while it is still being asked for
        # lets it through unswallowed (CI saw the move arrive with no reconnection to count).
        deadline = time.monotonic() + 10
        while proxy.streams_requested < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proxy.streams_requested == 2
        proxy.swallow()
        requested = proxy.streams_requested
        swallowed_at = time.monotonic()
        phone.games.move(game.id, LINE[1]["card"], LINE[1].get("to"))
        assert updates.next(timeout=10).version == 2
        assert time.monotonic() - swallowed_at < 2 * 1 + 2  # two heartbeats, and the reconnection
        # Opened again once: on a new connection, or on one of the client's pooled ones (CI
        # saw the SDK reuse an idle one: no new connection, the stream asked for again).
        assert proxy.streams_requested == requested + 1
        laptop.close()
        phone.close()
