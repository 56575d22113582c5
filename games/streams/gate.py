"""Opening a stream: the synchronous part, as an ordinary API view.

The stream application (``games.streams.app``) runs these views in a worker thread through
Django's usual middleware, so a stream is authenticated, throttled and answered with problem
details exactly like any other request: anonymous is 401, another player's game is 404, too
many open streams is 429. On success the view does not answer: it leaves a ``StreamStart`` on
the ``Opener`` (what to send first, what to follow) and the application streams it.

The order matters: the stream subscribes to its channel *before* it reads the log, so an event
committed meanwhile is either in what it read or in what it will receive (or both: versions
already sent are skipped), never in neither.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from django.conf import settings
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import scopes
from accounts.app_tokens import feed_events_withheld
from accounts.authentication import credentials_recheck
from games import selectors
from games.api.serializers import (
    QueryIntegerField,
    QuerySerializer,
)
from games.api.views import player
from games.broadcast import payloads
from games.broadcast.hub import Hub, Message, Subscription, game_channel, user_channel
from games.streams import schema
from games.streams.slots import Slots
from infrastructure.api import ApiView
from infrastructure.problems import problem_response

# The key of request.META under which the stream application passes its Opener.
OPENER = "scorpion.stream_opener"
SUBSCRIBE_TIMEOUT = 10.0


@dataclass
class StreamStart:
    """An opened stream: what to send first, then what to follow."""

    kind: str  # "game" or "feed"
    user_id: int
    slot: str
    subscription: Subscription
    messages: list[Message]
    cursor: int  # the game version (or feed id) the client has after ``messages``
    status: str = ""  # the game's status (game streams)
    # (cursor) -> what the stream missed after it, read from the log (run in a thread)
    catch_up: Callable[[int], payloads.Backlog | payloads.FeedBacklog] | None = None
    # () -> whether the credentials that opened the stream still hold (run in a thread,
    # every STREAM_CREDENTIALS_SECONDS); None: nothing to check again (accounts.authentication)
    still_valid: Callable[[], bool] | None = None
    # The feed's events never sent on this stream, live or from the log: those its app token
    # lacks the scope for (accounts.app_tokens.feed_events_withheld).
    withheld: frozenset[str] = frozenset()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def final(self) -> bool:
        return self.status in ("won", "resigned", "abandoned")


class Opener:
    """Lets a gate view, running in a worker thread, subscribe on the stream's event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, hub: Hub, slots: Slots) -> None:
        self.loop = loop
        self.hub = hub
        self.slots = slots
        self.start: StreamStart | None = None

    def subscribe(self, channel: str) -> Subscription:
        future = asyncio.run_coroutine_threadsafe(self.hub.subscribe(channel), self.loop)
        try:
            return future.result(timeout=SUBSCRIBE_TIMEOUT)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    def unsubscribe(self, subscription: Subscription) -> None:
        asyncio.run_coroutine_threadsafe(self.hub.unsubscribe(subscription), self.loop).result(
            timeout=SUBSCRIBE_TIMEOUT
        )

    def release(self, user_id: int, slot: str) -> None:
        asyncio.run_coroutine_threadsafe(self.slots.release(user_id, slot), self.loop).result(
            timeout=SUBSCRIBE_TIMEOUT
        )


class GameStreamQuerySerializer(QuerySerializer):
    since = QueryIntegerField(
        required=False, min_value=0, help_text="The version the client has (first connect)."
    )


def _last_event_id(request: Request) -> int | None:
    """``Last-Event-ID`` as an integer; anything else counts as no id (the client then gets
    a resync, or the feed starts from now): a browser resends whatever id it was given."""
    raw = request.headers.get("Last-Event-ID", "").strip()
    if raw.isascii() and raw.isdecimal() and len(raw) <= 20:
        return int(raw)
    return None


def _opener(request: Request) -> Opener | None:
    opener = request._request.META.get(OPENER)
    return opener if isinstance(opener, Opener) else None


def _unavailable() -> Response:
    return problem_response(
        "stream_unavailable",
        gettext(
            "event streams are served by the ASGI stream server (docs/architecture.md), not by "
            "this process"
        ),
    )


def _take_slot(opener: Opener, user_id: int) -> str:
    slot = opener.slots.acquire(user_id)
    if slot is None:
        limit = settings.STREAM_MAX_PER_USER
        raise exceptions.Throttled(
            wait=settings.STREAM_HEARTBEAT_SECONDS,
            detail=gettext(
                "at most %(most)d streams may be open at once for one player: close one."
            )
            % {"most": limit},
        )
    return slot


