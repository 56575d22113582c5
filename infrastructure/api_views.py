"""The API's own answers that belong to no app: what a problem ``type`` URI means, and a 404
problem for every path under /api/ that no endpoint serves."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt

from infrastructure.problems import PROBLEMS, problem_json_response
from infrastructure.public_views import ignores_credentials


# A read of public constants: no CSRF check, which would answer a POST with Django's HTML
# 403 page instead of the API's 405 problem.
@csrf_exempt
def problem_type(request: HttpRequest, code: str) -> JsonResponse:
    """What a problem ``type`` URI of the API means."""
    if code not in PROBLEMS:
        # Answered here, not raised: with DEBUG on, Django answers a raised Http404 with its
        # HTML debug page, whatever the path.
        return problem_json_response(
            "not_found", gettext("no problem type %(code)r") % {"code": code}
        )
    if request.method not in ("GET", "HEAD"):
        return problem_json_response(
            "method_not_allowed",
            gettext('method "%(method)s" not allowed') % {"method": request.method},
            headers={"Allow": "GET, HEAD"},
        )
    status, title = PROBLEMS[code]
    return JsonResponse({"code": code, "status": status, "title": str(title)})


# Any method: an unknown path is a 404 whatever the method, and no CSRF check (nothing is
# written) may turn it into Django's HTML 403 page. An app's token too gets the 404.
@ignores_credentials
@csrf_exempt
def no_such_endpoint(request: HttpRequest) -> HttpResponse:
    """A 404 problem for a path the service does not serve: any path under /api/ that no
    endpoint matches (the last pattern of the URLconf, so that DEBUG's HTML 404 page, which
    Django shows instead of handler404, never answers an API client), and the paths that a
    library would serve but this service does not offer.

    A path that lacks only its final slash is redirected to it for GET and HEAD, as Django's
    APPEND_SLASH did before this pattern matched everything; any other method gets the 404,
    naming the path with the slash (a redirect would lose its body)."""
    path = request.path
    if not path.endswith("/") and _served(request.path_info + "/"):
        if request.method in ("GET", "HEAD"):
            return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
        return problem_json_response(
            "not_found",
            gettext("no resource at %(path)s: the API's paths end with a slash (%(path)s/)")
            % {"path": path},
        )
    return problem_json_response("not_found", gettext("no resource at %(path)s") % {"path": path})


def _served(path_info: str) -> bool:
    """Whether an endpoint other than ``no_such_endpoint`` serves ``path_info``."""
    try:
        match = resolve(path_info)
    except Resolver404:
        return False
    return match.func is not no_such_endpoint
