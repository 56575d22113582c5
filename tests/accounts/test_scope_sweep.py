"""What an app's token can do, tried on every URL pattern of the project.

Every pattern of the URL conf (the API, allauth's headless and browser endpoints, the OAuth
provider, the developer and account pages, the web pages, the staff pages and the admin) is
called with every method, once with each scope's real access token (from the real consent
page and token endpoint) and once with no credentials. An app's token gets through only where
the OpenAPI schema documents that one of its scopes opens the operation; everywhere else the
answer is 403 ``insufficient_scope`` before any view runs. Nothing asks what views declare:
this is what the server does.

The other kinds of credential go the same way: a bot app's token and a personal access token
of each scope alone over the API, and over every pattern a guest's and a player's sessions
(the app's session token and the browser's cookie), and the dead ones (a deactivated
player's session and token, a revoked personal token), none answered with a server error,
none of the dead let in. Requests ask for JSON, as API clients do (the docs page answered a
dead session token's JSON request with a 500).
"""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.utils.regex_helper import normalize
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient
from rest_framework.views import APIView

from accounts.scopes import API_SCOPES
from tests.accounts.conftest import App, authorize, bearer, register
from tests.api.conftest import Player

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
# Scopes whose token may call an endpoint outside the API: the OpenID Connect userinfo.
OUTSIDE_THE_API = {"/identity/o/api/userinfo": {"openid"}}
# Paths for the patterns whose expression Django's normalize() cannot invert.
SAMPLES = ("_allauth/app/v1/account/phone",)


def _part(regex: str) -> str:
    return re.sub(r"(?:\\Z|\$)$", "", regex.lstrip("^"))


def url_patterns(
    patterns: list[URLPattern | URLResolver] | None = None, prefix: str = ""
) -> Iterator[tuple[str, URLPattern]]:
    """Every endpoint pattern of the URL conf, with its whole regular expression."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        regex = prefix + _part(entry.pattern.regex.pattern)
        if isinstance(entry, URLResolver):
            yield from url_patterns(entry.url_patterns, regex)
        else:
            yield regex, entry


def concrete_path(regex: str, values: dict[str, str]) -> str | None:
    """A path that the pattern's regular expression matches, its parameters filled from
    ``values`` (by name) or else from a few plain candidates. (A pattern that an earlier one
    shadows, such as allauth's ``accounts/signup/`` behind the web client's redirect, is
    served by that one: the sweep calls whatever answers the path.)"""
    for form, params in normalize(regex):
        candidates = [
            [values[name]] if name in values else ["1", "abc", "auth", str(uuid.uuid4())]
            for name in params
        ]
        for choice in itertools.product(*candidates):
            path = form % dict(zip(params, choice, strict=True))
            if re.fullmatch(regex, path):
                return "/" + path
    # Django cannot invert every expression (the phone paths' alternation inside a class).
    return next(("/" + path for path in SAMPLES if re.fullmatch(regex, path)), None)


@pytest.fixture
def documented_scopes() -> dict[tuple[str, str], set[str]]:
    """(METHOD, path pattern of the schema as a regex) -> the scopes that open it."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    documented = {}
    for path, item in schema["paths"].items():
        regex = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$"
        for method, operation in item.items():
            if method.upper() in METHODS:
                documented[(method.upper(), regex)] = {
                    scope
                    for requirement in operation.get("security", [])
                    for scope in requirement.get("oauth2", [])
                }
    return documented


def scopes_opening(documented: dict[tuple[str, str], set[str]], method: str, path: str) -> set[str]:
    if path in OUTSIDE_THE_API:
        return OUTSIDE_THE_API[path]
    if "/stream/" in path:  # event streams, not in the schema: docs/api.md says games:read
        return {"games:read"} if method == "GET" else set()
    found = [
        scopes
        for (documented_method, regex), scopes in documented.items()
        if documented_method == method and re.match(regex, path)
    ]
    return found[0] if found else set()


def call(client: Any, method: str, path: str) -> Any:
    return client.generic(
        method, path, "{}", content_type="application/json", HTTP_ACCEPT="application/json"
    )


