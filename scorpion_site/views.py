"""Site pages that belong to no app: the home page and the problem catalogue."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from games.api.problems import PROBLEMS


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


def problem_type(request: HttpRequest, code: str) -> JsonResponse:
    """What a problem ``type`` URI of the API means."""
    if code not in PROBLEMS:
        raise Http404(code)
    status, title = PROBLEMS[code]
    return JsonResponse({"code": code, "status": status, "title": title})
