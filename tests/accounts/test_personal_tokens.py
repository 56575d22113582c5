"""Personal access tokens (Lichess's model): a player makes a token for their own scripts
with the scopes they choose, sees it once, finds it listed under "Apps" and revokes it; it
opens what its scopes open, as an app's token, and nothing else."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from allauth.idp.oidc.models import Token
from rest_framework.test import APIClient

from accounts.oauth.selectors import PERSONAL_CLIENT_ID
from tests.accounts.conftest import bearer, browser_for, csrf_token
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db

TOKENS = "/api/v1/me/tokens/"


def make_token(player: Player, **body: Any) -> Any:
    return player.client.post(TOKENS, {"name": "my bot", **body}, format="json")


def test_a_token_is_shown_once_and_opens_what_its_scopes_open(player: Player) -> None:
    made = make_token(player, scopes=["games:play"], days=30)
    assert made.status_code == 201, made.content
    body = made.json()
    value = body["token"]
    assert value.startswith("scp_")
    assert (body["name"], body["scopes"]) == ("my bot", ["games:play"])
    expires = datetime.datetime.fromisoformat(body["expires_at"])
    assert 29 <= (expires - datetime.datetime.now(datetime.UTC)).days <= 30
    listed = player.get(TOKENS).json()
    assert listed == [{key: body[key] for key in body if key != "token"}]
    assert value not in player.get(TOKENS).content.decode()
    assert not Token.objects.filter(hash=value).exists()  # only its hash is kept

    script = bearer(value)
    assert script.post("/api/v1/games/", {}, format="json").status_code == 201
    for refused in ("/api/v1/stats/", "/api/v1/me/", TOKENS, "/api/v1/me/export/"):
        response = script.get(refused)
        assert response.status_code == 403, refused
        assert response.json()["code"] == "insufficient_scope"
    # A token makes no tokens, and no app takes the player's session-only pages.
    assert (
        script.post(TOKENS, {"name": "x", "scopes": ["games:play"]}, format="json").status_code
        == 403
    )
    assert script.get("/account/apps/").status_code == 403


def test_a_revoked_or_expired_token_is_a_401(player: Player) -> None:
    first = make_token(player, scopes=["stats:read"]).json()
    second = make_token(player, name="other", scopes=["stats:read"], days=7).json()
    assert first["expires_at"] is None  # until revoked
    assert bearer(first["token"]).get("/api/v1/stats/").status_code == 200
    assert player.client.delete(f"{TOKENS}{first['id']}/").status_code == 204
    assert bearer(first["token"]).get("/api/v1/stats/").status_code == 401
    assert player.client.delete(f"{TOKENS}{first['id']}/").status_code == 404
    Token.objects.filter(pk=second["id"]).update(
        expires_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)
    )
    assert bearer(second["token"]).get("/api/v1/stats/").status_code == 401
    assert player.get(TOKENS).json() == []


def test_tokens_are_not_apps_and_are_the_players_own(player: Player, make_player: Any) -> None:
    mine = make_token(player, scopes=["games:read"]).json()
    assert player.get("/api/v1/me/apps/").json() == []
    # Revoking "the app" of personal tokens revokes nothing: tokens go one by one.
    assert player.client.delete(f"/api/v1/me/apps/{PERSONAL_CLIENT_ID}/").status_code == 404
    assert bearer(mine["token"]).get("/api/v1/games/").status_code == 200
    other = make_player()
    assert other.get(TOKENS).json() == []
    assert other.client.delete(f"{TOKENS}{mine['id']}/").status_code == 404
    assert bearer(mine["token"]).get("/api/v1/games/").status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {"scopes": []},
        {"scopes": ["openid"]},
        {"scopes": ["games:play"], "days": 3},
        {"scopes": ["games:play"], "days": "30"},
        {"scopes": ["games:play"], "name": 42},
        {"scopes": ["games:play"], "name": ""},
        # 61 characters as sent, 60 once trimmed: the schema's maxLength counts them as sent.
        {"scopes": ["games:play"], "name": "\f" + "*" * 60},
        {"scopes": ["games:play"], "extra": 1},
    ],
)
def test_a_token_needs_a_name_known_scopes_and_an_offered_lifetime(
    player: Player, body: dict[str, Any]
) -> None:
    response = player.client.post(TOKENS, {"name": "bot", **body}, format="json")
    assert response.status_code == 400, response.content
    assert not Token.objects.filter(client_id=PERSONAL_CLIENT_ID).exists()


def test_a_guest_makes_no_token() -> None:
    browser = APIClient()
    made = browser.post("/api/v1/guest/")
    assert made.status_code == 201
    response = browser.post(TOKENS, {"name": "bot", "scopes": ["games:play"]}, format="json")
    assert response.status_code == 403
    assert "sign up first" in response.json()["detail"]


def test_the_apps_page_makes_shows_once_and_revokes_tokens(player: Player) -> None:
    browser = browser_for(player)
    page = browser.post(
        "/account/tokens/new/",
        {
            "name": "nightly stats",
            "scopes": ["stats:read", "games:read"],
            "days": "90",
            "csrfmiddlewaretoken": csrf_token(browser),
        },
    )
    assert page.status_code == 201
    value = page.context["new_token"]
    assert value in page.content.decode()
    assert bearer(value).get("/api/v1/stats/").status_code == 200
    again = browser.get("/account/apps/")
    html = again.content.decode()
    assert "nightly stats" in html
    assert value not in html
    (token,) = again.context["tokens"]
    assert token.scopes == ["games:read", "stats:read"]
    revoked = browser.post(
        f"/account/tokens/{token.id}/revoke/", {"csrfmiddlewaretoken": csrf_token(browser)}
    )
    assert revoked.status_code == 302
    assert bearer(value).get("/api/v1/stats/").status_code == 401
    refused = browser.post(
        "/account/tokens/new/", {"name": "x", "csrfmiddlewaretoken": csrf_token(browser)}
    )
    assert refused.status_code == 400
    assert "Choose one or more of the scopes" in refused.content.decode()


def test_each_players_tokens_count_against_a_limit_of_their_own(
    player: Player, make_player: Any
) -> None:
    from accounts.throttles import AppRateThrottle

    keys = set()
    for owner in (player, make_player()):
        value = make_token(owner, scopes=["games:read"]).json()["token"]
        token = Token.objects.lookup(Token.Type.ACCESS_TOKEN, value)
        request = type("Request", (), {"auth": token})()
        keys.add(AppRateThrottle().get_cache_key(request, None))  # type: ignore[arg-type]
    assert len(keys) == 2


def test_no_oauth_flow_issues_a_token_of_the_personal_tokens_app(player: Player) -> None:
    make_token(player, scopes=["games:play"])  # the app exists from the first token on
    device = APIClient().post(
        "/identity/o/api/device/code", {"client_id": PERSONAL_CLIENT_ID, "scope": "games:play"}
    )
    assert device.status_code in (400, 401), device.content
    consent = browser_for(player).get(
        "/identity/o/authorize",
        {
            "response_type": "code",
            "client_id": PERSONAL_CLIENT_ID,
            "redirect_uri": "https://app.example/callback",
            "scope": "games:play",
            "code_challenge": "x" * 43,
            "code_challenge_method": "S256",
        },
    )
    assert "form" not in (consent.context or {})
    for grant in ("client_credentials", "password"):
        token = APIClient().post(
            "/identity/o/api/token",
            {"grant_type": grant, "client_id": PERSONAL_CLIENT_ID, "username": "x"},
        )
        assert token.status_code in (400, 401), token.content
