"""The token a client sends (a session token, or an OAuth bearer token and how to refresh
it), shared by a client and its ``with_options`` views."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from scorpion_client.errors import AuthenticationError
from scorpion_client.oauth import OAuthToken, TokenType


@dataclass
class Credentials:
    """The token a client sends, shared by the client and its ``with_options`` copies: a
    refresh made by one is seen by all.

    ``token_type`` ``session``: a first-party session token (``X-Session-Token``);
    ``bearer``: an OAuth access token (``Authorization: Bearer``), refreshed with
    ``refresh_token`` and ``client_id`` (and ``client_secret`` for a confidential app) when
    it expires (``expires_at``) or is refused; ``on_refresh`` is told every new token (the
    refresh token rotates: store the new one)."""

    token: str | None = field(default=None, repr=False)
    token_type: TokenType = "session"
    refresh_token: str | None = field(default=None, repr=False)
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    expires_at: float | None = None
    on_refresh: Callable[[OAuthToken], None] | None = field(default=None, repr=False)

    @property
    def can_refresh(self) -> bool:
        return self.token_type == "bearer" and bool(self.refresh_token and self.client_id)

    def headers(self) -> dict[str, str]:
        if not self.token:
            return {}
        if self.token_type == "bearer":
            return {"Authorization": f"Bearer {self.token}"}
        return {"X-Session-Token": self.token}

    def use(self, token: OAuthToken) -> None:
        """Send ``token`` from now on (a new grant, or a refresh)."""
        self.token = token.access_token
        self.token_type = "bearer"
        self.expires_at = token.expires_at
        if token.refresh_token is not None:
            self.refresh_token = token.refresh_token
        if self.on_refresh is not None:
            self.on_refresh(token)

    def refresh_form(self) -> dict[str, str]:
        if not self.can_refresh:
            raise AuthenticationError(
                "cannot refresh: an OAuth token, its refresh token and the client id are needed"
            )
        assert self.refresh_token is not None
        assert self.client_id is not None
        form = {
            "grant_type": "refresh_token",
            "refresh_token": self.refresh_token,
            "client_id": self.client_id,
        }
        if self.client_secret:
            form["client_secret"] = self.client_secret
        return form


def token_type_from_env(value: str | None) -> TokenType:
    """``$SCORPION_TOKEN_TYPE``: ``session`` (the default) or ``bearer``; anything else is
    refused rather than guessed."""
    if value is None or value.strip() == "":
        return "session"
    word = value.strip().lower()
    if word == "session":
        return "session"
    if word == "bearer":
        return "bearer"
    raise ValueError(f"SCORPION_TOKEN_TYPE must be session or bearer, not {value!r}")
