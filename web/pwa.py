"""The browser client as an installable app that works offline (docs/web.md, "Offline").

Three resources, served at the site's root because a service worker controls only the paths
below its own URL:

- ``/sw.js``, the service worker (``web/templates/web/pwa/sw.js``): it keeps the client's
  static files and the pages already opened, so that a game goes on without a network;
- ``/manifest.webmanifest``, the web app manifest (name, colours, icons): the app can be
  installed;
- ``/offline/``, the page shown for a page never opened before while there is no network.

The worker's list of files and its cache's version are written into it here, from the static
files themselves: every deploy that changes one file changes the worker's bytes, so browsers
install the new worker, which fills a new cache and deletes the old one.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language, gettext

# The client's own files (CSS, modules, icons): what the shell needs to draw a page offline.
_SHELL_DIRS = ("css", "js", "img")


def _static_root() -> Path:
    return Path(apps.get_app_config("web").path) / "static" / "web"


@cache
def _shell_files() -> tuple[str, ...]:
    root = _static_root()
    return tuple(
        sorted(
            f"web/{path.relative_to(root).as_posix()}"
            for folder in _SHELL_DIRS
            for path in (root / folder).rglob("*")
            if path.is_file()
        )
    )


def shell_assets() -> list[str]:
    """The URLs of the shell's static files, as pages name them (hashed in production)."""
    return [static(name) for name in _shell_files()]


def catalogue_urls() -> list[str]:
    """The words of each of the site's languages (Django's JavaScript catalogue), which every
    page loads before its modules: kept at install, so that a table kept offline finds its
    words even if the page that kept it loaded them before the worker took control."""
    return [reverse("javascript-catalog", args=[code]) for code, _name in settings.LANGUAGES]


def _catalogue_files() -> list[Path]:
    return sorted(
        path
        for locale in settings.LOCALE_PATHS
        for path in Path(locale).rglob("djangojs.mo")
        if path.is_file()
    )


def shell_version() -> str:
    """Changes whenever a shell file does (its content, or its hashed URL), or a language's
    words do."""
    digest = hashlib.sha256()
    root = _static_root().parent
    for name in _shell_files():
        digest.update(name.encode())
        digest.update((root / name).read_bytes())
    for path in _catalogue_files():
        digest.update(path.read_bytes())
    digest.update(json.dumps(shell_assets()).encode())
    return digest.hexdigest()[:16]


@cache
def _deployed_shell_version() -> str:
    # A deployed process's static files do not change under it (a deploy is a new process):
    # hashed once, not at every navigation, which asks for the worker again.
    return shell_version()


def service_worker(request: HttpRequest) -> HttpResponse:
    response = render(
        request,
        "web/pwa/sw.js",
        {
            # DEBUG (make run): the files change as they are edited; read them each time.
            "version": shell_version() if settings.DEBUG else _deployed_shell_version(),
            "assets": json.dumps(shell_assets()),
            "catalogues": json.dumps(catalogue_urls()),
        },
        content_type="text/javascript; charset=utf-8",
    )
    # Browsers look for a new worker at each navigation; never a stale one from a cache.
    response["Cache-Control"] = "no-cache"
    return response


def manifest(request: HttpRequest) -> JsonResponse:
    icons = [
        {"src": static("web/img/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": static("web/img/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {
            "src": static("web/img/icon-maskable-512.png"),
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
        {"src": static("web/img/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
    ]
    response = JsonResponse(
        {
            "name": "Scorpion Solitaire",
            "short_name": "Scorpion",
            # What an install prompt shows, in the request's language (docs/web.md).
            "description": gettext("Scorpion Solitaire: play, replay and the daily challenge."),
            "lang": get_language(),
            "dir": "ltr",
            "id": "/",
            "start_url": "/",
            "scope": "/",
            "display": "standalone",
            "background_color": "#0b4d2c",
            "theme_color": "#0b4d2c",
            "icons": icons,
        },
        content_type="application/manifest+json",
    )
    return response


def offline(request: HttpRequest) -> HttpResponse:
    """Kept by the service worker at install; says why a page cannot show without a network."""
    return render(request, "web/pwa/offline.html")
