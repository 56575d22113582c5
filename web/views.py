"""Pages of the browser client.

Each page is an HTML shell: the data comes from the public API (``/api/v1/``), fetched by the
page's JavaScript module with the session cookie and the CSRF token, exactly as any other
client would. The views only set the CSRF cookie, send signed-out visitors to the log-in form,
and pass the ids found in the URL.
"""

from __future__ import annotations

from urllib.parse import urlencode
from uuid import UUID

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie


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
    return _page(request, "web/daily.html", page="daily")


@ensure_csrf_cookie
def stats(request: HttpRequest) -> HttpResponse:
    return _page(request, "web/stats.html", page="stats")


@ensure_csrf_cookie
def history(request: HttpRequest) -> HttpResponse:
    return _page(request, "web/history.html", page="history")


@ensure_csrf_cookie
def replay(request: HttpRequest, game_id: UUID) -> HttpResponse:
    return _page(request, "web/replay.html", game_id=str(game_id), page="history")
