"""The base view of the API."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from infrastructure.throttles import RateLimitState, rate_limit_headers, tightest


class ApiView(APIView):
    """DRF's APIView, with throttles checked before permissions, and where they stand said on
    every answer they counted.

    DRF checks permissions first, so an unauthenticated caller gets 401 forever and is never
    throttled; counting every request first means probing without credentials is limited too.
    Each answer, a 429 included, carries the ``RateLimit-*`` fields of the counter the client
    is nearest to spending (``infrastructure.throttles.rate_limit_headers``), so a client can
    pace itself before it meets a 429.
    """

    rate_limit: RateLimitState | None = None

    def check_permissions(self, request: Request) -> None:
        self._count(request)
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
