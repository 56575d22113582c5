"""The OAuth 2 flows: authorization code with PKCE for public and confidential apps, the
device flow, refresh with rotation, revocation by the app (RFC 7009), OpenID Connect."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import jwt
import pytest
from allauth.idp.oidc.internal.oauthlib import device_codes
from allauth.idp.oidc.models import Token
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.oauth import services
from accounts.scopes import ALL_SCOPES
from tests.accounts.conftest import (
    AUTHORIZE_URL,
    DEVICE_CODE_URL,
    DEVICE_URL,
    REDIRECT_URI,
    REVOKE_URL,
    App,
    authorize,
    authorize_params,
    bearer,
    browser_for,
    consent,
    pkce_pair,
    refresh,
    register,
    token_request,
    tokens_from,
)
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db


def form_post(path: str, data: dict[str, str]) -> Any:
    return APIClient().post(path, urlencode(data), content_type="application/x-www-form-urlencoded")


# --- Authorization code with PKCE ---


def test_public_app_gets_tokens_with_the_granted_scopes(player: Player, app: App) -> None:
    tokens = authorize(player, app, "games:read games:play")
    assert sorted(tokens.scope) == ["games:play", "games:read"]
    assert tokens.body["token_type"] == "Bearer"
    assert tokens.body["expires_in"] == django_settings.IDP_OIDC_ACCESS_TOKEN_EXPIRES_IN
    me = bearer(tokens.access_token)
    assert me.get("/api/v1/games/").status_code == 200
    assert me.post("/api/v1/games/", {}, format="json").status_code == 201


def test_confidential_app_authenticates_with_its_secret(player: Player) -> None:
    app = register(public=False)
    assert app.secret
    tokens = authorize(player, app, "stats:read")
    assert bearer(tokens.access_token).get("/api/v1/stats/").status_code == 200
    # The secret in the body works as well as HTTP Basic; a wrong one does not.
    assert tokens_from(
        token_request(
            app, {"grant_type": "refresh_token", "refresh_token": tokens.refresh_token}, basic=False
        )
    ).scope == ["stats:read"]
    wrong = App(app.client, "not-the-secret")
    response = token_request(wrong, {"grant_type": "refresh_token", "refresh_token": "x"})
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"


def test_the_code_is_useless_without_the_pkce_verifier(player: Player, app: App) -> None:
    _, challenge = pkce_pair()
    query = consent(browser_for(player), app, "games:play", challenge=challenge)
    other_verifier, _ = pkce_pair()
    body = {
        "grant_type": "authorization_code",
        "code": query["code"][0],
        "redirect_uri": REDIRECT_URI,
        "code_verifier": other_verifier,
    }
    response = token_request(app, body)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    assert not Token.objects.filter(type=Token.Type.ACCESS_TOKEN).exists()


@pytest.mark.parametrize("public", [True, False])
def test_every_app_must_use_pkce(player: Player, public: bool) -> None:
    app = register(public=public)
    params = authorize_params(app, "games:play", "unused")
    del params["code_challenge"], params["code_challenge_method"]
    page = browser_for(player).get(AUTHORIZE_URL, params)
    assert page.status_code == 400
    assert "PKCE" in page.content.decode()


def test_a_code_serves_once(
    player: Player, app: App, django_capture_on_commit_callbacks: Any
) -> None:
    verifier, challenge = pkce_pair()
    query = consent(browser_for(player), app, "games:play", challenge=challenge)
    body = {
        "grant_type": "authorization_code",
        "code": query["code"][0],
        "redirect_uri": REDIRECT_URI,
        "code_verifier": verifier,
    }
    first = tokens_from(token_request(app, body))
    with django_capture_on_commit_callbacks(execute=True):
        assert token_request(app, body).json()["error"] == "invalid_grant"
    # A replayed code revokes what it gave (RFC 6749 section 10.5).
    assert bearer(first.access_token).post("/api/v1/games/", {}, format="json").status_code == 401


def test_unknown_redirect_uri_is_refused_on_our_page_not_redirected(
    player: Player, app: App
) -> None:
    _, challenge = pkce_pair()
    params = authorize_params(app, "games:play", challenge, redirect_uri="https://evil.example/")
    page = browser_for(player).get(AUTHORIZE_URL, params)
    assert page.status_code == 400
    assert "Location" not in page
    assert "not one the app registered" in page.content.decode()


@pytest.mark.parametrize(
    "redirect_uri",
    [
        REDIRECT_URI + "?x=1",  # finding 5: an extra query received the code
        REDIRECT_URI + "/",
        REDIRECT_URI + "#frag",
        "https://app.example:444/callback",
        "https://APP.example/callback",
    ],
)
def test_a_redirect_uri_must_be_exactly_a_registered_one(
    player: Player, app: App, redirect_uri: str
) -> None:
    _, challenge = pkce_pair()
    params = authorize_params(app, "games:play", challenge, redirect_uri=redirect_uri)
    page = browser_for(player).get(AUTHORIZE_URL, params)
    assert page.status_code == 400
    assert "Location" not in page
    assert "exactly one of them" in page.content.decode()


@pytest.mark.parametrize(
    ("redirect_uri", "allowed"),
    [
        ("http://127.0.0.1:51234/callback", True),  # RFC 8252: any port on loopback
        ("http://127.0.0.1/callback", True),
        ("http://[::1]:8080/callback", True),
        ("http://127.0.0.1:51234/callback?x=1", False),
        ("http://127.0.0.1:51234/other", False),
        ("http://localhost:51234/callback", False),
        ("https://127.0.0.1:51234/callback", False),
    ],
)
def test_only_a_loopback_redirects_port_may_vary(
    player: Player, redirect_uri: str, allowed: bool
) -> None:
    owner = User.objects.create_user("loopback-dev", "loop@example.com")
    client, _ = services.app_register(
        owner=owner,
        name="Desktop",
        redirect_uris=["http://127.0.0.1:1/callback", "http://[::1]/callback"],
        public=True,
    )
    _, challenge = pkce_pair()
    params = authorize_params(App(client, None), "games:play", challenge)
    params["redirect_uri"] = redirect_uri
    page = browser_for(player).get(AUTHORIZE_URL, params)
    assert (page.status_code == 200) is allowed, page.content[:300]
    if allowed:
        assert page.context["redirect_to"] == redirect_uri.split("/")[2]


def test_a_signed_out_visitor_logs_in_first_and_comes_back(app: App) -> None:
    _, challenge = pkce_pair()
    page = APIClient().get(AUTHORIZE_URL, authorize_params(app, "games:play", challenge))
    assert page.status_code == 302
    assert page["Location"].startswith("/?next=/identity/o/authorize%3Fresponse_type%3Dcode")


def test_the_consent_page_shows_the_app_and_what_it_asks(player: Player, app: App) -> None:
    _, challenge = pkce_pair()
    page = browser_for(player).get(
        AUTHORIZE_URL, authorize_params(app, "stats:read games:play", challenge)
    )
    html = page.content.decode()
    assert "Robo Player</span> wants to use your Scorpion account" in html
    assert "Start games, play moves and ask for hints in your name" in html
    assert "See your statistics and the daily leaderboards" in html
    assert "See your games" not in html  # not asked for, not shown
    assert "app.example" in html  # where the player goes back to
    assert "<script>" not in html  # the site's CSP allows no inline script
    assert page["X-Frame-Options"] == "DENY"


def test_the_consent_pages_policy_lets_its_form_lead_back_to_the_app(
    player: Player, app: App
) -> None:
    """Browsers hold the redirect that answers a form to the page's CSP form-action: 'self'
    alone would leave the player on the consent page (tests/web/test_apps_pages.py)."""
    _, challenge = pkce_pair()
    page = browser_for(player).get(AUTHORIZE_URL, authorize_params(app, "games:play", challenge))
    policy = dict(part.strip().split(" ", 1) for part in page["Content-Security-Policy"].split(";"))
    assert policy["form-action"].split() == ["'self'", "https://app.example"]
    assert "app.example" not in page["Content-Security-Policy"].replace(policy["form-action"], "")


@pytest.mark.parametrize(
    ("redirect_uri", "source"),
    [
        ("https://app.example/callback", "https://app.example"),
        ("http://127.0.0.1:8765/cb", "http://127.0.0.1:8765"),
        ("http://[::1]:99/cb", "http://[::1]:99"),
        ("com.example.app:/oauth", "com.example.app:"),
        ("https://user:pw@app.example/cb", "https://app.example"),
        ("https://app.example;script-src *", None),
        ("javascript:alert(1)", None),
        ("", None),
    ],
)
def test_the_form_action_source_of_a_redirect_uri(redirect_uri: str, source: str | None) -> None:
    from accounts.oauth.idp import form_action_source

    assert form_action_source(redirect_uri) == source


def test_the_player_may_grant_less_than_asked(player: Player, app: App) -> None:
    tokens = authorize(player, app, "games:play stats:read", grant=["games:play"])
    assert tokens.scope == ["games:play"]
    assert bearer(tokens.access_token).get("/api/v1/stats/").status_code == 403


def test_cancel_sends_access_denied_back(player: Player, app: App) -> None:
    _, challenge = pkce_pair()
    query = consent(browser_for(player), app, "games:play", action="cancel", challenge=challenge)
    assert query == {"error": ["access_denied"], "state": ["st4te"]}
    assert not Token.objects.exists()


def test_unknown_scopes_are_refused(player: Player, app: App) -> None:
    _, challenge = pkce_pair()
    page = browser_for(player).get(AUTHORIZE_URL, authorize_params(app, "admin", challenge))
    assert page.status_code == 302
    assert "error=invalid_scope" in page["Location"]


# --- Refresh and revocation ---


def test_refresh_rotates_the_refresh_token(player: Player, app: App) -> None:
    first = authorize(player, app, "games:play")
    second = tokens_from(refresh(app, first.refresh_token))
    assert second.refresh_token != first.refresh_token
    assert second.access_token != first.access_token
    assert second.scope == ["games:play"]
    assert bearer(second.access_token).post("/api/v1/games/", {}, format="json").status_code == 201
    assert tokens_from(refresh(app, second.refresh_token)).scope == ["games:play"]


def test_a_spent_refresh_token_used_again_revokes_its_whole_grant(player: Player, app: App) -> None:
    """Finding 5 (RFC 9700 4.14.2): the replay was refused but the newer tokens, perhaps a
    thief's, lived on."""
    first = authorize(player, app, "games:play")
    other_grant = authorize(player, app, "games:play")  # another consent, its own chain
    second = tokens_from(refresh(app, first.refresh_token))
    third = tokens_from(refresh(app, second.refresh_token))
    replay = refresh(app, first.refresh_token)
    assert replay.status_code == 400
    assert replay.json()["error"] == "invalid_grant"
    assert "used before" in replay.json()["error_description"]
    for tokens in (second, third):
        assert bearer(tokens.access_token).get("/api/v1/games/").status_code == 401
    assert refresh(app, third.refresh_token).json()["error"] == "invalid_grant"
    # Only that grant: the player's other consent to the same app holds.
    assert bearer(other_grant.access_token).get("/api/v1/games/").status_code == 403  # scope
    assert (
        bearer(other_grant.access_token).post("/api/v1/games/", {}, format="json").status_code
        == 201
    )
    assert tokens_from(refresh(app, other_grant.refresh_token)).scope == ["games:play"]
    # An unknown refresh token is simply refused, revoking nothing.
    assert refresh(app, "never-issued").json()["error"] == "invalid_grant"


