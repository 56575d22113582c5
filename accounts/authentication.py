"""DRF authentication by allauth's headless session token."""

from __future__ import annotations

from allauth.headless.adapter import get_adapter
from django.contrib.auth.models import User
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from accounts.sessions import SessionStore


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
        return "X-Session-Token"
