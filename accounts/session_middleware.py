"""Django's session middleware, except that a request never deletes a cookie it did not empty.

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

from django.conf import settings
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers


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
