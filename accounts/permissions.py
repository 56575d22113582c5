"""The scope check of third-party apps' access tokens."""

from __future__ import annotations

from typing import Any

from allauth.idp.oidc.models import Token
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from accounts.authentication import BEARER_REALM
from accounts.scopes import declared_scopes, is_granted


class InsufficientScope(PermissionDenied):
    """403 ``insufficient_scope``, with the RFC 6750 challenge naming the scopes needed."""

    problem_code = "insufficient_scope"

    def __init__(self, needed: tuple[str, ...]) -> None:
        if needed:
            detail = f"This needs the scope {' or '.join(needed)}, which the player did not grant."
            self.auth_header = (
                f'{BEARER_REALM}, error="insufficient_scope", scope="{" ".join(needed)}"'
            )
        else:
            detail = "Only the player's own sessions can do this, no app can."
            self.auth_header = f'{BEARER_REALM}, error="insufficient_scope"'
        super().__init__(detail)


class TokenHasDeclaredScope(BasePermission):
    """An app's access token must carry one of the scopes the view declares for the method
    (``oauth_scopes``, see accounts/scopes.py). A view or method that declares nothing is
    closed to tokens: this fails closed. The player's own sessions (session token, browser
    cookie) are not tokens of an app and keep full access."""

    def has_permission(self, request: Request, view: Any) -> bool:
        token = request.auth
        if not isinstance(token, Token):
            return True
        if request.method == "OPTIONS":
            return True
        needed = declared_scopes(view, request.method or "")
        if needed is None:
            needed = ()
        if not is_granted(needed, set(token.get_scopes())):
            raise InsufficientScope(needed)
        return True
