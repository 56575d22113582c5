"""Pages of the browser client.

Each page is an HTML shell: the data comes from the public API (``/api/v1/``), fetched by the
page's JavaScript module with the session cookie and the CSRF token, exactly as any other
client would. The views only set the CSRF cookie, send signed-out visitors to the log-in form,
and pass the ids found in the URL.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode
from uuid import UUID

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils import timezone, translation
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.i18n import JavaScriptCatalog

from accounts.language import LANGUAGE_CODES
from games.variants import offered_variant_choices


def _page(request: HttpRequest, template: str, **context: object) -> HttpResponse:
    """A page for a signed-in player; anyone else goes to the log-in form and comes back."""
    if not request.user.is_authenticated:
        return HttpResponseRedirect("/?" + urlencode({"next": request.get_full_path()}))
    return render(request, template, context)


@ensure_csrf_cookie
def play(request: HttpRequest, game_id: UUID) -> HttpResponse:
    return _page(request, "web/play.html", game_id=str(game_id), page="play")


@ensure_csrf_cookie
def daily(request: HttpRequest) -> HttpResponse:
    # The leaderboard's date box goes up to today (UTC), from the first paint on.
    return _page(request, "web/daily.html", page="daily", today=timezone.now().date().isoformat())


@ensure_csrf_cookie
def daily_calendar(request: HttpRequest) -> HttpResponse:
    """A month of the player's dailies: this UTC month first (the page moves between months)."""
    today = timezone.now().date()
    return _page(
        request, "web/calendar.html", page="daily", month=today.strftime("%Y-%m"), today=today
    )


@ensure_csrf_cookie
def stats(request: HttpRequest) -> HttpResponse:
    return _page(request, "web/stats.html", page="stats")


@ensure_csrf_cookie
def history(request: HttpRequest) -> HttpResponse:
    return _page(request, "web/history.html", page="history")


@ensure_csrf_cookie
def replay(request: HttpRequest, game_id: UUID) -> HttpResponse:
    return _page(request, "web/replay.html", game_id=str(game_id), page="history")


@ensure_csrf_cookie
def account(request: HttpRequest) -> HttpResponse:
    """The account page: a guest's sign-up (keeping its games), or the player's settings."""
    return _page(request, "web/account.html", page="account")


@ensure_csrf_cookie
def password_reset(request: HttpRequest, key: str = "") -> HttpResponse:
    """Ask for a reset mail, or (with the mail's key) choose the new password. Open to
    visitors: whoever holds the key may set the password, as allauth decides."""
    return render(request, "web/password_reset.html", {"page": "account", "key": key})


@ensure_csrf_cookie
def verify_email(request: HttpRequest, key: str) -> HttpResponse:
    """The link of the confirmation mail: the page confirms the address through the API."""
    return render(request, "web/verify_email.html", {"page": "account", "key": key})


class LanguageCatalog(JavaScriptCatalog):
    """The scripts' translations (``gettext``, ``interpolate``) for the language in the path:
    a script file, since the CSP allows no inline script. The language is in the URL, not
    taken from the request, so the page and its catalogue always agree (base.html names the
    page's language) and each language's catalogue is its own URL for caches."""

    domain = "djangojs"

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        language = kwargs.pop("language")
        if language not in LANGUAGE_CODES:
            raise Http404("no such language")
        with translation.override(language):
            response: HttpResponse = super().get(request, *args, **kwargs)
        return response


def to_verify_email(request: HttpRequest, key: str) -> HttpResponse:
    return HttpResponseRedirect(f"/account/verify-email/{quote(key, safe='')}/")


def to_client_page(request: HttpRequest, to: str) -> HttpResponse:
    return HttpResponseRedirect(to)


@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    """The lobby for a signed-in player, the sign-up and log-in forms for anyone else.

    The page's script talks to the API itself; the CSRF cookie set here is what lets it write.
    """
    # The variant pickers list the registry's offered variants (Scorpion first), never a copy.
    return render(request, "home.html", {"page": "home", "variants": offered_variant_choices()})
