"""Django's session and authentication middleware, with two changes.

``SnapshotAuthenticationMiddleware``: the browser's signed-in user comes from the snapshot
cached beside its session (``accounts/sessions.py``, which says why it cannot outlive a log-out,
a deactivation, a deletion or a new password), as for the apps' session tokens, instead of a
``SELECT auth_user`` on every request (and the profile's, for the language).

``StaleCookieSafeSessionMiddleware``: a request never deletes a cookie it did not empty.

Django's ``SessionMiddleware`` deletes the session cookie from any response whose request came
with a cookie but found an empty session. A request that was already in flight when its
session's key changed (a sign-up or a log-in cycles the key and deletes the old session; a
live stream reconnecting, a page's background read) finds the old key gone, so its answer,
arriving after the log-in's, deleted the cookie the log-in had just set: the player, signed up
a moment before, was signed out on the next page (seen in the browser tests under load: the
account page after a guest's sign-up redirected to the log-in). Here only a request that
emptied its own session (a log-out flushes it: modified) deletes the cookie; a stale cookie is
left to the next log-in to replace, and reads as no session meanwhile.
"""

from __future__ import annotations

from functools import partial

from django.conf import settings
from django.contrib import auth
from django.contrib.auth.middleware import AuthenticationMiddleware, auser
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers
from django.utils.functional import SimpleLazyObject

from accounts.sessions import SessionStore


class SnapshotAuthenticationMiddleware(AuthenticationMiddleware):
    """Django's, reading ``request.user`` through ``SessionStore.authenticated_user`` (the
    session's cache entry, one read it makes anyway; Django's own checks on a miss).
    ``request.auser`` (async code) stays Django's."""

    def process_request(self, request: HttpRequest) -> None:
        super().process_request(request)  # its checks, and request.auser
        request.user = SimpleLazyObject(lambda: _session_user(request))  # type: ignore[assignment]
        request.auser = partial(auser, request)


def _session_user(request: HttpRequest) -> AbstractBaseUser | AnonymousUser:
    cached = getattr(request, "_cached_user", None)
    if cached is not None:
        return cached
    session = request.session
    if isinstance(session, SessionStore):
        found = session.authenticated_user()
        user: AbstractBaseUser | AnonymousUser = found if found is not None else AnonymousUser()
    else:  # another session engine (a test's): Django's way
        user = auth.get_user(request)
    request._cached_user = user  # type: ignore[attr-defined]
    return user


class StaleCookieSafeSessionMiddleware(SessionMiddleware):
    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        session = getattr(request, "session", None)
        if (
            session is not None
            and settings.SESSION_COOKIE_NAME in request.COOKIES
            and not session.modified
            and session.is_empty()
        ):
            if session.accessed:
                patch_vary_headers(response, ("Cookie",))
            return response
        return super().process_response(request, response)
