"""allauth's account adapter: the client's address by our rule, and failed log-ins marked."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest

from accounts.ratelimits import LOGIN_FAILED_KEY
from scorpion_site.client_ip import client_ip


class AccountAdapter(DefaultAccountAdapter):
    def get_client_ip(self, request: HttpRequest) -> str:
        """The address allauth's rate limits count by: ``X-Forwarded-For`` only as far as
        ``NUM_PROXIES`` vouches for it, like the API's throttles (scorpion_site/client_ip.py)."""
        address = client_ip(request)
        if not address:
            raise PermissionDenied("Unable to determine client IP address")
        return address

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        """allauth refuses here when the failed log-ins for this account or address are over
        their limit; the key of the account is noted for the ``Retry-After`` of the answer."""
        try:
            super().pre_authenticate(request, **credentials)
        except ValidationError:
            key = self._get_login_attempts_cache_key(request, **credentials)
            setattr(request, LOGIN_FAILED_KEY, key)
            raise
