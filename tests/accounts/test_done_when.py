"""Issue 13's test of done: an app registered on the site plays for a player who granted it
only the "play" scope, and nothing more; the player revokes it and its next call is a 401."""

from __future__ import annotations

from typing import Any

import pytest

from tests.accounts.conftest import (
    REDIRECT_URI,
    App,
    authorize,
    bearer,
    browser_for,
    csrf_token,
    refresh,
)
from tests.api.conftest import WON_DEAL, Player

pytestmark = pytest.mark.django_db


def test_an_app_granted_only_play_plays_and_does_nothing_more_then_dies_when_revoked(
    player: Player,
) -> None:
    # The developer registers the app on the site.
    developer = browser_for(player)
    token = csrf_token(developer)
    page = developer.post(
        "/developers/apps/new/",
        {
            "name": "Winning Bot",
            "kind": "public",
            "app_kind": "bot",
            "redirect_uris": REDIRECT_URI,
            "csrfmiddlewaretoken": token,
        },
    )
    assert page.status_code == 201
    app = App(page.context["app"], None)

    tokens = authorize(player, app, "games:play")
    assert tokens.scope == ["games:play"]
    api = bearer(tokens.access_token)

    game = api.post("/api/v1/games/", {"code": WON_DEAL["code"]}, format="json")
    assert game.status_code == 201, game.content
    game_id = game.json()["id"]
    for command in WON_DEAL["line"]:
        answer = api.post(f"/api/v1/games/{game_id}/commands/", command, format="json")
        assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "won"
    assert api.get(f"/api/v1/games/{game_id}/").json()["status"] == "won"

    # Nothing more: statistics, history, the account and the player's data stay closed.
    stats = api.get("/api/v1/stats/")
    assert stats.status_code == 403
    assert stats["Content-Type"] == "application/problem+json"
    assert stats.json()["code"] == "insufficient_scope"
    assert 'error="insufficient_scope"' in stats["WWW-Authenticate"]
    assert 'scope="stats:read"' in stats["WWW-Authenticate"]
    for method, path in [
        ("get", "/api/v1/games/"),
        ("get", f"/api/v1/games/{game_id}/events/"),
        ("get", "/api/v1/me/"),
        ("get", "/api/v1/me/export/"),
        ("get", "/api/v1/me/apps/"),
        ("delete", "/api/v1/me/data/"),
        ("delete", "/api/v1/me/"),
    ]:
        response: Any = getattr(api, method)(path)
        assert (response.status_code, response.json()["code"]) == (403, "insufficient_scope"), path
    assert player.get("/api/v1/me/").status_code == 200  # the account is still there

    # The player sees the app and revokes it; its very next call is a 401.
    listed = player.get("/api/v1/me/apps/").json()
    assert [(a["client_id"], a["scopes"]) for a in listed] == [(app.client_id, ["games:play"])]
    assert player.client.delete(f"/api/v1/me/apps/{app.client_id}/").status_code == 204

    after = api.get(f"/api/v1/games/{game_id}/")
    assert after.status_code == 401
    assert after.json()["code"] == "not_authenticated"
    assert 'error="invalid_token"' in after["WWW-Authenticate"]
    assert refresh(app, tokens.refresh_token).json()["error"] == "invalid_grant"
    assert player.get("/api/v1/me/apps/").json() == []


def test_first_party_sessions_keep_full_access(player: Player) -> None:
    assert player.get("/api/v1/stats/").status_code == 200
    assert player.get("/api/v1/me/export/").status_code == 200
    assert player.get("/api/v1/me/apps/").status_code == 200
