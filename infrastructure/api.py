"""The base view of the API."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.views import APIView


class ApiView(APIView):
    """DRF's APIView, with throttles checked before permissions.

    DRF checks permissions first, so an unauthenticated caller gets 401 forever and is never
    throttled; counting every request first means probing without credentials is limited too.
    """

    def check_permissions(self, request: Request) -> None:
        super().check_throttles(request)
        super().check_permissions(request)

    def check_throttles(self, request: Request) -> None:
        """Already done in check_permissions; counting twice would halve every limit."""
