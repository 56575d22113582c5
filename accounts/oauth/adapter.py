"""Our adapter of allauth's OpenID Connect provider: what the scopes are called on the consent
page, and which claims an ID token or the userinfo endpoint carries."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any, Literal

from allauth.idp.oidc.adapter import DefaultOIDCAdapter
from allauth.idp.oidc.models import Client
from django.contrib.auth.base_user import AbstractBaseUser

from accounts.scopes import ALL_SCOPES
from stats.selectors import display_name


class ScorpionOIDCAdapter(DefaultOIDCAdapter):
    scope_display = ALL_SCOPES

    def generate_client_secret(self) -> str:
        """256 random bits in URL-safe characters: allauth's default draws from punctuation
        (``$&^*``...) that has to be escaped in shells, URLs and HTML."""
        return secrets.token_urlsafe(32)

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