def sweep_paths(values: dict[str, str]) -> list[str]:
    paths, unreachable = [], []
    for regex, _pattern in url_patterns():
        path = concrete_path(regex, values)
        (paths if path else unreachable).append(path or regex)
    assert not unreachable, unreachable
    return paths


def server_error(response: Any) -> bool:
    """A 5xx that is not an answer (503 is one: a health check with no worker, a stream here)."""
    return bool(response.status_code >= 500 and response.status_code != 503)


def judge_token(
    scope: str, granted: set[str], opening: set[str], method: str, path: str, response: Any
) -> str | None:
    """What is wrong with an app token's answer, or None."""
    status = response.status_code
    if server_error(response):
        return f"{scope} server error: {method} {path} {status}"
    if path in OUTSIDE_THE_API and not granted & opening:
        return None if status in (401, 403) else f"{scope} not refused: {method} {path} {status}"
    if granted & opening:
        return f"{scope} refused: {method} {path} {status}" if status in (401, 403) else None
    if status != 403 or response.json().get("code") != "insufficient_scope":
        return f"{scope} not refused: {method} {path} {status}"
    return None


@pytest.mark.django_db
def test_every_url_pattern_answers_an_app_token_only_where_a_granted_scope_opens_it(
    player: Player, app: App, documented_scopes: dict[tuple[str, str], set[str]], monkeypatch: Any
) -> None:
    # The sweep makes thousands of requests as one player from one address: the API's rate
    # limits, tested elsewhere, would answer 429 to most of them.
    monkeypatch.setattr(APIView, "check_throttles", lambda self, request: None)
    tokens = {scope: (authorize(player, app, scope).access_token, {scope}) for scope in API_SCOPES}
    # A personal access token with every scope: the same rules as an app's token.
    personal = player.client.post(
        "/api/v1/me/tokens/", {"name": "sweep", "scopes": list(API_SCOPES)}, format="json"
    )
    tokens["personal"] = (personal.json()["token"], set(API_SCOPES))
    values = {"client_id": app.client_id, "game_id": str(uuid.uuid4())}
    paths = sweep_paths(values)
    assert len(paths) >= 200  # the whole URL conf: API, allauth, pages, admin
    assert any(p.startswith("/_allauth/app/v1/account/") for p in paths)
    assert any(p.startswith("/developers/apps/") for p in paths)

    let_in, wrongly = 0, []
    for path, method in itertools.product(paths, METHODS):
        opening = scopes_opening(documented_scopes, method, path)
        anonymous = call(APIClient(), method, path)
        assert not server_error(anonymous), (method, path, anonymous.content[:300])
        for scope, (token, granted) in tokens.items():
            response = call(bearer(token), method, path)
            status = response.status_code
            if getattr(resolve(path).func, "ignores_credentials", False):
                # Answers everyone alike (health checks, the 404 of an unknown API path).
                if status != anonymous.status_code:
                    wrongly.append(f"{scope} changed a public answer: {method} {path} {status}")
                continue
            let_in += bool(granted & opening)
            if problem := judge_token(scope, granted, opening, method, path, response):
                wrongly.append(problem)
    assert not wrongly, "\n".join(wrongly)
    assert let_in >= 20  # the scopes do open the API


@pytest.mark.django_db
def test_a_bot_apps_token_and_a_personal_token_of_each_scope_alone_open_what_that_scope_opens(
    player: Player, documented_scopes: dict[tuple[str, str], set[str]], monkeypatch: Any
) -> None:
    """The API (and the OpenID Connect userinfo) with every method: the kind of app behind a
    token, and a personal token's own app, change nothing of what its one scope opens. (Off
    the API every token meets the same middleware refusal before any view, swept above.)"""
    monkeypatch.setattr(APIView, "check_throttles", lambda self, request: None)
    bot = register(name="Sweep Bot", kind="bot")
    tokens = {}
    for scope in API_SCOPES:
        tokens[f"bot {scope}"] = authorize(player, bot, scope).access_token
        personal = player.post("/api/v1/me/tokens/", {"name": scope, "scopes": [scope]})
        tokens[f"personal {scope}"] = personal.json()["token"]
    values = {"client_id": bot.client_id, "game_id": str(uuid.uuid4())}
    paths = [
        path
        for path in sweep_paths(values)
        if path.startswith("/api/v1/") or path in OUTSIDE_THE_API
    ]
    assert len(paths) >= 40
    let_in, wrongly = 0, []
    for path, method in itertools.product(paths, METHODS):
        opening = scopes_opening(documented_scopes, method, path)
        for name, token in tokens.items():
            granted = {name.split(" ", 1)[1]}
            response = call(bearer(token), method, path)
            let_in += bool(granted & opening)
            if problem := judge_token(name, granted, opening, method, path, response):
                wrongly.append(problem)
    assert not wrongly, "\n".join(wrongly)
    assert let_in >= 40


