"""The two streams in the OpenAPI schema (``/api/schema/``).

An event stream is one ``200`` answer of type ``text/event-stream`` whose body is a sequence of
events; OpenAPI 3.0 cannot type the events one by one, so the answer's description names each
event with its ``data`` (as docs/api.md does), and an example shows the wire format. The scope a
third-party app's token needs (``games:read``) comes from the views' ``oauth_scopes``, as for
every operation; the problem answers (401, 403, 404, 429, 503) from
``scorpion_site.schema``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse

EVENT_STREAM = "text/event-stream"

LAST_EVENT_ID = OpenApiParameter(
    name="Last-Event-ID",
    type=OpenApiTypes.STR,
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        "The id of the last event received (what a reconnecting EventSource sends by itself): "
        "the stream replays what came after it, from the log. Anything but a decimal number "
        "counts as none."
    ),
)

HEARTBEAT = (
    '- `heartbeat` (no `id`: the last event id stays): `{"interval_seconds": 15}`, sent as '
    "the stream opens and then every `interval_seconds`, busy or idle. A client that receives "
    "nothing for two heartbeats (`2 * interval_seconds`, plus a second) should close the "
    "connection and open the stream again with `Last-Event-ID`: the connection died without "
    "closing."
)

COMMON = (
    "Served by the stream server (uvicorn; a WSGI process answers 503 `stream_unavailable`). "
    "It opens with `retry:`, then the backlog, then a bare `id:` that sets the client's last "
    "event id; a stream lasts at most `STREAM_MAX_SECONDS` (900 s), after which the client "
    "reconnects and resumes. Each player may hold `STREAM_MAX_PER_USER` (10) streams open "
    "(429 `throttled` beyond). An app's token (scope `games:read`) and a player's session are "
    "checked again while the stream is open: once revoked or signed out, the stream ends "
    "without an `end` event and the reconnection is a 401."
)

GAME_EVENTS = "\n".join(
    [
        "The game's events, as Server-Sent Events:",
        "- `command` (`id`: the game's version after it): exactly what the command's answer "
        "carries (`Game` plus `event`), one per accepted command, in order, whoever sent it.",
        "- `resync` (`id`: the game's version): the whole game (`Game`, no `event`): sent first "
        "when the client names no version, and to a client further behind than "
        "`STREAM_MAX_REPLAY` events.",
        '- `end` (no `id`): `{"status": "won" | "resigned" | "abandoned" | "gone"}`: the game is '
        "over (or was deleted); the server closes the stream and a client should not reconnect.",
        HEARTBEAT,
    ]
)

FEED_EVENTS = "\n".join(
    [
        "The player's feed, as Server-Sent Events (notifications: read again the list they "
        "concern). Ids are the change's time in microseconds.",
        "- `game_created`, `game_finished`: the game, as `GET /api/v1/games/{game_id}/`.",
        '- `daily_result`: `{"date", "game", "status", "moves", "elapsed_seconds", "solved", '
        '"attempts"}`, after the `game_finished` of a daily game.',
        "- `resync` (`{}`): more was missed than can be replayed, or the player's games were "
        "deleted: read your lists again.",
        HEARTBEAT,
    ]
)

GAME_EXAMPLE = OpenApiExample(
    "Live game",
    media_type=EVENT_STREAM,
    value=(
        "retry: 2000\n\nid: 4\n\n"
        'event: heartbeat\ndata: {"interval_seconds": 15}\n\n'
        'id: 5\nevent: command\ndata: {"id": "...", "version": 5, "status": "resigned", ...,'
        ' "event": {"seq": 5, "type": "resign", ...}}\n\n'
        'event: end\ndata: {"status": "resigned"}\n\n'
    ),
)

FEED_EXAMPLE = OpenApiExample(
    "Live feed",
    media_type=EVENT_STREAM,
    value=(
        "retry: 2000\n\nid: 1764806400000000\n\n"
        'event: heartbeat\ndata: {"interval_seconds": 15}\n\n'
        'id: 1764806412345678\nevent: game_created\ndata: {"id": "...", "mode": "random", '
        '"status": "playing", ...}\n\n'
    ),
)


def event_stream(description: str, example: OpenApiExample) -> dict[tuple[int, str], Any]:
    """The ``responses`` of a stream's operation: its one 200, an event stream."""
    return {
        (200, EVENT_STREAM): OpenApiResponse(
            response=OpenApiTypes.STR, description=description, examples=[example]
        )
    }
