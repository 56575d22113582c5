"""The per-app rate limit: every request made with any token of one app counts against it,
whichever player it acts for, beside the per-user and per-address limits.

Counted like the API's other throttles: one atomic fixed-window counter per app
(``infrastructure/throttles.py``), under the same ``throttle:`` prefix, so that it holds per
process while Redis is down like the others (``infrastructure/cache.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from allauth.idp.oidc.models import Token

from infrastructure.throttles import FixedWindowRateThrottle

if TYPE_CHECKING:  # importing rest_framework.views here would be circular at settings load
    from rest_framework.request import Request
    from rest_framework.views import APIView


class AppRateThrottle(FixedWindowRateThrottle):
    """Keyed by the client id of the access token; requests without one are not counted."""

    scope = "app"

    def get_rate(self) -> str | None:
        # settings.py always sets the "app" rate (THROTTLE_APP); a rates table that leaves it
        # out, as a test's own low rates may, means no per-app limit rather than an error.
        rate: str | None = self.THROTTLE_RATES.get(self.scope)
        return rate

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        token = request.auth
        if not isinstance(token, Token) or token.client_id is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": token.client_id}
