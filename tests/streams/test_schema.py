"""The two streams in the OpenAPI schema: text/event-stream, the scope they enforce, and every
event they really send, the heartbeat included, documented."""

from __future__ import annotations

import re
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from tests.api.conftest import WON_DEAL, Player
from tests.streams.conftest import Reader, Streams

GAME = "/api/v1/games/{game_id}/stream/"
FEED = "/api/v1/me/stream/"


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    result: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return result


def documented_events(operation: dict[str, Any]) -> set[str]:
    """The events the 200 answer's description lists: the names at the head of its
    ``- `name`, `other`: ...`` lines."""
    description = operation["responses"]["200"]["description"]
    return {
        name
        for line in description.splitlines()
        if line.startswith("- `")
        for name in re.findall(r"`(\w+)`", line.split(":", 1)[0])
    }


@pytest.mark.parametrize("path", [GAME, FEED])
def test_each_stream_is_an_event_stream_open_to_the_read_scope(
    schema: dict[str, Any], path: str
) -> None:
    operation = schema["paths"][path]["get"]
    assert list(operation["responses"]["200"]["content"]) == ["text/event-stream"]
    scopes = [s for r in operation["security"] for s in r.get("oauth2", [])]
    assert scopes == ["games:read"]
    assert {"sessionToken": []} in operation["security"]
    headers = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
    assert headers == {"Last-Event-ID"}
    assert "heartbeat" in documented_events(operation)
    problems = operation["responses"]["4XX"]["content"]
    assert list(problems) == ["application/problem+json"]


def test_the_game_stream_documents_since(schema: dict[str, Any]) -> None:
    query = {
        p["name"]: p["schema"]
        for p in schema["paths"][GAME]["get"]["parameters"]
        if p["in"] == "query"
    }
    assert query == {"since": {"type": "integer", "minimum": 0}}


def events_until_end(reader: Reader) -> set[str]:
    names = set()
    while True:
        try:
            frame = reader.frame()
        except EOFError:
            return names
        if frame.event is not None:
            names.add(frame.event)


def test_every_event_the_streams_send_is_documented(
    schema: dict[str, Any], streams: Streams, player: Player
) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    _, game_stream = streams.connect(f"/api/v1/games/{game['id']}/stream/", player.token)
    _, feed = streams.connect(FEED, player.token)
    feed.frame()
    assert player.command(game["id"], WON_DEAL["line"][0]).status_code == 200
    assert player.command(game["id"], {"type": "resign"}).status_code == 200
    sent = events_until_end(game_stream)
    assert sent == {"resync", "heartbeat", "command", "end"}
    assert sent <= documented_events(schema["paths"][GAME]["get"])
    feed_sent = {frame.event for frame in feed.events_until(lambda f: f.event == "game_finished")}
    feed_sent.add("heartbeat")  # skipped by events_until, sent as the feed opens
    assert feed_sent <= documented_events(schema["paths"][FEED]["get"])
