"""API throttles beyond DRF's own: a per-address limit that also covers signed-in callers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.throttling import SimpleRateThrottle

if TYPE_CHECKING:  # importing rest_framework.views here would be circular at settings load
    from rest_framework.request import Request
    from rest_framework.views import APIView


class IPRateThrottle(SimpleRateThrottle):
    """Counts every request from one address, whoever is signed in, so that many accounts
    on one address cannot multiply the per-user limit."""

    scope = "ip"

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
