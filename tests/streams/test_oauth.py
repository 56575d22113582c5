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
from games.broadcast.payloads import feed_now
from tests.accounts.conftest import App, authorize, register
from tests.api.conftest import Player
from tests.social.conftest import finished_game, play_out
from tests.social.test_challenges import make_challenge
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


def test_a_feed_without_the_social_read_scope_carries_no_social_notice_live_or_replayed(
    streams: Streams, player: Player, make_player: Any, app: App
) -> None:
    """Measured on uvicorn: a personal token of games:read alone, refused by GET
    /api/v1/challenges/ (403), read on the feed the ``challenge_result`` of the player's
    challenge, with the other player's name and result. The feed carries the social layer's
    notices only to a credential that may read them (a session, or social:read)."""
    games_only = authorize(player, app, "games:read").access_token
    social = authorize(player, app, "games:read social:read").access_token
    challenge = make_challenge(player, finished_game(player))
    before = feed_now()
    _, narrow = connect(streams, FEED, games_only)
    _, wide = connect(streams, FEED, social)
    _, own = streams.connect(FEED, player.token)
    for reader in (narrow, wide, own):
        reader.frame()  # the stream is open: what follows comes live
    bob = make_player()
    game = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    play_out(bob, game["id"], win=False)
    player.new_game()  # a games event after the notice, so that the narrow feed shows one
    assert wide.event().event == "challenge_result"
    assert own.event().event == "challenge_result"
    assert narrow.event().event == "game_created"
    # And the same when the feed reconnects from before the notice: the log replays it only
    # to the wide token.
    events = {}
    for name, token in (("narrow", games_only), ("wide", social)):
        _, reader = streams.connect(
            FEED, None, Authorization=f"Bearer {token}", **{"Last-Event-ID": str(before)}
        )
        events[name] = [
            frame.event
            for frame in reader.events_until(lambda frame: frame.event == "game_created")
        ]
    assert "challenge_result" in events["wide"]
    assert "challenge_result" not in events["narrow"]
