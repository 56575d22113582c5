"""Our adapter of allauth's OpenID Connect provider: what the scopes are called on the consent
page, and which claims an ID token or the userinfo endpoint carries."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any, Literal

from allauth.idp.oidc.adapter import DefaultOIDCAdapter
from allauth.idp.oidc.models import Client
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser

from accounts.names import display_name
from accounts.scopes import ALL_SCOPES


class ScorpionOIDCAdapter(DefaultOIDCAdapter):
    scope_display = ALL_SCOPES

    def generate_client_secret(self) -> str:
        """256 random bits in URL-safe characters: allauth's default draws from punctuation
        (``$&^*``...) that has to be escaped in shells, URLs and HTML."""
        return secrets.token_urlsafe(32)

    def populate_server_metadata(self, data: dict[str, str | list[str]]) -> None:
        """The discovery document says what this server really grants: our scopes (no
        ``openid`` without a signing key), and only the grants and responses apps get."""
        scopes = list(ALL_SCOPES)
        if not settings.IDP_OIDC_PRIVATE_KEY:
            scopes.remove("openid")
        data["scopes_supported"] = scopes
        data["grant_types_supported"] = [
            Client.GrantType.AUTHORIZATION_CODE.value,
            Client.GrantType.REFRESH_TOKEN.value,
            Client.GrantType.DEVICE_CODE.value,
        ]
        data["response_types_supported"] = [Client.ResponseType.CODE.value]

    def get_claims(
        self,
        purpose: Literal["id_token", "userinfo"],
        user: AbstractBaseUser,
        client: Client,
        scopes: Iterable[str],
        email: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """allauth's claims, except that ``profile`` gives the name the leaderboards show.

        allauth would give the username, which sign-up derives from the e-mail address: an
        app granted only ``profile`` must not learn the address through it.
        """
        scopes = list(scopes)
        claims = super().get_claims(
            purpose, user, client, [s for s in scopes if s != "profile"], email=email, **kwargs
        )
        if "profile" in scopes:
            claims["preferred_username"] = display_name(
                user_id=user.pk, email=getattr(user, "email", "")
            )
        return claims
