"""Site pages that belong to no app: the home page and the problem catalogue."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

from games.api.problems import PROBLEMS, problem_json_response
from games.variants import variant_choices


@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    """The lobby for a signed-in player, the sign-up and log-in forms for anyone else.

    The page's script talks to the API itself; the CSRF cookie set here is what lets it write.
    """
    # The variant pickers list the registry (Scorpion first), never a copy of it.
    return render(request, "home.html", {"page": "home", "variants": variant_choices()})


def problem_type(request: HttpRequest, code: str) -> JsonResponse:
    """What a problem ``type`` URI of the API means."""
    if code not in PROBLEMS:
        raise Http404(code)
    status, title = PROBLEMS[code]
    return JsonResponse({"code": code, "status": status, "title": title})


def no_such_endpoint(request: HttpRequest) -> HttpResponse:
    """A 404 problem for a path that a library would serve but this service does not offer."""
    return problem_json_response("not_found", f"no resource at {request.path}")
