"""Fan-out of stream messages from the process that committed to the processes holding streams.

A message is published once per change, already rendered (the player's view, as JSON), on a
channel per game and per player. Two hubs:

- ``RedisHub`` (``REDIS_URL`` set): ``PUBLISH`` from any web process; each process that holds
  streams keeps one pub/sub connection, subscribed to the channels its open streams follow,
  and hands each message to its local subscribers. One message is decoded once per process,
  however many streams follow the game.
- ``LocalHub`` (no Redis, the embedded default of ``make run``): the same, within one process.

Neither is the truth. A publish can be lost (Redis down at that moment, a reader too slow, a
pub/sub connection that dropped): a stream notices a gap in the versions, or is told that its
hub reconnected, and reads what it missed from the log (``CATCH_UP``).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import functools
import logging
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis
import redis.asyncio
from django.conf import settings

logger = logging.getLogger(__name__)

CHANNEL_PREFIX = "scorpion:stream:"
# Messages a subscriber may hold before it is considered too slow: it then drops them all and
# catches up from the log (or gets a resync) when it is read again.
SUBSCRIBER_BUFFER = 64
# How long opening a stream waits for Redis to confirm its subscription before it reads the
# backlog (so that nothing committed in between can fall between the backlog and the live).
SUBSCRIBE_CONFIRM_SECONDS = 2.0
# After a failed publish, later publishes are skipped for this long instead of each waiting for
# Redis to time out: a command must not slow down because Redis is down (the log repairs it).
PUBLISH_PAUSE_SECONDS = 2.0
# After this long without a byte on the pub/sub connection its reader sends a PING; after as
# long again without an answer, the connection is deemed dead and opened again.
HEALTH_CHECK_SECONDS = 30.0


def game_channel(game_id: object) -> str:
    return f"{CHANNEL_PREFIX}{_database_scope(settings.REDIS_URL)}game:{game_id}"


def user_channel(user_id: object) -> str:
    return f"{CHANNEL_PREFIX}{_database_scope(settings.REDIS_URL)}user:{user_id}"


@functools.cache
def _database_scope(redis_url: str | None) -> str:
    """The Redis database's number, in the channel names: Redis has one pub/sub namespace per
    server, not per database, so two installations (or two test processes) on one Redis
    server, each with a database of its own, would otherwise hear each other's streams: their
    user ids overlap (both have a user 1)."""
    if not redis_url:
        return ""
    return f"{redis.connection.parse_url(redis_url).get('db', 0)}:"


@dataclass(frozen=True, slots=True)
class Message:
    """One Server-Sent Event: its ``id``, ``event`` name and ``data`` (JSON text, one line).
    ``final``: the stream ends after it (the game is over)."""

    id: str
    event: str
    data: str
    final: bool = False
    frame: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "frame", f"id: {self.id}\nevent: {self.event}\ndata: {self.data}\n\n".encode()
        )

    def encode(self) -> bytes:
        return f"{self.id}\n{self.event}\n{'end' if self.final else ''}\n{self.data}".encode()

    @classmethod
    def decode(cls, raw: bytes) -> Message:
        ident, event, flags, data = raw.decode().split("\n", 3)
        return cls(ident, event, data, final=flags == "end")


class Signal(enum.Enum):
    CATCH_UP = "catch_up"  # messages may have been lost: read the log from your last version
    CLOSE = "close"  # the stream must end now (the client reconnects and resumes)


class Subscription:
    """What one open stream receives: messages of its channel, and signals. Lives on the
    stream's event loop; ``deliver`` is called on that loop only."""

    __slots__ = ("__weakref__", "_items", "_waiter", "channel", "loop")

    def __init__(self, channel: str, loop: asyncio.AbstractEventLoop) -> None:
        self.channel = channel
        self.loop = loop
        self._items: deque[Message | Signal] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def deliver(self, item: Message | Signal) -> None:
        if isinstance(item, Message) and len(self._items) >= SUBSCRIBER_BUFFER:
            # Too slow a reader: everything it holds is in the log; it reads it from there.
            self._items.clear()
            item = Signal.CATCH_UP
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def deliver_threadsafe(self, item: Message | Signal) -> None:
        # A closed loop (RuntimeError) has nobody listening any more.
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self.deliver, item)

    async def next(self, timeout: float) -> Message | Signal | None:
        """The next message or signal, or None after ``timeout`` seconds without one."""
        if not self._items:
            self._waiter = self.loop.create_future()
            try:
                async with asyncio.timeout(timeout):
                    await self._waiter
            except TimeoutError:
                return None
            finally:
                self._waiter = None
        return self._items.popleft() if self._items else None


