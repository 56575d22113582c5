"""The language a signed-in account reads the site in (docs/web.md, "Languages").

LocaleMiddleware picks the request's language from ``Accept-Language``; an account that chose a
language on its account page (``Profile.language``, ``PATCH /api/v1/me/``) reads that one
instead, on every page and in every answer of the API to its browser session. A request with an
access token (an app, a script) is authenticated by the API view, after every middleware: it
follows its ``Accept-Language``, which the app sets.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from accounts.sessions import chosen_language

# "" follows the browser (Accept-Language); else one of settings.LANGUAGES.
FOLLOW_BROWSER = ""


# The codes of settings.LANGUAGES, read once (the API's choices are built at import).
LANGUAGE_CODES: tuple[str, ...] = tuple(code for code, _name in settings.LANGUAGES)


class AccountLanguageMiddleware:
    """After AuthenticationMiddleware: the session's account's own language, when it chose one."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        chosen = _chosen_language(request)
        if chosen:
            translation.activate(chosen)
            request.LANGUAGE_CODE = chosen
        return self.get_response(request)


def _chosen_language(request: HttpRequest) -> str:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return FOLLOW_BROWSER
    # Read with the user from the session's cached snapshot (accounts/sessions.py): no query.
    language = chosen_language(user)
    if language is None:
        try:
            language = user.profile.language
        except ObjectDoesNotExist:  # a staff account made without a profile follows the browser
            return FOLLOW_BROWSER
    return language if language in LANGUAGE_CODES else FOLLOW_BROWSER