def test_a_device_grants_reused_refresh_token_revokes_it_too(player: Player, app: App) -> None:
    started = start_device_flow(app, "games:play")
    answer_device(player, started["user_code"], "confirm")
    first = tokens_from(poll(app, started["device_code"]))
    second = tokens_from(refresh(app, first.refresh_token))
    assert refresh(app, first.refresh_token).json()["error"] == "invalid_grant"
    assert bearer(second.access_token).get("/api/v1/games/").status_code == 401


def test_refresh_tokens_expire(player: Player, app: App) -> None:
    tokens = authorize(player, app, "games:play")
    stored = Token.objects.get(type=Token.Type.REFRESH_TOKEN)
    assert stored.expires_at is not None
    lifetime = (stored.expires_at - stored.created_at).total_seconds()
    assert lifetime == pytest.approx(django_settings.IDP_OIDC_REFRESH_TOKEN_EXPIRES_IN, abs=5)
    assert tokens.body["refresh_expires_in"] == pytest.approx(lifetime, abs=5)


def test_an_app_revokes_its_own_refresh_token_and_its_access_tokens(
    player: Player, app: App
) -> None:
    tokens = authorize(player, app, "games:play")
    answer = form_post(
        REVOKE_URL,
        {
            "token": tokens.refresh_token,
            "token_type_hint": "refresh_token",
            "client_id": app.client_id,
        },
    )
    assert answer.status_code == 200
    assert bearer(tokens.access_token).post("/api/v1/games/", {}, format="json").status_code == 401
    assert refresh(app, tokens.refresh_token).json()["error"] == "invalid_grant"


