"""Live streams opened with a player's own session (the app's X-Session-Token, or the browser's
session cookie): a session that ends while a stream is open (signed out, its user deactivated)
ends the stream at its next credential check, not up to STREAM_MAX_SECONDS later; the
reconnection is then refused."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from tests.api.conftest import Player
from tests.streams.conftest import Streams, ends_soon

FEED = "/api/v1/me/stream/"

pytestmark = pytest.mark.usefixtures("fast_credential_checks")


def game_path(game_id: str) -> str:
    return f"/api/v1/games/{game_id}/stream/"


def browser_of(player: Player) -> Client:
    browser = Client()
    browser.force_login(User.objects.get(email=player.email))
    return browser


def cookie(browser: Client) -> str:
    return f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}"


def test_signing_out_ends_the_session_tokens_streams(streams: Streams, player: Player) -> None:
    game = player.new_game()
    _, reader = streams.connect(game_path(game["id"]), player.token)
    _, feed_reader = streams.connect(FEED, player.token)
    reader.event()
    # Another session of the same player is not concerned.
    browser = browser_of(player)
    _, other = streams.connect(FEED, Cookie=cookie(browser))
    other.frame()

    assert player.client.delete("/_allauth/app/v1/auth/session").status_code == 401
    assert "credentials no longer valid" in ends_soon(reader)
    assert "credentials no longer valid" in ends_soon(feed_reader)
    response, _ = streams.connect(FEED, player.token)
    assert response.status_code == 401

    browser.post("/api/v1/games/", {}, content_type="application/json")
    assert other.event().event == "game_created"


def test_signing_out_ends_the_browser_sessions_stream(streams: Streams, player: Player) -> None:
    browser = browser_of(player)
    _, reader = streams.connect(FEED, Cookie=cookie(browser))
    reader.frame()
    session = cookie(browser)
    browser.logout()
    assert "credentials no longer valid" in ends_soon(reader)
    response, _ = streams.connect(FEED, Cookie=session)
    assert response.status_code == 401


def test_deactivating_the_player_ends_their_streams(streams: Streams, player: Player) -> None:
    _, reader = streams.connect(FEED, player.token)
    reader.frame()
    user = User.objects.get(email=player.email)
    user.is_active = False
    user.save()
    ends_soon(reader)


def test_a_live_session_keeps_its_stream_open_through_its_checks(
    streams: Streams, player: Player
) -> None:
    game = player.new_game()
    _, reader = streams.connect(game_path(game["id"]), player.token)
    reader.event()
    time.sleep(2.5)  # past two checks
    player.command(game["id"], {"type": "resign"})
    assert [frame.event for frame in reader.rest()] == ["command", "end"]
