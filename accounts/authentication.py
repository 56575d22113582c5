"""DRF authentication: allauth's headless session token (first-party apps) and the OAuth
access tokens of third-party apps (allauth's OpenID Connect provider)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from allauth.headless.adapter import get_adapter
from allauth.idp.oidc.contrib.rest_framework.authentication import TokenAuthentication
from allauth.idp.oidc.models import Token
from django.contrib.auth.models import User
from django.http import HttpRequest
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from accounts.oauth.selectors import access_token_is_live, app_is_suspended
from accounts.sessions import SessionStore

BEARER_REALM = 'Bearer realm="scorpion"'


def bearer_token(request: Request | HttpRequest) -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


class SessionTokenAuthentication(BaseAuthentication):
    """``X-Session-Token`` from the allauth ``app`` client (the token is a session key).

    What allauth's ``XSessionTokenAuthentication`` does, in one cache round trip and without
    SQL on the usual request: the session is loaded once (not asked ``exists()`` first) and
    its user comes from the snapshot cached beside it (``accounts/sessions.py``, which says
    why a snapshot cannot outlive a log-out, a deactivation or a deletion).

    Unlike allauth's default, a token that is present but invalid (expired, logged out, its
    user inactive or gone) is an authentication failure, and the challenge header makes DRF
    answer 401 rather than 403, as the API contract says.
    """

    def authenticate(self, request: Request) -> tuple[User, SessionStore] | None:
        token = request.headers.get("X-Session-Token")
        if not token:
            return None
        session = SessionStore(session_key=token)
        user = session.authenticated_user()
        if user is None:
            if session.session_key is None:  # no such session: expired, logged out, forged
                raise AuthenticationFailed(get_adapter().error_messages["invalid_token"])
            raise AuthenticationFailed()  # a session, but nobody (or nobody active) signed in
        return user, session

    def authenticate_header(self, request: Request) -> str:
        # DRF takes the challenge of a 401 from the first authentication class, this one; a
        # caller that sent an access token is told about that token (RFC 6750, section 3).
        if bearer_token(request) is not None:
            return f'{BEARER_REALM}, error="invalid_token"'
        return "X-Session-Token"


class BearerTokenAuthentication(TokenAuthentication):
    """``Authorization: Bearer <access token>`` of a third-party app.

    allauth's class, with three changes: a token that is present but not valid (expired,
    revoked, of a deleted app) is a 401 rather than an anonymous request; so is a token of a
    suspended app; and it reads the Django request, so that the body is left to the view's
    parser. ``request.auth`` is then the allauth ``Token``, whose scopes
    ``accounts.app_tokens`` checks.
    """

    def authenticate(self, request: Request) -> tuple[Any, Token] | None:
        if bearer_token(request) is None:
            return None
        result = super().authenticate(request._request)
        if result is None:
            raise AuthenticationFailed("The access token is not valid: expired or revoked.")
        user, token = result
        if token.client_id is not None and app_is_suspended(client_id=token.client_id):
            raise AuthenticationFailed("The app of this access token is suspended.")
        return user, token

    def authenticate_header(self, request: Request) -> str:
        return BEARER_REALM


def credentials_recheck(request: Request) -> Callable[[], bool] | None:
    """For a request that outlives its authentication (a live stream): a function that says
    whether its credentials still hold, to be asked again from time to time (it reads the
    database), or None when nothing needs asking again.

    An app's access token is looked up again: revoked, expired, or of an app suspended since,
    it no longer holds. A player's own session (the app's ``X-Session-Token`` or the browser's
    cookie) is loaded again: signed out, expired, its user deactivated, deleted or given a new
    password, it no longer holds (``SessionStore.authenticated_user``: one cache read).
    """
    token = request.auth
    if isinstance(token, Token):
        token_id = token.pk

        def token_is_live() -> bool:
            return access_token_is_live(token_id=token_id)

        return token_is_live
    # X-Session-Token authenticates with its session as request.auth; DRF's
    # SessionAuthentication (the cookie) with the middleware's session and no auth.
    session = token if isinstance(token, SessionStore) else getattr(request, "session", None)
    session_key = getattr(session, "session_key", None)
    if not isinstance(session_key, str):
        return None
    user_id = request.user.pk

    def session_is_live() -> bool:
        user = SessionStore(session_key=session_key).authenticated_user()
        return user is not None and user.pk == user_id

    return session_is_live