def test_an_expired_access_token_is_a_401(player: Player, app: App) -> None:
    from django.utils import timezone

    tokens = authorize(player, app, "games:play")
    Token.objects.filter(type=Token.Type.ACCESS_TOKEN).update(expires_at=timezone.now())
    response = bearer(tokens.access_token).post("/api/v1/games/", {}, format="json")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_a_token_never_goes_in_the_query_string(player: Player, app: App) -> None:
    tokens = authorize(player, app, "games:play")
    response = APIClient().get("/api/v1/daily/", {"access_token": tokens.access_token})
    assert response.status_code == 401


# --- The device flow ---


def start_device_flow(app: App, scope: str) -> dict[str, Any]:
    response = form_post(DEVICE_CODE_URL, {"client_id": app.client_id, "scope": scope})
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def answer_device(player: Player, user_code: str, action: str) -> Any:
    browser = browser_for(player)
    page = browser.get(DEVICE_URL, {"code": user_code})
    assert page.status_code == 200
    return browser.post(
        f"{DEVICE_URL}?{urlencode({'code': user_code})}",
        {"action": action, "csrfmiddlewaretoken": str(page.context["csrf_token"])},
    )


def poll(app: App, device_code: str) -> Any:
    """One poll of the token endpoint, as if the polling interval had passed."""
    key = device_codes.cache_device_code_key(device_code)
    state = cache.get(key)
    if state is not None:
        state["last_poll_at"] = 0
        cache.set(key, state)
    return form_post(
        "/identity/o/api/token",
        {
            "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            "device_code": device_code,
            "client_id": app.client_id,
        },
    )