class Hub(Protocol):
    def publish(self, channel: str, message: Message) -> None: ...

    async def subscribe(self, channel: str) -> Subscription: ...

    async def unsubscribe(self, subscription: Subscription) -> None: ...

    def close_all(self) -> None: ...


class _Registry:
    """Subscriptions by channel, shared by both hubs. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._channels: dict[str, set[Subscription]] = {}

    def add(self, subscription: Subscription) -> bool:
        """Adds it; True if it is the channel's first subscriber."""
        with self._lock:
            subscribers = self._channels.setdefault(subscription.channel, set())
            subscribers.add(subscription)
            return len(subscribers) == 1

    def remove(self, subscription: Subscription) -> bool:
        """Removes it; True if the channel has no subscriber left."""
        with self._lock:
            subscribers = self._channels.get(subscription.channel)
            if subscribers is None:
                return False
            subscribers.discard(subscription)
            if subscribers:
                return False
            del self._channels[subscription.channel]
            return True

    def of(self, channel: str) -> list[Subscription]:
        with self._lock:
            return list(self._channels.get(channel, ()))

    def channels(self) -> list[str]:
        with self._lock:
            return list(self._channels)

    def everyone(self) -> list[Subscription]:
        with self._lock:
            return [sub for subs in self._channels.values() for sub in subs]

    def count(self) -> int:
        with self._lock:
            return sum(len(subs) for subs in self._channels.values())


class LocalHub:
    """In-process fan-out: the publisher (a command's thread) and the streams (an event loop)
    share the process."""

    def __init__(self) -> None:
        self.registry = _Registry()

    def publish(self, channel: str, message: Message) -> None:
        for subscription in self.registry.of(channel):
            subscription.deliver_threadsafe(message)

    async def subscribe(self, channel: str) -> Subscription:
        subscription = Subscription(channel, asyncio.get_running_loop())
        self.registry.add(subscription)
        return subscription

    async def unsubscribe(self, subscription: Subscription) -> None:
        self.registry.remove(subscription)

    def close_all(self) -> None:
        for subscription in self.registry.everyone():
            subscription.deliver_threadsafe(Signal.CLOSE)


