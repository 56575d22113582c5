"""OAuth 2 for third-party apps: tokens, PKCE (RFC 7636) and the device flow (RFC 8628).

A third-party app acts for a player with an access token the player gave it, limited to the
scopes granted (the server's docs/third-party.md). The pieces that need no network are here;
the requests (device code, polling, code exchange, refresh, revocation) are the client's
``oauth`` namespace (``Scorpion(...).oauth``), sync or async.

>>> pkce = make_pkce()
>>> url = authorization_url(
...     "http://127.0.0.1:8000", client_id="...", redirect_uri="http://127.0.0.1:8123/cb",
...     scope=["games:play"], state="xyz", code_challenge=pkce.challenge)
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlencode

from scorpion_client import endpoints as ep

__all__ = [
    "DEVICE_CODE_GRANT",
    "PKCE",
    "DeviceAuthorization",
    "OAuthToken",
    "TokenType",
    "authorization_url",
    "code_challenge",
    "make_pkce",
]

TokenType = Literal["session", "bearer"]
"""How a token is sent: ``session`` (a first-party session token of allauth's app client,
``X-Session-Token``) or ``bearer`` (an OAuth 2 access token, ``Authorization: Bearer``)."""

DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"

# RFC 8628 3.5: on slow_down the interval grows by 5 seconds, for this and every later poll.
SLOW_DOWN_STEP = 5.0
# A token is refreshed this many seconds before it expires (clocks and latency).
EXPIRY_MARGIN = 30.0


def _scope(scope: str | Iterable[str] | None) -> str | None:
    if scope is None:
        return None
    return scope if isinstance(scope, str) else " ".join(scope)


# --- PKCE (RFC 7636) ---


@dataclass(frozen=True)
class PKCE:
    """A code verifier and its S256 challenge: send ``challenge`` (and ``method``) in the
    authorization URL, keep ``verifier`` and send it with the code to the token endpoint."""

    verifier: str = field(repr=False)
    challenge: str
    method: Literal["S256"] = "S256"


def code_challenge(verifier: str) -> str:
    """The S256 challenge of a verifier: BASE64URL(SHA256(ASCII(verifier))), unpadded."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


_VERIFIER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def make_pkce(verifier: str | None = None) -> PKCE:
    """A new verifier (64 characters from 48 random bytes) and its challenge, or the
    challenge of ``verifier`` (43 to 128 unreserved characters, as RFC 7636 4.1 demands)."""
    if verifier is None:
        verifier = secrets.token_urlsafe(48)
    if not 43 <= len(verifier) <= 128 or not set(verifier) <= _VERIFIER_CHARS:
        raise ValueError("a PKCE verifier is 43 to 128 characters of A-Z a-z 0-9 - . _ ~")
    return PKCE(verifier=verifier, challenge=code_challenge(verifier))


def authorization_url(
    base_url: str,
    *,
    client_id: str,
    redirect_uri: str,
    code_challenge: str,
    scope: str | Iterable[str] | None = None,
    state: str | None = None,
) -> str:
    """Where to send the player's browser to grant the app ``scope`` (authorization code flow
    with PKCE, S256). The browser comes back to ``redirect_uri?code=...&state=...``; check
    ``state``, then ``client.oauth.exchange_code(code, ...)``."""
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "code_challenge": code_challenge,
        "code_challenge_method": "S256",
    }
    scopes = _scope(scope)
    if scopes:
        params["scope"] = scopes
    if state is not None:
        params["state"] = state
    return f"{base_url.rstrip('/')}{ep.OAUTH_AUTHORIZE.path()}?{urlencode(params)}"


# --- Tokens ---