class _StreamGateView(ApiView):
    # A third-party app's access token may follow the player's games with the read scope, as
    # it may read their log (GET .../events/); the stream is checked again while it is open,
    # so a revoked token ends it (docs/api.md). In the OpenAPI schema as text/event-stream
    # (games/streams/schema.py), with this scope.
    oauth_scopes = {"GET": scopes.GAMES_READ}

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        # A stream client accepts text/event-stream (EventSource sends nothing else); the
        # gate's own answers, errors included, are JSON whatever Accept says.
        return super().perform_content_negotiation(request, force=True)


class GameStreamView(_StreamGateView):
    """``GET /api/v1/games/{id}/stream/``: the game's events, live (text/event-stream)."""

    @extend_schema(
        operation_id="games_stream",
        summary="The game's events, live (Server-Sent Events)",
        description=schema.COMMON,
        parameters=[GameStreamQuerySerializer, schema.LAST_EVENT_ID],
        responses=schema.event_stream(schema.GAME_EVENTS, schema.GAME_EXAMPLE),
    )
    def get(self, request: Request, game_id: UUID) -> Response:
        opener = _opener(request)
        if opener is None:
            return _unavailable()
        user = player(request)
        query = GameStreamQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        after = _last_event_id(request)
        if after is None:
            after = query.validated_data.get("since")
        slot = _take_slot(opener, user.pk)
        subscription: Subscription | None = None
        try:
            subscription = opener.subscribe(game_channel(game_id))
            game = selectors.game_get(owner=user, game_id=game_id)  # another's: 404
            backlog = payloads.game_backlog(
                game=game, after=after, max_replay=settings.STREAM_MAX_REPLAY
            )
        except BaseException:
            if subscription is not None:
                opener.unsubscribe(subscription)
            opener.release(user.pk, slot)
            raise

        # Ids only: an open stream keeps no model instance (a game's projection is kilobytes).
        game_pk, user_pk = game.pk, user.pk

        def catch_up(cursor: int) -> payloads.Backlog:
            return payloads.game_catch_up(
                game_id=game_pk,
                owner_id=user_pk,
                after=cursor,
                max_replay=settings.STREAM_MAX_REPLAY,
            )

        opener.start = StreamStart(
            kind="game",
            user_id=user.pk,
            slot=slot,
            subscription=subscription,
            messages=backlog.messages,
            cursor=backlog.version,
            status=backlog.status,
            catch_up=catch_up,
            still_valid=credentials_recheck(request),
        )
        return Response(status=200)


class MeStreamView(_StreamGateView):
    """``GET /api/v1/me/stream/``: the player's feed, live (text/event-stream)."""

    @extend_schema(
        operation_id="me_stream",
        summary="The player's feed, live (Server-Sent Events)",
        description=schema.COMMON,
        parameters=[schema.LAST_EVENT_ID],
        responses=schema.event_stream(schema.FEED_EVENTS, schema.FEED_EXAMPLE),
    )
    def get(self, request: Request) -> Response:
        opener = _opener(request)
        if opener is None:
            return _unavailable()
        user = player(request)
        QuerySerializer(data=request.query_params).is_valid(raise_exception=True)
        after = _last_event_id(request)
        withheld = feed_events_withheld(request)
        slot = _take_slot(opener, user.pk)
        subscription: Subscription | None = None
        try:
            subscription = opener.subscribe(user_channel(user.pk))
            backlog = payloads.feed_backlog(
                owner_id=user.pk,
                after=after,
                max_replay=settings.STREAM_MAX_REPLAY,
                withheld=withheld,
            )
        except BaseException:
            if subscription is not None:
                opener.unsubscribe(subscription)
            opener.release(user.pk, slot)
            raise

        user_pk = user.pk

        def catch_up(cursor: int) -> payloads.FeedBacklog:
            return payloads.feed_backlog(
                owner_id=user_pk,
                after=cursor,
                max_replay=settings.STREAM_MAX_REPLAY,
                withheld=withheld,
            )

        opener.start = StreamStart(
            kind="feed",
            user_id=user.pk,
            slot=slot,
            subscription=subscription,
            messages=backlog.messages,
            cursor=backlog.cursor,
            catch_up=catch_up,
            still_valid=credentials_recheck(request),
            withheld=withheld,
        )
        return Response(status=200)
