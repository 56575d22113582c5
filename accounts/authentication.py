"""DRF authentication by allauth's headless session token."""

from __future__ import annotations

from allauth.headless.contrib.rest_framework.authentication import XSessionTokenAuthentication
from rest_framework.request import Request


class SessionTokenAuthentication(XSessionTokenAuthentication):
    """``X-Session-Token`` from the allauth ``app`` client.

    Unlike allauth's default, a token that is present but invalid (expired, logged out) is an
    authentication failure, and the challenge header makes DRF answer 401 rather than 403, as
    the API contract says.
    """

    allow_anonymous_users = False
    allow_invalid_session_tokens = False

    def authenticate_header(self, request: Request) -> str:
        return "X-Session-Token"