def test_device_flow_for_a_terminal_or_bot(player: Player, app: App) -> None:
    started = start_device_flow(app, "games:play stats:read")
    assert started["verification_uri"].endswith("/identity/o/device")
    assert started["verification_uri_complete"].endswith(f"?code={started['user_code']}")
    assert started["interval"] == django_settings.IDP_OIDC_DEVICE_CODE_INTERVAL
    assert poll(app, started["device_code"]).json()["error"] == "authorization_pending"

    page = browser_for(player).get(DEVICE_URL, {"code": started["user_code"]})
    html = page.content.decode()
    assert "Robo Player</span> wants to use your Scorpion account" in html
    assert started["user_code"] in html
    assert "Start games, play moves and ask for hints in your name" in html
    assert "See your statistics" in html

    confirmed = answer_device(player, started["user_code"], "confirm")
    assert "Robo Player is connected" in confirmed.content.decode()
    tokens = tokens_from(poll(app, started["device_code"]))
    assert sorted(tokens.scope) == ["games:play", "stats:read"]
    assert bearer(tokens.access_token).get("/api/v1/stats/").status_code == 200
    # A device code serves once.
    assert poll(app, started["device_code"]).json()["error"] == "invalid_grant"


def test_asking_for_device_codes_is_rate_limited(app: App, settings: Any) -> None:
    settings.IDP_OIDC_RATE_LIMITS = {"device_code": "2/m/ip"}
    body = {"client_id": app.client_id, "scope": "games:play"}
    statuses = [form_post(DEVICE_CODE_URL, body).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    refused = form_post(DEVICE_CODE_URL, body)
    assert refused.json()["error"] == "temporarily_unavailable"
    assert 1 <= int(refused["Retry-After"]) <= 60


def test_polling_too_fast_is_told_to_slow_down(app: App) -> None:
    started = start_device_flow(app, "games:play")
    body = {
        "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
        "device_code": started["device_code"],
        "client_id": app.client_id,
    }
    assert form_post("/identity/o/api/token", body).json()["error"] == "authorization_pending"
    assert form_post("/identity/o/api/token", body).json()["error"] == "slow_down"


def test_a_denied_device_gets_nothing(player: Player, app: App) -> None:
    started = start_device_flow(app, "games:play")
    denied = answer_device(player, started["user_code"], "deny")
    assert "Denied" in denied.content.decode()
    assert poll(app, started["device_code"]).json()["error"] == "access_denied"
    assert not Token.objects.exists()


def test_device_approval_needs_the_csrf_token(player: Player, app: App) -> None:
    started = start_device_flow(app, "games:play")
    browser = browser_for(player)
    forged = browser.post(
        f"{DEVICE_URL}?{urlencode({'code': started['user_code']})}", {"action": "confirm"}
    )
    assert forged.status_code == 403
    assert poll(app, started["device_code"]).json()["error"] == "authorization_pending"


def test_a_wrong_device_code_is_said_so(player: Player) -> None:
    page = browser_for(player).get(DEVICE_URL, {"code": "WRONG-CODE"})
    assert page.status_code == 200
    assert 'role="alert"' in page.content.decode()


def test_the_device_flow_is_for_public_apps(player: Player) -> None:
    app = register(public=False)
    response = form_post(
        DEVICE_CODE_URL, {"client_id": app.client_id, "client_secret": str(app.secret)}
    )
    assert response.status_code == 400
    assert response.json()["error"] == "unauthorized_client"


# --- OpenID Connect ---


@pytest.fixture
def signing_key(settings: Any) -> str:
    settings.IDP_OIDC_PRIVATE_KEY = settings.DEV_OIDC_PRIVATE_KEY
    return str(settings.DEV_OIDC_PRIVATE_KEY)


def test_openid_gives_an_id_token_and_profile_hides_the_email(
    player: Player, app: App, signing_key: str
) -> None:
    tokens = authorize(player, app, "openid profile")
    claims = jwt.decode(tokens.body["id_token"], options={"verify_signature": False})
    assert claims["aud"] == app.client_id
    assert claims["sub"] == str(player.get("/api/v1/me/").json()["id"])
    name = claims["preferred_username"]
    assert "***#" in name
    assert player.email.split("@")[0] not in name
    assert "email" not in claims
    jwks = APIClient().get("/.well-known/jwks.json").json()
    assert len(jwks["keys"]) == 1
    userinfo = bearer(tokens.access_token).get("/identity/o/api/userinfo").json()
    assert userinfo["preferred_username"] == name


def test_without_a_signing_key_openid_is_refused(player: Player, app: App, settings: Any) -> None:
    settings.IDP_OIDC_PRIVATE_KEY = ""
    _, challenge = pkce_pair()
    page = browser_for(player).get(AUTHORIZE_URL, authorize_params(app, "openid", challenge))
    assert page.status_code == 400
    assert "OpenID Connect is off" in page.content.decode()
    device = form_post(DEVICE_CODE_URL, {"client_id": app.client_id, "scope": "openid"})
    assert device.json()["error"] == "invalid_scope"


def test_discovery_lists_our_endpoints(db: None) -> None:
    config = APIClient().get("/.well-known/openid-configuration").json()
    assert config["token_endpoint"].endswith("/identity/o/api/token")
    assert config["device_authorization_endpoint"].endswith("/identity/o/api/device/code")
    assert config["code_challenge_methods_supported"] == ["S256"]
    assert config["scopes_supported"] == [s for s in ALL_SCOPES if s != "openid"]  # no key here
    assert config["response_types_supported"] == ["code"]
    assert "client_credentials" not in config["grant_types_supported"]
