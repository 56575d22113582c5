"""Logging in: the account's own sessions (``client.auth``: sign-up, log-in, log-out) and
OAuth 2 for third-party apps (``client.oauth``: the device flow, an authorization code's
exchange, refresh and revocation).

This file is generated from ``_async_auth.py`` by ``scripts/unasync.py``.
"""

# Generated from its _async twin by client_sdk/scripts/unasync.py: do not edit, edit that
# one and run `make unasync` (`make test` checks that the two agree).

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from scorpion_client._core import Ops
from scorpion_client.errors import DeviceCodeExpired, OAuthError
from scorpion_client.models import Session
from scorpion_client.oauth import (
    DEVICE_CODE_GRANT,
    DeviceAuthorization,
    DevicePoll,
    OAuthToken,
    authorization_url,
)

if TYPE_CHECKING:
    from scorpion_client._sync import Scorpion


class AuthResource:
    """Sign-up, log-in and log-out (allauth headless, ``app`` client): the account's own
    sessions, for first-party programs. Third-party apps use ``oauth`` instead."""

    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def signup(self, email: str, password: str) -> Session:
        """Create an account and sign in: the client keeps the session token."""
        session = self._client.request(Ops.signup(email, password))
        self._use_session(session)
        return session

    def login(self, email: str, password: str) -> Session:
        """Log in: the client keeps the session token. A wrong e-mail address or password
        raises ``AuthenticationError``."""
        session = self._client.request(Ops.login(email, password))
        self._use_session(session)
        return session

    def _use_session(self, session: Session) -> None:
        credentials = self._client.credentials
        credentials.token = session.token
        credentials.token_type = "session"
        credentials.refresh_token = None
        credentials.expires_at = None

    def logout(self) -> None:
        """End the session on the server and forget the token."""
        if self._client.token:
            self._client.request(Ops.logout())
        self._client.token = None


class OAuthResource:
    """OAuth 2 for third-party apps (RFC 6749, 7636, 8628): the device flow, the exchange
    of an authorization code, refresh and revocation. Each grant makes the client send the
    new access token (``Authorization: Bearer``) and refresh it when it expires."""

    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def authorization_url(
        self,
        *,
        client_id: str,
        redirect_uri: str,
        code_challenge: str,
        scope: str | Iterable[str] | None = None,
        state: str | None = None,
    ) -> str:
        """The consent page's URL on this server (see ``scorpion_client.oauth``)."""
        return authorization_url(
            str(self._client.base_url),
            client_id=client_id,
            redirect_uri=redirect_uri,
            code_challenge=code_challenge,
            scope=scope,
            state=state,
        )

    def device_code(
        self, client_id: str, scope: str | Iterable[str] | None = None
    ) -> DeviceAuthorization:
        """Start the device flow: a code to show the player, and where they enter it."""
        scopes = scope if scope is None or isinstance(scope, str) else " ".join(scope)
        return self._client.request(Ops.oauth_device_code(client_id, scopes))

    def poll_device_token(
        self,
        device: DeviceAuthorization,
        client_id: str,
        *,
        client_secret: str | None = None,
    ) -> OAuthToken:
        """Wait for the player's answer, polling every ``interval`` seconds (5 more after
        each ``slow_down``), and use the token. Raises ``AccessDenied`` when the player
        refuses, ``DeviceCodeExpired`` when the code expires first."""
        poll = DevicePoll(device)
        form = {"grant_type": DEVICE_CODE_GRANT, "device_code": device.device_code}
        form |= self._client_auth(client_id, client_secret)
        wait = poll.interval
        while True:
            if poll.expired():
                raise DeviceCodeExpired(
                    "the device code expired before the player answered", code="expired_token"
                )
            self._client._wait(wait)
            try:
                token = self._client.request(Ops.oauth_token(form, replay_safe=True))
            except OAuthError as error:
                next_wait = poll.wait_after(error.code or "")
                if next_wait is None:
                    raise
                wait = next_wait
                continue
            self._use(token, client_id, client_secret)
            return token

    def login_with_device(
        self,
        client_id: str,
        scope: str | Iterable[str] | None = None,
        *,
        show: Callable[[DeviceAuthorization], None],
    ) -> OAuthToken:
        """The whole device flow: ``show`` is given the code to show the player (and the
        link), then the call returns once they allowed the app."""
        device = self.device_code(client_id, scope)
        show(device)
        return self.poll_device_token(device, client_id)

    def exchange_code(
        self,
        code: str,
        *,
        code_verifier: str,
        redirect_uri: str,
        client_id: str,
        client_secret: str | None = None,
    ) -> OAuthToken:
        """Trade an authorization code (from the redirect) for tokens, proving the PKCE
        verifier; then use the token."""
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": code_verifier,
        }
        form |= self._client_auth(client_id, client_secret)
        token = self._client.request(Ops.oauth_token(form))
        self._use(token, client_id, client_secret)
        return token

    def refresh(self) -> OAuthToken:
        """Refresh now (the client also does it by itself when the token expires)."""
        form = self._client.credentials.refresh_form()
        token = self._client.request(Ops.oauth_token(form))
        self._client.credentials.use(token)
        return token

    def revoke(self) -> None:
        """Sign the app out: revoke its refresh token (which takes its access tokens with it)
        or its access token (RFC 7009), and forget them."""
        credentials = self._client.credentials
        token = credentials.refresh_token or credentials.token
        if token and credentials.client_id:
            form = {"token": token}
            form |= self._client_auth(credentials.client_id, credentials.client_secret)
            self._client.request(Ops.oauth_revoke(form))
        credentials.token = None
        credentials.refresh_token = None
        credentials.expires_at = None

    @staticmethod
    def _client_auth(client_id: str, client_secret: str | None) -> dict[str, str]:
        form = {"client_id": client_id}
        if client_secret:
            form["client_secret"] = client_secret
        return form

    def _use(self, token: OAuthToken, client_id: str, client_secret: str | None) -> None:
        credentials = self._client.credentials
        credentials.client_id = client_id
        credentials.client_secret = client_secret
        credentials.refresh_token = None
        credentials.use(token)