class _Listener:
    """One process's (one event loop's) pub/sub connection to Redis, and its reader task.

    Two coroutines must never read one connection (redis-py raises "readuntil() called while
    another coroutine is already waiting": opening a stream once answered 500 so, when its
    SUBSCRIBE checked the connection with a PING and read the answer while the reader was
    reading). So the reader task is the only one that reads the connection, and the only one
    that connects it (a connection's handshake reads too); subscribing and unsubscribing only
    write their command, under ``lock``, which also orders them with the reader's own writes
    (its health check, the subscriptions it sends after connecting). A write that fails leaves
    the connection closed; the reader sees it, connects again and subscribes to every channel
    its streams follow.
    """

    def __init__(self, url: str, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        # socket_timeout: a write (under the lock) never waits forever on a dead peer.
        self.client = redis.asyncio.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)
        self.connection: Any = None  # connected by the reader only
        self.down = False  # the connection failed and the reader has not connected again yet
        self.registry = _Registry()
        self.lock = asyncio.Lock()
        self.confirmations: dict[str, asyncio.Future[None]] = {}
        self.reader: asyncio.Task[None] | None = None
        self.has_channels = asyncio.Event()

    async def subscribe(self, channel: str) -> Subscription:
        subscription = Subscription(channel, self.loop)
        confirmation: asyncio.Future[None] | None = None
        async with self.lock:
            if self.registry.add(subscription):
                confirmation = self.loop.create_future()
                if self.down:
                    # Nothing to wait for: the reader subscribes when Redis is back, and
                    # then tells every stream to catch up from the log.
                    confirmation.set_result(None)
                else:
                    self.confirmations[channel] = confirmation
                    # Not connected yet: the reader subscribes as it connects.
                    await self._send("SUBSCRIBE", channel)
                self.has_channels.set()
                self._start_reader()
        if confirmation is not None:
            try:
                async with asyncio.timeout(SUBSCRIBE_CONFIRM_SECONDS):
                    await asyncio.shield(confirmation)
            except TimeoutError:
                logger.warning("stream hub: Redis did not confirm the subscription to %s", channel)
        return subscription

    async def unsubscribe(self, subscription: Subscription) -> None:
        async with self.lock:
            if self.registry.remove(subscription):
                self.confirmations.pop(subscription.channel, None)
                await self._send("UNSUBSCRIBE", subscription.channel)

    async def _send(self, *command: str) -> None:
        """Writes ``command`` on the connection if it is up (never reads it, never connects
        it: the reader's work). Call with ``lock`` held."""
        connection = self.connection
        if connection is None or not connection.is_connected:
            return
        try:
            await connection.send_command(*command, check_health=False)
        except (redis.RedisError, OSError) as exc:
            logger.info("stream hub: %s failed (%s); the reader reconnects", command[0], exc)

    def _start_reader(self) -> None:
        if self.reader is None or self.reader.done():
            self.reader = self.loop.create_task(self._read(), name="stream-hub-reader")

    async def _read(self) -> None:
        backoff = 0.1
        pinged = False  # a PING was sent and nothing has been read since
        while True:
            try:
                if self.connection is None:
                    if not self.registry.channels():  # nothing to listen to yet
                        self.has_channels.clear()
                        await self.has_channels.wait()
                        continue
                    await self._connect()
                    pinged = False
                response = await self.connection.read_response(
                    timeout=HEALTH_CHECK_SECONDS, disconnect_on_error=False, push_request=True
                )
                if response is None:  # nothing for a while: is anybody there?
                    if pinged:
                        raise redis.ConnectionError("no answer to a PING")
                    async with self.lock:
                        await self._send("PING")
                    pinged = True
                    continue
                pinged = False
                backoff = 0.1
                self._handle(response)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a dropped connection, Redis restarting, ...
                logger.warning("stream hub: Redis pub/sub failed (%s); reconnecting", exc)
                await self._drop_connection()
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)

    async def _connect(self) -> None:
        connection = self.client.connection_pool.make_connection()
        await connection.connect()  # the handshake: read here, by the reader only
        async with self.lock:
            self.connection = connection
            channels = self.registry.channels()
            if channels:
                await connection.send_command("SUBSCRIBE", *channels, check_health=False)
            if self.down:
                # Whatever was published while the connection was down is in the log.
                self.down = False
                for subscription in self.registry.everyone():
                    subscription.deliver(Signal.CATCH_UP)

    def _handle(self, response: Any) -> None:
        if not isinstance(response, list) or len(response) < 3:
            return  # a PING's answer
        kind = response[0].decode() if isinstance(response[0], bytes) else str(response[0])
        channel = response[1].decode() if isinstance(response[1], bytes) else str(response[1])
        if kind == "message":
            try:
                decoded = Message.decode(response[2])
            except (ValueError, UnicodeDecodeError):
                logger.error("stream hub: unreadable message on %s", channel)
                return
            for subscription in self.registry.of(channel):
                subscription.deliver(decoded)
        elif kind == "subscribe":
            confirmation = self.confirmations.pop(channel, None)
            if confirmation is not None and not confirmation.done():
                confirmation.set_result(None)

    async def _drop_connection(self) -> None:
        connection, self.connection = self.connection, None
        self.down = True
        for confirmation in self.confirmations.values():
            if not confirmation.done():
                confirmation.set_result(None)
        self.confirmations.clear()
        if connection is not None:
            try:
                await connection.disconnect(nowait=True)
            except Exception as exc:
                logger.debug("stream hub: closing the old connection: %s", exc)


class RedisHub:
    def __init__(self, url: str) -> None:
        self.url = url
        self._publisher = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        self._paused_until = 0.0
        self._listeners: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Listener] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def publish(self, channel: str, message: Message) -> None:
        if time.monotonic() < self._paused_until:
            return
        try:
            self._publisher.publish(channel, message.encode())
        except redis.RedisError as exc:
            self._paused_until = time.monotonic() + PUBLISH_PAUSE_SECONDS
            logger.warning("stream publish failed (streams catch up from the log): %s", exc)

    def _listener(self) -> _Listener:
        loop = asyncio.get_running_loop()
        with self._lock:
            listener = self._listeners.get(loop)
            if listener is None:
                listener = _Listener(self.url, loop)
                self._listeners[loop] = listener
            return listener

    async def subscribe(self, channel: str) -> Subscription:
        return await self._listener().subscribe(channel)

    async def unsubscribe(self, subscription: Subscription) -> None:
        await self._listener().unsubscribe(subscription)

    def close_all(self) -> None:
        with self._lock:
            listeners = list(self._listeners.values())
        for listener in listeners:
            for subscription in listener.registry.everyone():
                subscription.deliver_threadsafe(Signal.CLOSE)


_hub: Hub | None = None
_hub_lock = threading.Lock()


def get_hub() -> Hub:
    """The process's hub: Redis when ``REDIS_URL`` is set, else in-process."""
    global _hub
    with _hub_lock:
        if _hub is None:
            _hub = RedisHub(settings.REDIS_URL) if settings.REDIS_URL else LocalHub()
        return _hub


def reset_hub() -> None:
    """Forget the hub (tests that change ``REDIS_URL``)."""
    global _hub
    with _hub_lock:
        _hub = None
