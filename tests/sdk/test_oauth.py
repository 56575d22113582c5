"""OAuth 2 in the SDK, against a fake authorization server (httpx.MockTransport) that follows
RFC 6749, RFC 7636 (PKCE) and RFC 8628 (the device flow), at the endpoints of allauth's
provider as docs/third-party.md describes them. (The end-to-end device flow against the real
provider is left to the server's branch, which adds the provider.)"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from scorpion_client import (
    AccessDenied,
    AsyncScorpion,
    AuthenticationError,
    DeviceCodeExpired,
    InsufficientScope,
    OAuthError,
    OAuthToken,
    Scorpion,
    authorization_url,
    code_challenge,
    make_pkce,
)

CLIENT_ID = "bot-app"
ME = {"id": 7, "email": "ada@example.com", "date_joined": "2026-01-01T00:00:00Z"}


def form_of(request: httpx.Request) -> dict[str, str]:
    assert request.headers["Content-Type"] == "application/x-www-form-urlencoded"
    return {k: v[0] for k, v in parse_qs(request.content.decode()).items()}


def oauth_error(error: str, status: int = 400) -> httpx.Response:
    return httpx.Response(status, json={"error": error, "error_description": f"{error} (test)"})


class FakeProvider:
    """The token, device and revocation endpoints, and /api/v1/me/ behind bearer tokens."""

    def __init__(self, device_answers: list[str] | None = None, expires_in: int = 3600) -> None:
        # What each device-code poll answers: an error word, or "ok" for the tokens.
        self.device_answers = list(device_answers or ["ok"])
        self.expires_in = expires_in
        self.requests: list[httpx.Request] = []
        self.live_access: set[str] = set()
        self.live_refresh: set[str] = {"refresh-0"}
        self.issued = 0
        self.revoked: list[str] = []

    def issue(self) -> httpx.Response:
        self.issued += 1
        access, refresh = f"access-{self.issued}", f"refresh-{self.issued}"
        self.live_access.add(access)
        self.live_refresh.add(refresh)
        body = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "scope": "games:play account:read",
            "refresh_token": refresh,
        }
        return httpx.Response(200, json=body)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if path == "/identity/o/api/device/code":
            form = form_of(request)
            if form["client_id"] != CLIENT_ID:
                return oauth_error("invalid_client", 401)
            return httpx.Response(
                200,
                json={
                    "device_code": "dev-code",
                    "user_code": "HLNM-RCQK",
                    "verification_uri": "http://test/identity/o/device",
                    "verification_uri_complete": "http://test/identity/o/device?code=HLNM-RCQK",
                    "expires_in": 600,
                    "interval": 5,
                    "scope": form.get("scope", ""),
                },
            )
        if path == "/identity/o/api/token":
            return self.token(form_of(request))
        if path == "/identity/o/api/revoke":
            token = form_of(request)["token"]
            self.revoked.append(token)
            self.live_refresh.discard(token)
            self.live_access.clear()
            return httpx.Response(200)
        if path == "/api/v1/me/":
            auth = request.headers.get("Authorization", "")
            if auth.removeprefix("Bearer ") not in self.live_access:
                return httpx.Response(
                    401,
                    json={"code": "not_authenticated", "status": 401, "detail": "expired"},
                    headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
                )
            return httpx.Response(200, json=ME)
        if path == "/api/v1/stats/":
            return httpx.Response(
                403,
                json={"code": "insufficient_scope", "status": 403, "detail": "stats:read"},
            )
        return httpx.Response(404, json={"code": "not_found", "status": 404})

    def token(self, form: dict[str, str]) -> httpx.Response:
        assert form["client_id"] == CLIENT_ID
        grant = form["grant_type"]
        if grant == "urn:ietf:params:oauth:grant-type:device_code":
            assert form["device_code"] == "dev-code"
            answer = self.device_answers.pop(0)
            return self.issue() if answer == "ok" else oauth_error(answer)
        if grant == "refresh_token":
            if form["refresh_token"] not in self.live_refresh:
                return oauth_error("invalid_grant")
            self.live_refresh.discard(form["refresh_token"])  # rotation: spent
            return self.issue()
        if grant == "authorization_code":
            verifier = form["code_verifier"]
            if form["code"] != "the-code" or code_challenge(verifier) != CHALLENGES["the-code"]:
                return oauth_error("invalid_grant")
            return self.issue()
        return oauth_error("unsupported_grant_type")

    def sent(self, path: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.url.path == path]


CHALLENGES: dict[str, str] = {}


def sync_client(provider: FakeProvider, **kwargs: Any) -> Scorpion:
    return Scorpion("http://test", transport=httpx.MockTransport(provider), **kwargs)


# --- PKCE (RFC 7636) ---


def test_pkce_matches_the_rfc_7636_example_and_makes_fresh_verifiers() -> None:
    # RFC 7636, appendix B.
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    assert code_challenge(verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    assert make_pkce(verifier).challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    first, second = make_pkce(), make_pkce()
    assert first.verifier != second.verifier
    assert 43 <= len(first.verifier) <= 128
    digest = hashlib.sha256(first.verifier.encode()).digest()
    assert first.challenge == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert "=" not in first.challenge
    assert first.method == "S256"
    assert first.verifier not in repr(first)
    for bad in ("short", "x" * 129, "a" * 42 + " ", "é" * 50):
        with pytest.raises(ValueError, match="43 to 128"):
            make_pkce(bad)


def test_authorization_url_carries_the_challenge_scope_and_state() -> None:
    pkce = make_pkce()
    url = authorization_url(
        "http://127.0.0.1:8000/",
        client_id=CLIENT_ID,
        redirect_uri="http://127.0.0.1:8123/callback",
        code_challenge=pkce.challenge,
        scope=["games:play", "games:read"],
        state="xyz",
    )
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "http",
        "127.0.0.1:8000",
        "/identity/o/authorize",
    )
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert query == {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": "http://127.0.0.1:8123/callback",
        "code_challenge": pkce.challenge,
        "code_challenge_method": "S256",
        "scope": "games:play games:read",
        "state": "xyz",
    }
    with Scorpion("http://host/prefix") as client:
        assert client.oauth.authorization_url(
            client_id="c", redirect_uri="r", code_challenge="x"
        ).startswith("http://host/prefix/identity/o/authorize?")


def test_a_code_is_exchanged_with_its_verifier_and_the_token_is_used() -> None:
    pkce = make_pkce()
    CHALLENGES["the-code"] = pkce.challenge
    provider = FakeProvider()
    with sync_client(provider) as client:
        with pytest.raises(OAuthError) as wrong:
            client.oauth.exchange_code(
                "the-code",
                code_verifier=make_pkce().verifier,  # not the one of the challenge
                redirect_uri="http://127.0.0.1:8123/callback",
                client_id=CLIENT_ID,
            )
        assert wrong.value.code == "invalid_grant"
        assert isinstance(wrong.value, AuthenticationError)

        token = client.oauth.exchange_code(
            "the-code",
            code_verifier=pkce.verifier,
            redirect_uri="http://127.0.0.1:8123/callback",
            client_id=CLIENT_ID,
        )
        assert token.scopes == {"games:play", "account:read"}
        assert client.token_type == "bearer"
        assert client.me.get().email == ME["email"]
    me_call = provider.sent("/api/v1/me/")[-1]
    assert me_call.headers["Authorization"] == f"Bearer {token.access_token}"
    assert "X-Session-Token" not in me_call.headers
    form = form_of(provider.sent("/identity/o/api/token")[-1])
    assert form["grant_type"] == "authorization_code"
    assert form["redirect_uri"] == "http://127.0.0.1:8123/callback"


# --- The device flow (RFC 8628) ---


def test_device_flow_waits_while_pending_slows_down_when_told_then_uses_the_token(
    sleeps: list[float],
) -> None:
    provider = FakeProvider(["authorization_pending", "slow_down", "authorization_pending", "ok"])
    shown: list[str] = []
    with sync_client(provider) as client:
        token = client.oauth.login_with_device(
            CLIENT_ID, ["games:play", "account:read"], show=lambda d: shown.append(d.user_code)
        )
        assert shown == ["HLNM-RCQK"]
        assert token.refresh_token == "refresh-1"
        assert client.me.get().id == 7
    # interval 5, then 5 more for every later poll after slow_down (RFC 8628 3.5).
    assert sleeps == [5.0, 5.0, 10.0, 10.0]
    device_form = form_of(provider.sent("/identity/o/api/device/code")[0])
    assert device_form == {"client_id": CLIENT_ID, "scope": "games:play account:read"}
    polls = provider.sent("/identity/o/api/token")
    assert len(polls) == 4
    assert {form_of(p)["grant_type"] for p in polls} == {
        "urn:ietf:params:oauth:grant-type:device_code"
    }


def test_device_flow_refused_or_expired(sleeps: list[float]) -> None:
    with sync_client(FakeProvider(["authorization_pending", "access_denied"])) as client:
        device = client.oauth.device_code(CLIENT_ID, "games:play")
        assert device.verification_uri_complete is not None
        assert "dev-code" not in repr(device)
        with pytest.raises(AccessDenied):
            client.oauth.poll_device_token(device, CLIENT_ID)
        assert client.token is None

    with sync_client(FakeProvider(["authorization_pending", "expired_token"])) as client:
        device = client.oauth.device_code(CLIENT_ID)
        with pytest.raises(DeviceCodeExpired) as expired:
            client.oauth.poll_device_token(device, CLIENT_ID)
        assert expired.value.code == "expired_token"

    # The code's own lifetime is over: no request at all, whatever the server would say.
    provider = FakeProvider(["ok"])
    with sync_client(provider) as client:
        device = client.oauth.device_code(CLIENT_ID)
        stale = type(device)(**{**vars(device), "expires_at": time.time() - 1})
        with pytest.raises(DeviceCodeExpired):
            client.oauth.poll_device_token(stale, CLIENT_ID)
    assert provider.sent("/identity/o/api/token") == []


# --- Tokens: bearer, refresh, revocation ---


def test_an_access_token_is_sent_as_bearer_and_a_session_token_as_before() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=ME)

    transport = httpx.MockTransport(handler)
    with Scorpion("http://test", token="sess", transport=transport) as session:
        session.me.get()
    with Scorpion("http://test", token="acc", token_type="bearer", transport=transport) as app:
        app.me.get()
    with Scorpion("http://test", token=OAuthToken("acc2"), transport=transport) as app2:
        assert app2.token_type == "bearer"
        app2.me.get()
    assert seen[0].headers["X-Session-Token"] == "sess"
    assert "Authorization" not in seen[0].headers
    assert seen[1].headers["Authorization"] == "Bearer acc"
    assert "X-Session-Token" not in seen[1].headers
    assert seen[2].headers["Authorization"] == "Bearer acc2"


def test_a_refused_access_token_is_refreshed_once_and_the_call_sent_again() -> None:
    provider = FakeProvider()
    stored: list[OAuthToken] = []
    client = sync_client(
        provider,
        token="access-stale",
        token_type="bearer",
        refresh_token="refresh-0",
        client_id=CLIENT_ID,
        on_token_refresh=stored.append,
    )
    with client:
        assert client.me.get().id == 7
        assert client.token == "access-1"
        assert [t.refresh_token for t in stored] == ["refresh-1"]  # rotated: store it
        refresh_form = form_of(provider.sent("/identity/o/api/token")[0])
        assert refresh_form == {
            "grant_type": "refresh_token",
            "refresh_token": "refresh-0",
            "client_id": CLIENT_ID,
        }
        # A refresh token that is refused (revoked meanwhile) ends it: no loop.
        provider.live_access.clear()
        provider.live_refresh.clear()
        with pytest.raises(OAuthError) as refused:
            client.me.get()
        assert refused.value.code == "invalid_grant"
    assert len(provider.sent("/api/v1/me/")) == 3  # refused, sent again; refused once more


def test_an_expired_access_token_is_refreshed_before_the_call() -> None:
    provider = FakeProvider()
    provider.live_access.add("access-old")
    old = OAuthToken("access-old", expires_at=time.time() + 5, refresh_token="refresh-0")
    assert old.expired()  # within the 30 s margin
    with sync_client(provider, token=old, client_id=CLIENT_ID) as client:
        client.me.get()
        assert client.token == "access-1"
    me_calls = provider.sent("/api/v1/me/")
    assert [r.headers["Authorization"] for r in me_calls] == ["Bearer access-1"]


def test_without_a_refresh_token_a_refused_token_is_an_authentication_error() -> None:
    provider = FakeProvider()
    with sync_client(provider, token="access-stale", token_type="bearer") as client:
        with pytest.raises(AuthenticationError) as caught:
            client.me.get()
        assert caught.value.code == "not_authenticated"
        with pytest.raises(InsufficientScope):
            client.stats.get()
    assert provider.sent("/identity/o/api/token") == []


def test_revoke_signs_the_app_out() -> None:
    provider = FakeProvider()
    with sync_client(
        provider, token=OAuthToken("a", refresh_token="refresh-0"), client_id=CLIENT_ID
    ) as c:
        c.oauth.revoke()
        assert c.token is None
    assert provider.revoked == ["refresh-0"]


def test_concurrent_async_calls_refresh_once() -> None:
    provider = FakeProvider()

    async def scenario() -> None:
        client = AsyncScorpion(
            "http://test",
            token="access-stale",
            token_type="bearer",
            refresh_token="refresh-0",
            client_id=CLIENT_ID,
            transport=httpx.MockTransport(provider),
        )
        async with client:
            results = await asyncio.gather(*(client.me.get() for _ in range(5)))
        assert {me.id for me in results} == {7}

    asyncio.run(scenario())
    # One refresh: the others saw the new token and did not spend the rotated refresh token.
    assert len(provider.sent("/identity/o/api/token")) == 1


def test_async_device_flow(sleeps: list[float]) -> None:
    provider = FakeProvider(["slow_down", "ok"])

    async def scenario() -> OAuthToken:
        async with AsyncScorpion("http://test", transport=httpx.MockTransport(provider)) as c:
            token = await c.oauth.login_with_device(CLIENT_ID, "games:play", show=lambda d: None)
            assert (await c.me.get()).id == 7
            return token

    token = asyncio.run(scenario())
    assert token.access_token == "access-1"
    assert sleeps == [5.0, 10.0]


def test_tokens_round_trip_and_hide_in_repr() -> None:
    token = OAuthToken.from_json(
        {"access_token": "A", "expires_in": 60, "refresh_token": "R", "scope": "x y", "new": 1},
        now=1000.0,
    )
    assert token.expires_at == 1060.0
    assert token.extra == {"new": 1}
    assert "A" not in repr(token).replace("OAuthToken", "")
    assert "'R'" not in repr(token)
    assert OAuthToken.from_stored(json.loads(json.dumps(token.to_json()))) == token
    with pytest.raises(TypeError):
        OAuthToken.from_json({"access_token": 5})


def test_a_stream_whose_token_expired_refreshes_and_resumes() -> None:
    provider = FakeProvider()
    streams: list[httpx.Request] = []
    feed = b"id: 1\nevent: resync\ndata: {}\n\nevent: end\ndata: {}\n\n"

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path != "/api/v1/me/stream/":
            return provider(request)
        streams.append(request)
        if request.headers["Authorization"].removeprefix("Bearer ") not in provider.live_access:
            return httpx.Response(401, json={"code": "not_authenticated", "status": 401})
        return httpx.Response(200, content=feed, headers={"Content-Type": "text/event-stream"})

    client = Scorpion(
        "http://test",
        token="access-stale",
        token_type="bearer",
        refresh_token="refresh-0",
        client_id=CLIENT_ID,
        transport=httpx.MockTransport(handler),
    )
    with client:
        items = list(client.me.stream())
    assert [type(item).__name__ for item in items] == ["FeedResync"]
    assert [r.headers["Authorization"] for r in streams] == [
        "Bearer access-stale",
        "Bearer access-1",
    ]
    assert len(provider.sent("/identity/o/api/token")) == 1