# A player's own session may do these; the sweep would end its own session or account.
ENDS_THE_SWEEP = {
    ("DELETE", "/api/v1/me/"),
    ("DELETE", "/api/v1/me/data/"),
    ("POST", "/api/v1/me/data/"),
    ("DELETE", "/_allauth/app/v1/auth/session"),
}


@pytest.mark.django_db
def test_every_pattern_answers_sessions_and_dead_credentials_without_5xx_keeping_the_dead_out(
    player: Player, app: App, make_player: Any, monkeypatch: Any
) -> None:
    """Every pattern and method, with a guest's session, a player's session token and cookie,
    and the dead credentials: a deactivated player's session token and app token, and a
    revoked personal token. No 5xx for any; the dead are let in nowhere anonymity is not."""
    monkeypatch.setattr(APIView, "check_throttles", lambda self, request: None)
    # Browsers that send no CSRF token: their writes are refused (with no 5xx either).
    made_guest = APIClient()
    assert made_guest.post("/api/v1/guest/").status_code == 201
    guest = Client(enforce_csrf_checks=True)
    guest.cookies = made_guest.cookies
    cookie = Client(enforce_csrf_checks=True)
    cookie.force_login(User.objects.get(email=player.email))
    revoked = player.post("/api/v1/me/tokens/", {"name": "gone", "scopes": list(API_SCOPES)})
    assert player.client.delete(f"/api/v1/me/tokens/{revoked.json()['id']}/").status_code == 204
    gone = make_player()
    gone_token = authorize(gone, app, " ".join(API_SCOPES)).access_token
    gone_user = User.objects.get(email=gone.email)
    gone_user.is_active = False
    gone_user.save()
    session_token = APIClient()
    session_token.credentials(HTTP_X_SESSION_TOKEN=player.token)
    dead_session = APIClient()
    dead_session.credentials(HTTP_X_SESSION_TOKEN=gone.token)
    living = {"guest": guest, "session token": session_token, "cookie": cookie}
    dead = {
        "deactivated session token": dead_session,
        "deactivated app token": bearer(gone_token),
        "revoked personal token": bearer(revoked.json()["token"]),
    }
    values = {"client_id": app.client_id, "game_id": str(uuid.uuid4())}
    wrongly = []
    for path, method in itertools.product(sweep_paths(values), METHODS):
        anonymous = call(APIClient(), method, path)
        for name, client in {**living, **dead}.items():
            if name == "session token" and (method, path) in ENDS_THE_SWEEP:
                continue
            response = call(client, method, path)
            status = response.status_code
            if server_error(response):
                wrongly.append(f"{name} server error: {method} {path} {status}")
            elif name in dead and status < 400 and status != anonymous.status_code:
                wrongly.append(f"{name} let in: {method} {path} {status}")
            if name in dead and gone.email in response.content.decode(errors="replace"):
                wrongly.append(f"{name} shown the account: {method} {path} {status}")
    assert not wrongly, "\n".join(wrongly)


@pytest.mark.django_db
def test_the_guest_endpoint_refuses_every_app_token(player: Player, app: App) -> None:
    """Finding 2: a games:play or stats:read token read the account through it (200)."""
    for scope in API_SCOPES:
        response = bearer(authorize(player, app, scope).access_token).post("/api/v1/guest/")
        assert response.status_code == 403, (scope, response.content)
        assert response.json()["code"] == "insufficient_scope"
        assert player.email not in response.content.decode()
