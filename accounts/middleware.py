"""Let a guest's session reach allauth's sign-up (accounts/guests.py).

allauth's headless sign-up answers 409 to a signed-in session. For a guest, that session is
what sign-up converts: on the sign-up endpoints only, the request goes to allauth as signed
out, the guest set aside for the adapter (``accounts.adapter.AccountAdapter.new_user``), which
gives allauth the guest's row to fill instead of a new user. Every other endpoint (log-in
included: from a guest session it answers 409 as for anyone signed in; the client logs the
guest out first) sees the guest as the signed-in user it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse

from accounts.guests import is_guest

GUEST_ATTRIBUTE = "_scorpion_guest"
SIGNUP_PATH = re.compile(r"^/_allauth/browser/v1/auth/signup/?$")


class GuestSignupMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and SIGNUP_PATH.match(request.path):
            user = request.user
            if is_guest(user):
                setattr(request, GUEST_ATTRIBUTE, user)
                request.user = AnonymousUser()
        return self.get_response(request)
