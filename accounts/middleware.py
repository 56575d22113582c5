"""Let a guest's session reach allauth's sign-up and log-in (accounts/guests.py).

allauth's headless sign-up and log-in answer 409 to a signed-in session. For a guest, on
those two endpoints of the browser client only, the request goes to allauth as signed out, so
that allauth's own machinery runs as for any visitor (its rate limits and failed-attempt
limits, its e-mail verification and other stages, its answers):

- **Sign-up** converts the guest: it is set aside for the adapter
  (``accounts.adapter.AccountAdapter.new_user``), which gives allauth the guest's row to fill
  instead of a new user.
- **Log-in** to an existing account leaves the guest's session as it is until the log-in
  completes: a wrong password, a refusal or a step left pending (an address to confirm)
  writes nothing that signs the guest out, so nothing of the guest is lost. Completed, Django's
  ``login`` finds another account's id in the session and flushes it: a new session key,
  nothing of the guest's session carried over (its games stay with the guest). Logging the
  guest out first, as the client once did, lost the guest on any failed log-in.

Every other endpoint, and any session that is not a guest's (a player gets allauth's 409 as
before), sees the signed-in user it is. The app client (``/_allauth/app/...``) reads its user
from its session token, never from this request, and has no guests.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse

from accounts.guests import is_guest

GUEST_ATTRIBUTE = "_scorpion_guest"
SIGNUP_PATH = re.compile(r"^/_allauth/browser/v1/auth/signup/?$")
LOGIN_PATH = re.compile(r"^/_allauth/browser/v1/auth/login/?$")


class GuestAuthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST":
            signup = SIGNUP_PATH.match(request.path) is not None
            if (signup or LOGIN_PATH.match(request.path)) and is_guest(request.user):
                if signup:
                    setattr(request, GUEST_ATTRIBUTE, request.user)
                request.user = AnonymousUser()
        return self.get_response(request)
