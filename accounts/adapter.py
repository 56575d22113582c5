"""allauth's account adapter: the client's address by our rule, failed log-ins marked, and a
guest's sign-up saved on the guest's own account (accounts/guests.py)."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest
from django.utils import timezone

from accounts.guests import guest_convert
from accounts.middleware import GUEST_ATTRIBUTE
from accounts.ratelimits import LOGIN_FAILED_KEY
from infrastructure.client_ip import client_ip


class AccountAdapter(DefaultAccountAdapter):
    def get_client_ip(self, request: HttpRequest) -> str:
        """The address allauth's rate limits count by: ``X-Forwarded-For`` only as far as
        ``NUM_PROXIES`` vouches for it, like the API's throttles (infrastructure/client_ip.py)."""
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

    def new_user(self, request: HttpRequest) -> User:
        """The user a sign-up fills: the guest signing up (set aside by
        ``accounts.middleware.GuestAuthMiddleware``, re-read from the database), else a
        new one. Its guest username is cleared so that allauth derives one as for anyone."""
        guest = getattr(request, GUEST_ATTRIBUTE, None)
        if isinstance(guest, User):
            fresh = User.objects.filter(pk=guest.pk, profile__guest=True).first()
            if fresh is not None:
                fresh.username = ""
                return fresh
        user: User = super().new_user(request)
        return user

    def save_user(self, request: HttpRequest, user: Any, form: Any, commit: bool = True) -> Any:
        if commit and user.pk is not None:  # the guest's own row, from ``new_user``
            saved: list[Any] = []
            save_user = super().save_user  # zero-argument super() does not work in a lambda
            if guest_convert(user=user, save=lambda: saved.append(save_user(request, user, form))):
                return saved[0]
            # Another sign-up from the same guest session won the race: this one is a new
            # account of its own, as if the session had held no guest.
            _as_new_row(user)
        return super().save_user(request, user, form, commit=commit)


def _as_new_row(user: User) -> None:
    """Turn a loaded user into an unsaved one, so that ``save`` inserts a new row."""
    user.pk = None
    user._state.adding = True
    user.last_login = None
    user.date_joined = timezone.now()
