"""Third-party apps in tests: registered through the service, authorised by a signed-in
player through the real consent page or device page, tokens from the real token endpoint."""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from allauth.idp.oidc.models import Client
from django.contrib.auth.models import User
from django.test import Client as BrowserClient
from rest_framework.test import APIClient

from accounts.oauth import services
from tests.api.conftest import Player, make_player, player

__all__ = ["make_player", "player"]  # the API tests' players, as fixtures here too

REDIRECT_URI = "https://app.example/callback"
TOKEN_URL = "/identity/o/api/token"
AUTHORIZE_URL = "/identity/o/authorize"
DEVICE_CODE_URL = "/identity/o/api/device/code"
DEVICE_URL = "/identity/o/device"
REVOKE_URL = "/identity/o/api/revoke"


@pytest.fixture(autouse=True)
def _loose_device_code_limit(settings: Any) -> None:
    """allauth allows 5 device-code checks a minute per address; tests make more."""
    settings.IDP_OIDC_RATE_LIMITS = {"device_user_code": "1000/m/ip"}


@dataclass
class App:
    client: Client
    secret: str | None

    @property
    def client_id(self) -> str:
        return str(self.client.pk)


@dataclass
class Tokens:
    access_token: str
    refresh_token: str
    scope: list[str]
    body: dict[str, Any] = field(default_factory=dict)


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def register(
    owner: User | None = None,
    *,
    public: bool = True,
    name: str = "Robo Player",
    kind: str = "client",
) -> App:
    if owner is None:
        owner = User.objects.create_user("dev-" + secrets.token_hex(4), "dev@example.com")
    client, secret = services.app_register(
        owner=owner, name=name, redirect_uris=[REDIRECT_URI], public=public, kind=kind
    )
    return App(client, secret)


def browser_for(player: Player) -> BrowserClient:
    """A browser signed in as the player, that checks CSRF tokens as a real one must."""
    browser = BrowserClient(enforce_csrf_checks=True)
    browser.force_login(User.objects.get(email=player.email))
    return browser


def csrf_token(browser: BrowserClient) -> str:
    browser.get("/")
    return str(browser.cookies["csrftoken"].value)


def authorize_params(app: App, scope: str, challenge: str, **extra: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": REDIRECT_URI,
        "scope": scope,
        "state": "st4te",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        **extra,
    }


def consent(
    browser: BrowserClient,
    app: App,
    scope: str,
    *,
    grant: list[str] | None = None,
    action: str = "grant",
    challenge: str,
) -> dict[str, list[str]]:
    """Open the consent page as the player, answer it, and return the query of the redirect
    back to the app."""
    page = browser.get(AUTHORIZE_URL, authorize_params(app, scope, challenge))
    assert page.status_code == 200, page.content
    form = page.context["form"]
    body = {
        "request": form["request"].value(),
        "scopes": grant if grant is not None else scope.split(),
        "action": action,
        "csrfmiddlewaretoken": str(page.context["csrf_token"]),
    }
    answer = browser.post(AUTHORIZE_URL, body)
    assert answer.status_code == 302, answer.content
    location = urlsplit(answer["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT_URI
    return parse_qs(location.query)


def token_request(app: App, body: dict[str, str], *, basic: bool = True) -> Any:
    """POST to the token endpoint as the app: a confidential app authenticates with HTTP
    Basic (or the body when ``basic`` is off), a public one only names itself."""
    data = dict(body)
    headers = {}
    if app.secret is None:
        data["client_id"] = app.client_id
    elif basic:
        pair = f"{app.client_id}:{app.secret}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
    else:
        data.update(client_id=app.client_id, client_secret=app.secret)
    return APIClient().post(
        TOKEN_URL,
        urlencode(data, doseq=True),
        content_type="application/x-www-form-urlencoded",
        headers=headers,
    )


def tokens_from(response: Any) -> Tokens:
    assert response.status_code == 200, response.content
    body = response.json()
    return Tokens(body["access_token"], body["refresh_token"], body["scope"].split(), body)


def authorize(player: Player, app: App, scope: str, grant: list[str] | None = None) -> Tokens:
    """The authorization code flow with PKCE, end to end."""
    verifier, challenge = pkce_pair()
    query = consent(browser_for(player), app, scope, grant=grant, challenge=challenge)
    assert query["state"] == ["st4te"]
    response = token_request(
        app,
        {
            "grant_type": "authorization_code",
            "code": query["code"][0],
            "redirect_uri": REDIRECT_URI,
            "code_verifier": verifier,
        },
    )
    return tokens_from(response)


def refresh(app: App, refresh_token: str) -> Any:
    return token_request(app, {"grant_type": "refresh_token", "refresh_token": refresh_token})


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@pytest.fixture
def app(db: None) -> App:
    return register()


@pytest.fixture
def make_app(db: None) -> Callable[..., App]:
    return register


@pytest.fixture
def play_token(player: Player, app: App) -> Tokens:
    """The player allowed the app to play, and nothing more."""
    return authorize(player, app, "games:play")