@dataclass(frozen=True)
class OAuthToken:
    """The token endpoint's answer. ``expires_at``: when the access token dies (a
    ``time.time()`` figure), None when the server did not say. The tokens are secrets:
    ``repr()`` leaves them out."""

    access_token: str = field(repr=False)
    token_type: str = "Bearer"
    expires_at: float | None = None
    refresh_token: str | None = field(default=None, repr=False)
    scope: str | None = None
    id_token: str | None = field(default=None, repr=False)
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def scopes(self) -> frozenset[str]:
        return frozenset((self.scope or "").split())

    def expired(self, *, margin: float = EXPIRY_MARGIN, now: float | None = None) -> bool:
        """True from ``margin`` seconds before the access token expires."""
        if self.expires_at is None:
            return False
        return (time.time() if now is None else now) >= self.expires_at - margin

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, now: float | None = None) -> OAuthToken:
        access = data["access_token"]
        if not isinstance(access, str) or not access:
            raise TypeError("access_token is not a string")
        expires_in = data.get("expires_in")
        expires_at = None
        if isinstance(expires_in, int | float) and not isinstance(expires_in, bool):
            expires_at = (time.time() if now is None else now) + float(expires_in)
        known = ("access_token", "token_type", "expires_in", "refresh_token", "scope", "id_token")
        return cls(
            access_token=access,
            token_type=str(data.get("token_type") or "Bearer"),
            expires_at=expires_at,
            refresh_token=_opt_str(data.get("refresh_token")),
            scope=_opt_str(data.get("scope")),
            id_token=_opt_str(data.get("id_token")),
            extra={k: v for k, v in data.items() if k not in known},
        )

    def to_json(self) -> dict[str, Any]:
        """What a program stores to use the token later (``from_stored`` reads it back)."""
        stored: dict[str, Any] = {"access_token": self.access_token, "token_type": self.token_type}
        for name in ("expires_at", "refresh_token", "scope"):
            value = getattr(self, name)
            if value is not None:
                stored[name] = value
        return stored

    @classmethod
    def from_stored(cls, data: Mapping[str, Any]) -> OAuthToken:
        expires_at = data.get("expires_at")
        return cls(
            access_token=str(data["access_token"]),
            token_type=str(data.get("token_type") or "Bearer"),
            expires_at=float(expires_at) if isinstance(expires_at, int | float) else None,
            refresh_token=_opt_str(data.get("refresh_token")),
            scope=_opt_str(data.get("scope")),
        )


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# --- The device flow (RFC 8628) ---


@dataclass(frozen=True)
class DeviceAuthorization:
    """The device endpoint's answer: show the player ``verification_uri`` and ``user_code``
    (or ``verification_uri_complete``, which carries the code), then poll every ``interval``
    seconds until ``expires_at`` (``client.oauth.poll_device_token``)."""

    device_code: str = field(repr=False)
    user_code: str
    verification_uri: str
    verification_uri_complete: str | None
    expires_at: float
    interval: float
    scope: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, now: float | None = None) -> DeviceAuthorization:
        expires_in = data["expires_in"]
        interval = data.get("interval", 5)
        if isinstance(expires_in, bool) or not isinstance(expires_in, int | float):
            raise TypeError("expires_in is not a number")
        if isinstance(interval, bool) or not isinstance(interval, int | float):
            raise TypeError("interval is not a number")
        return cls(
            device_code=str(data["device_code"]),
            user_code=str(data["user_code"]),
            verification_uri=str(data["verification_uri"]),
            verification_uri_complete=_opt_str(data.get("verification_uri_complete")),
            expires_at=(time.time() if now is None else now) + float(expires_in),
            interval=max(float(interval), 1.0),
            scope=_opt_str(data.get("scope")),
        )


class DevicePoll:
    """The polling schedule of RFC 8628 3.5, apart from the I/O: how long to wait before the
    next request, given the last answer's error word."""

    def __init__(self, device: DeviceAuthorization) -> None:
        self.device = device
        self.interval = device.interval

    def wait_after(self, error: str) -> float | None:
        """The seconds to wait before polling again, or None when the error is final."""
        if error == "slow_down":
            self.interval += SLOW_DOWN_STEP
        elif error != "authorization_pending":
            return None
        return self.interval

    def expired(self, now: float | None = None) -> bool:
        return (time.time() if now is None else now) >= self.device.expires_at
