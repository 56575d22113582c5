"""The base view of the API."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from infrastructure.throttles import RateLimitState, rate_limit_headers, tightest


@functools.cache
def _scope_check(path: str) -> Callable[[Request, APIView], None]:
    """The function that refuses an app token lacking the view's scope (raises), by its path."""
    check: Callable[[Request, APIView], None] = import_string(path)
    return check


class ApiView(APIView):
    """DRF's APIView, with throttles checked before permissions, and where they stand said on
    every answer they counted.

    DRF checks permissions first, so an unauthenticated caller gets 401 forever and is never
    throttled; counting every request first means probing without credentials is limited too.
    Each answer, a 429 included, carries the ``RateLimit-*`` fields of the counter the client
    is nearest to spending (``infrastructure.throttles.rate_limit_headers``), so a client can
    pace itself before it meets a 429.

    An app's access token must then carry a scope the view declares for the method
    (``oauth_scopes``), whatever the view's ``permission_classes``: the check is the one
    ``settings.API_SCOPE_CHECK`` names (accounts.permissions.enforce_token_scope), so that this
    shared base knows no app.
    """

    rate_limit: RateLimitState | None = None

    def check_permissions(self, request: Request) -> None:
        self._count(request)
        _scope_check(settings.API_SCOPE_CHECK)(request, self)
        super().check_permissions(request)

    def check_throttles(self, request: Request) -> None:
        """Already done in check_permissions; counting twice would halve every limit."""

    def _count(self, request: Request) -> None:
        """DRF's check_throttles (every throttle counts the request, the longest wait is
        the one refused with), keeping where each counter stands."""
        refused = False
        waits: list[float] = []
        throttles = self.get_throttles()
        for throttle in throttles:
            if not throttle.allow_request(request, self):
                refused = True
                wait = throttle.wait()
                if wait is not None:
                    waits.append(wait)
        self.rate_limit = tightest(
            state for throttle in throttles if (state := getattr(throttle, "state", None))
        )
        if refused:
            if waits:
                self.throttled(request, max(waits))
            raise exceptions.Throttled  # no throttle said how long (DRF: a changed rate)

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        if self.rate_limit is not None:
            for name, value in rate_limit_headers(self.rate_limit).items():
                response[name] = value
        return response
