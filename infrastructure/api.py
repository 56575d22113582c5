"""The base view of the API."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.app_tokens import token_scope_check
from accounts.permissions import InsufficientScope


class ApiView(APIView):
    """DRF's APIView, with throttles checked before permissions.

    DRF checks permissions first, so an unauthenticated caller gets 401 forever and is never
    throttled; counting every request first means probing without credentials is limited too.

    An app's access token must then carry a scope the view declares for the method
    (``oauth_scopes``, accounts/app_tokens.py), whatever the view's ``permission_classes``.
    """

    def check_permissions(self, request: Request) -> None:
        super().check_throttles(request)
        needed = token_scope_check(request, self)
        if needed is not None:
            raise InsufficientScope(needed)
        super().check_permissions(request)

    def check_throttles(self, request: Request) -> None:
        """Already done in check_permissions; counting twice would halve every limit."""
