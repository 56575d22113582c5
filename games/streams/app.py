"""The ASGI application of the stream paths; every other path goes to Django's ASGI handler.

Why not a plain Django async view: Django's ASGI handler gives every request a thread of its
own for its synchronous parts (the middleware, the request signals) and keeps it until the
response ends, so each open stream would hold an idle thread. Measured with uvicorn, 500 idle
streams cost 31 MiB and 500 threads through Django's handler, 4.7 MiB and no thread through
this one (docs/architecture.md). So a stream is opened by an ordinary API view, run through
Django's ordinary (synchronous) middleware in a worker thread that closes its database
connection before it returns; then the stream itself is a coroutine here that waits on its
subscription, holding no thread and no database connection while it is idle. It reads the
log again only to repair a gap, in a short call on a worker thread.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.db import close_old_connections, connections
from django.http import HttpRequest, HttpResponseBase
from django.urls import set_script_prefix

from games.broadcast import payloads
from games.broadcast.hub import Message, Signal, get_hub
from games.streams.gate import OPENER, Opener, StreamStart
from games.streams.slots import get_slots

logger = logging.getLogger(__name__)

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

STREAM_PATH = re.compile(r"/api/v1/(?:games/[^/]+|me)/stream/$")


def heartbeat_frame(seconds: int) -> bytes:
    """The ``heartbeat`` event, sent as a stream opens and then every ``seconds``, busy or idle.
    A named event, not a comment: ``EventSource`` never shows comments to the page, so a page
    could not tell a quiet stream from a dead one (a connection that died without closing).
    Clients reconnect after two missed heartbeats. No ``id``: the last event id stays."""
    return f'event: heartbeat\ndata: {{"interval_seconds": {seconds}}}\n\n'.encode()


__all__ = ["STREAM_PATH", "StreamHandler", "StreamRouter"]


def _closing_connections(function: Callable[[], Any]) -> Any:
    """Runs ``function`` (in a worker thread) and closes that thread's database connections
    before returning: an open stream never holds one."""
    close_old_connections()
    try:
        return function()
    finally:
        connections.close_all()


class StreamHandler(ASGIHandler):
    """Opens a stream through Django's synchronous middleware and the gate views, then streams
    it (or sends the gate's answer: 401, 404, 429, ...)."""

    def __init__(self) -> None:
        BaseHandler.__init__(self)
        self.load_middleware(is_async=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            body_file = await self.read_body(receive)
        except Exception:  # the client went away before its request was complete
            return
        set_script_prefix(get_script_prefix(scope))
        request, error = self.create_request(scope, body_file)
        if request is None:
            body_file.close()
            assert error is not None
            await self.send_response(error, send)
            return
        opener = Opener(asyncio.get_running_loop(), get_hub(), get_slots())
        request.META[OPENER] = opener
        try:
            response = await sync_to_async(self._open, thread_sensitive=False)(request)
        finally:
            body_file.close()
        start = opener.start
        if start is None or response.status_code != 200:
            if start is not None:  # a middleware answered instead (a redirect, say)
                await opener.hub.unsubscribe(start.subscription)
                await opener.slots.release(start.user_id, start.slot)
            await self.send_response(response, send)
            return
        headers = _headers(response)
        # An open stream keeps nothing of its request: memory per stream is what it follows.
        del request, response, error
        await _Stream(start, opener, send, receive).run(headers)

    def _open(self, request: HttpRequest) -> HttpResponseBase:
        def answer() -> HttpResponseBase:
            response = self.get_response(request)
            response.close()
            return response

        result: HttpResponseBase = _closing_connections(answer)
        return result


class _Stream:
    def __init__(self, start: StreamStart, opener: Opener, send: Send, receive: Receive) -> None:
        self.start = start
        self.opener = opener
        self.subscription = start.subscription
        self.send = send
        self.receive = receive
        self.cursor = start.cursor
        self.loop = asyncio.get_running_loop()
        # Feed messages already sent from the log. The stream subscribes before it reads the
        # log, so a message published in between arrives twice: once in the backlog and once
        # live. Feed ids are times, not a sequence (a game created earlier may commit later),
        # so "id <= cursor" cannot tell a repeat from a late message: the (id, event) can.
        self.sent_from_log: set[tuple[str, str]] = set()
        if start.kind == "feed":
            self.sent_from_log = {(message.id, message.event) for message in start.messages}

    async def run(self, headers: list[tuple[bytes, bytes]]) -> None:
        watcher = asyncio.create_task(self._watch_disconnect())
        try:
            await self.send({"type": "http.response.start", "status": 200, "headers": headers})
            await self._follow()
            await self.send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:  # the client has gone
            pass
        finally:
            watcher.cancel()
            await self.opener.hub.unsubscribe(self.subscription)
            await self.opener.slots.release(self.start.user_id, self.start.slot)

    async def _watch_disconnect(self) -> None:
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                self.subscription.deliver(Signal.CLOSE)
                return

    async def _write(self, data: bytes) -> None:
        await self.send({"type": "http.response.body", "body": data, "more_body": True})

    async def _follow(self) -> None:
        start = self.start
        first = [f"retry: {settings.STREAM_RETRY_MS}\n\n".encode()]
        first += [message.frame for message in start.messages]
        # An id alone dispatches no event but sets the client's last event id, so that a
        # reconnection resumes from here even before anything happens.
        first.append(f"id: {self.cursor}\n\n".encode())
        start.messages = []  # sent: not kept for the stream's lifetime
        if start.kind == "game" and start.final:
            await self._write(b"".join(first))
            await self._write(payloads.end_frame(start.status))
            return
        # The first heartbeat tells the client how often the next ones come.
        beat = heartbeat_frame(settings.STREAM_HEARTBEAT_SECONDS)
        await self._write(b"".join([*first, beat]))
        heartbeat = float(settings.STREAM_HEARTBEAT_SECONDS)
        beat_at = self.loop.time() + heartbeat
        deadline = self.loop.time() + settings.STREAM_MAX_SECONDS
        # The credentials that opened the stream (an app's access token, a player's session)
        # are checked again every STREAM_CREDENTIALS_SECONDS, busy or idle: a revoked token's
        # or a signed-out session's stream ends there, and its reconnection is refused (401).
        recheck = float(settings.STREAM_CREDENTIALS_SECONDS)
        recheck_at = self.loop.time() + recheck if start.still_valid else math.inf
        while True:
            now = self.loop.time()
            remaining = deadline - now
            if remaining <= 0:
                return  # the client reconnects and resumes; authentication is checked again
            if now >= beat_at:
                # On a schedule, busy or idle: a client counts heartbeats, and the slot of a
                # busy stream must not lapse either.
                await self._write(beat)
                await self.opener.slots.renew(start.user_id, start.slot)
                beat_at = now + heartbeat
            if now >= recheck_at:
                if not await self._still_valid():
                    return
                recheck_at = now + recheck
            item = await self.subscription.next(min(beat_at - now, remaining, recheck_at - now))
            if item is None:
                continue
            if item is Signal.CLOSE:
                return
            if item is Signal.CATCH_UP:
                if await self._catch_up():
                    return
                continue
            assert isinstance(item, Message)
            if start.kind == "feed":
                if item.event in start.withheld:
                    continue
                if (item.id, item.event) in self.sent_from_log:
                    self.sent_from_log.discard((item.id, item.event))
                    continue
                await self._write(item.frame)
                self.cursor = max(self.cursor, int(item.id))
                continue
            version = int(item.id)
            if version <= self.cursor:
                continue  # already sent (from the log, or a duplicate)
            if version > self.cursor + 1:  # a publish was lost: the log has it
                if await self._catch_up():
                    return
                continue
            await self._write(item.frame)
            self.cursor = version
            if item.final:
                await self._write(payloads.end_frame(_status_of(item)))
                return

    async def _still_valid(self) -> bool:
        """Whether the stream's credentials still hold; False ends the stream without an
        ``end`` event, so the client reconnects and meets the refusal (401) there."""
        check = self.start.still_valid
        assert check is not None
        try:
            valid = await sync_to_async(
                lambda: bool(_closing_connections(check)), thread_sensitive=False
            )()
        except Exception:
            logger.exception("stream credential check failed; closing the stream")
            return False
        if not valid:
            await self._write(b": credentials no longer valid\n\n")
        return valid

    async def _catch_up(self) -> bool:
        """Sends what the log holds after the cursor; True when the stream must end."""
        catch_up = self.start.catch_up
        assert catch_up is not None
        cursor = self.cursor
        try:
            backlog = await sync_to_async(
                lambda: _closing_connections(lambda: catch_up(cursor)), thread_sensitive=False
            )()
        except Exception:
            logger.exception("stream catch-up failed; closing the stream (the client resumes)")
            return True
        if isinstance(backlog, payloads.Backlog):
            if backlog.gone:
                await self._write(payloads.end_frame("gone"))
                return True
            if backlog.messages:
                await self._write(b"".join(message.frame for message in backlog.messages))
            self.cursor = backlog.version
            if backlog.final:
                await self._write(payloads.end_frame(backlog.status))
                return True
            return False
        if backlog.messages:
            await self._write(b"".join(message.frame for message in backlog.messages))
        # Only this read's messages can still come live: the older ones did, or never will.
        self.sent_from_log = {(message.id, message.event) for message in backlog.messages}
        self.cursor = max(self.cursor, backlog.cursor)
        return False


def _status_of(message: Message) -> str:
    status = json.loads(message.data).get("status", "")
    return str(status)


def _headers(response: HttpResponseBase) -> list[tuple[bytes, bytes]]:
    """The gate's headers (the middleware's: Vary, security headers, cookies), as an event
    stream that no proxy may buffer or cache."""
    skip = {"content-type", "content-length", "cache-control"}
    headers = [
        (name.encode("ascii"), value.encode("latin1"))
        for name, value in response.items()
        if name.lower() not in skip
    ]
    headers += [
        (b"Set-Cookie", cookie.output(header="").encode("ascii").strip())
        for cookie in response.cookies.values()
    ]
    headers += [
        (b"Content-Type", b"text/event-stream; charset=utf-8"),
        (b"Cache-Control", b"no-cache"),
        (b"X-Accel-Buffering", b"no"),
    ]
    return headers


class StreamRouter:
    """The process's ASGI application: stream paths here, the rest to Django."""

    def __init__(self, django_application: ASGIApp) -> None:
        self.django = django_application
        self._streams: StreamHandler | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and STREAM_PATH.search(scope["path"]):
            if self._streams is None:
                self._streams = StreamHandler()
            await self._streams(scope, receive, send)
            return
        await self.django(scope, receive, send)
