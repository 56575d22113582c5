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

A guest cannot take an e-mail address or a password any other way: allauth's endpoints that
add an address or set a password (headless ``account/email`` and ``account/password/change``,
whose change asks no current password of an account that has none, and the browser pages
``/accounts/email/``, ``/accounts/password/change/`` and ``/accounts/password/set/``) refuse a
guest's session with a sentence that says to sign up. Otherwise the guest would log in
anywhere with them while staying a guest (no name, purged when idle with its games), and the
sign-up's checks and per-address limit would be skipped.

Every other endpoint, and any session that is not a guest's (a player gets allauth's 409 as
before), sees the signed-in user it is. The app client (``/_allauth/app/...``) reads its user
from its session token, never from this request, and has no guests.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse

from accounts.guests import is_guest

GUEST_ATTRIBUTE = "_scorpion_guest"
SIGNUP_PATH = re.compile(r"^/_allauth/browser/v1/auth/signup/?$")
LOGIN_PATH = re.compile(r"^/_allauth/browser/v1/auth/login/?$")
# Where an account takes an e-mail address or a password: allauth's headless endpoints (both
# clients; any write) and its browser pages (any method: the set-password page is the form).
CREDENTIALS_API_PATH = re.compile(r"^/_allauth/[a-z]+/v1/account/(?:email|password/change)/?$")
CREDENTIALS_PAGE_PATH = re.compile(r"^/accounts/(?:email|password/(?:change|set))/$")
SIGN_UP_FIRST = (
    "A guest account has no e-mail address or password of its own: sign up from this browser "
    "to add them (your games and statistics stay with you)."
)


class GuestAuthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        refusal = self._credentials_refusal(request)
        if refusal is not None:
            return refusal
        if request.method == "POST":
            signup = SIGNUP_PATH.match(request.path) is not None
            if (signup or LOGIN_PATH.match(request.path)) and is_guest(request.user):
                if signup:
                    setattr(request, GUEST_ATTRIBUTE, request.user)
                request.user = AnonymousUser()
        return self.get_response(request)

    @staticmethod
    def _credentials_refusal(request: HttpRequest) -> HttpResponse | None:
        """A guest's session asking to take an e-mail address or a password: refused."""
        api = CREDENTIALS_API_PATH.match(request.path) is not None and request.method != "GET"
        page = CREDENTIALS_PAGE_PATH.match(request.path) is not None
        if not (api or page) or not is_guest(request.user):
            return None
        if page:  # the account page, where a guest signs up
            messages.error(request, SIGN_UP_FIRST)
            return HttpResponseRedirect("/account/")
        # allauth's shape of an error, with a code of our own.
        return JsonResponse(
            {"status": 403, "errors": [{"message": SIGN_UP_FIRST, "code": "guest_must_sign_up"}]},
            status=403,
        )
