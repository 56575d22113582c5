"""Live streams with a third-party app's access token: the read scope opens them, and a token
that dies while a stream is open (revoked, of an app suspended since, expired) ends the stream
at its next credential check; the reconnection is then refused."""

from __future__ import annotations

import time
from typing import Any

import pytest
from allauth.idp.oidc.models import Token
from django.utils import timezone

from accounts.oauth import services
from tests.accounts.conftest import App, authorize, register
from tests.api.conftest import Player
from tests.streams.conftest import Reader, Streams, ends_soon

FEED = "/api/v1/me/stream/"


def game_path(game_id: str) -> str:
    return f"/api/v1/games/{game_id}/stream/"


def connect(streams: Streams, path: str, access_token: str) -> tuple[Any, Reader]:
    return streams.connect(path, Authorization=f"Bearer {access_token}")


@pytest.fixture
def app(transactional_db: None) -> App:
    return register()


def test_the_read_scope_opens_the_game_stream_and_the_feed(
    streams: Streams, player: Player, app: App
) -> None:
    token = authorize(player, app, "games:read").access_token
    game = player.new_game()
    response, reader = connect(streams, game_path(game["id"]), token)
    assert response.status_code == 200
    assert reader.event().event == "resync"
    feed, feed_reader = connect(streams, FEED, token)
    assert feed.status_code == 200
    assert feed_reader.frame().retry is not None
    player.command(game["id"], {"type": "resign"})
    assert reader.event().event == "command"
    assert feed_reader.event().event == "game_finished"


@pytest.mark.parametrize("scope", ["games:play", "stats:read account:read"])
def test_a_token_without_the_read_scope_is_refused(
    streams: Streams, player: Player, app: App, scope: str
) -> None:
    token = authorize(player, app, scope).access_token
    game = player.new_game()
    for path in (game_path(game["id"]), FEED):
        response, _ = connect(streams, path, token)
        assert response.status_code == 403, path
        response.read()
        assert response.json()["code"] == "insufficient_scope"
        assert 'scope="games:read"' in response.headers["WWW-Authenticate"]


@pytest.mark.usefixtures("fast_credential_checks")
def test_revoking_the_app_ends_its_open_streams_and_refuses_them_again(
    streams: Streams, player: Player, app: App
) -> None:
    token = authorize(player, app, "games:read").access_token
    game = player.new_game()
    _, reader = connect(streams, game_path(game["id"]), token)
    _, feed_reader = connect(streams, FEED, token)
    reader.event()
    # The player's own session still streams after the app is gone.
    _, own = streams.connect(game_path(game["id"]), player.token)
    own.event()

    revoked = player.client.delete(f"/api/v1/me/apps/{app.client_id}/")
    assert revoked.status_code == 204
    assert "credentials no longer valid" in ends_soon(reader)
    assert "credentials no longer valid" in ends_soon(feed_reader)
    for path in (game_path(game["id"]), FEED):
        response, _ = connect(streams, path, token)
        assert response.status_code == 401, path
        response.read()
        assert response.json()["code"] == "not_authenticated"

    player.command(game["id"], {"type": "resign"})
    assert own.event().event == "command"


@pytest.mark.usefixtures("fast_credential_checks")
def test_suspending_the_app_ends_its_streams(streams: Streams, player: Player, app: App) -> None:
    token = authorize(player, app, "games:read").access_token
    _, reader = connect(streams, FEED, token)
    reader.frame()
    services.app_suspend(app=app.client, by=None, reason="abuse")
    ends_soon(reader)
    response, _ = connect(streams, FEED, token)
    assert response.status_code == 401


@pytest.mark.usefixtures("fast_credential_checks")
def test_a_token_that_expires_ends_its_stream(streams: Streams, player: Player, app: App) -> None:
    token = authorize(player, app, "games:read").access_token
    _, reader = connect(streams, FEED, token)
    reader.frame()
    Token.objects.by_value(token).update(expires_at=timezone.now())
    ends_soon(reader)


@pytest.mark.usefixtures("fast_credential_checks")
def test_a_live_token_keeps_its_stream_open_through_its_checks(
    streams: Streams, player: Player, app: App
) -> None:
    token = authorize(player, app, "games:read").access_token
    game = player.new_game()
    _, reader = connect(streams, game_path(game["id"]), token)
    reader.event()
    time.sleep(2.5)  # past two checks
    player.command(game["id"], {"type": "resign"})
    assert [frame.event for frame in reader.rest()] == ["command", "end"]
