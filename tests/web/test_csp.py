"""A Content-Security-Policy on every page, and no page that breaks it.

The policy allows scripts, styles, fonts and connections from this site only (a nonce for the
one inline import map), no ``unsafe-inline`` script and nothing from a CDN. Every HTML page of
the service (the web client, the admin, the staff pages, the API docs, allauth's pages) must
carry the header, and in Chromium loading each page must report no violation and ask nothing of
another site. The API docs (Swagger UI, served from the project) must render.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from games import services
from games.history import Command
from games.models import Game
from games.services import DealChoice
from tests.web.conftest import PASSWORD

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

# Signed out; each of these is an HTML page.
PUBLIC = [
    "/",
    # /admin/login/ is allauth's /accounts/login/ since the admin log-in is rate-limited.
    "/accounts/login/",
    # allauth's other stock pages lead to the client's own (web/urls.py).
    "/account/password/reset/",
    "/account/password/reset/abc-def/",
    "/account/verify-email/abc/",
    "/api/docs/",
    "/_allauth/openapi.html",
]
# Signed in as a superuser; {game} is a game of theirs with a few events.
PRIVATE = [
    "/",
    "/daily/",
    "/daily/calendar/",
    "/stats/",
    "/history/",
    "/play/{game}/",
    "/history/{game}/",
    "/admin/",
    "/admin/games/game/",
    "/admin/games/game/{game}/change/",
    "/admin/games/gameevent/",
    "/admin/games/dailydeal/",
    "/admin/games/winnabledeal/",
    "/admin/stats/playerstats/",
    "/admin/auth/user/",
    "/admin/auth/user/add/",
    "/staff/dashboard/",
    "/staff/games/{game}/replay/",
    "/account/",
    "/api/docs/",
]


@dataclass
class Site:
    staff: User
    game: Game

    def paths(self, paths: list[str]) -> list[str]:
        return [path.format(game=self.game.pk) for path in paths]


@pytest.fixture
def site() -> Site:
    staff = User.objects.create_superuser("staff", "staff@example.com", PASSWORD)
    game = services.game_create(owner=staff, choice=DealChoice(mode="seeded", seed=42))
    for command in (Command("deal"), Command("undo"), Command("redo")):
        services.game_execute_command(owner=staff, game_id=game.pk, command=command)
    return Site(staff=staff, game=game)


def policy(header: str) -> dict[str, list[str]]:
    directives: dict[str, list[str]] = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


def assert_strict(header: str, path: str) -> None:
    directives = policy(header)
    assert directives.get("default-src") == ["'self'"], (path, header)
    for name in ("script-src", "style-src", "connect-src", "font-src", "img-src"):
        sources = directives.get(name, directives["default-src"])
        assert not any("://" in s or s in ("*", "http:", "https:") for s in sources), (path, name)
    scripts = directives["script-src"]
    assert "'unsafe-inline'" not in scripts, path
    assert "'unsafe-eval'" not in scripts, path
    assert directives.get("object-src") == ["'none'"], path
    assert directives.get("frame-ancestors") == ["'none'"], path


def html_pages(client: Client, paths: list[str]) -> Iterator[tuple[str, Any]]:
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        assert response["Content-Type"].startswith("text/html"), path
        yield path, response


def test_every_html_page_carries_a_strict_policy(site: Site) -> None:
    for path, response in html_pages(Client(), PUBLIC):
        assert_strict(response["Content-Security-Policy"], path)
    staff = Client()
    staff.force_login(site.staff)
    for path, response in html_pages(staff, site.paths(PRIVATE)):
        assert_strict(response["Content-Security-Policy"], path)


def test_the_import_map_has_a_fresh_nonce_and_the_policy_names_it(site: Site) -> None:
    nonces = []
    for _ in range(2):
        response = Client().get("/")
        body = response.content.decode()
        nonce = body.split('<script type="importmap" nonce="', 1)[1].split('"', 1)[0]
        assert f"'nonce-{nonce}'" in policy(response["Content-Security-Policy"])["script-src"]
        nonces.append(nonce)
    assert nonces[0] != nonces[1]


ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted(
    path
    for folder in ("web/templates", "accounts", "games", "stats", "scorpion_site")
    for path in (ROOT / folder).rglob("*.html")
)
INLINE = re.compile(
    r"""<style\b|\sstyle\s*=|\son[a-z]+\s*=|<script(?![^>]*\bsrc=)(?![^>]*\bnonce=)[^>]*>"""
    r"""|javascript:""",
    re.IGNORECASE,
)


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: str(path.relative_to(ROOT)))
def test_templates_hold_no_inline_style_script_or_handler(template: Path) -> None:
    """The policy refuses them; the one inline script (the import map) carries the nonce."""
    found = INLINE.findall(template.read_text())
    assert found == [], f"{template.relative_to(ROOT)}: {found}"


def test_json_answers_carry_the_policy_too(site: Site) -> None:
    response = Client().get("/api/v1/me/")
    assert response.status_code in (401, 403)
    assert_strict(response["Content-Security-Policy"], "/api/v1/me/")


# --- in Chromium ---

WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(
    `${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`
  );
});
"""


class Watcher:
    """Everything a page reports about the policy, and every request it makes elsewhere."""

    def __init__(self, context: Any, origin: str) -> None:
        self.console: list[str] = []
        self.offsite: list[str] = []
        self.origin = origin
        context.add_init_script(WATCH)
        context.route(lambda url: urlsplit(url).netloc not in ("", origin), self._refuse)

    def _refuse(self, route: Any) -> None:
        self.offsite.append(route.request.url)
        route.abort()

    def listen(self, page: Any) -> None:
        page.on(
            "console",
            lambda m: self.console.append(m.text) if "Content Security Policy" in m.text else None,
        )

    def visit(self, page: Any, url: str, ready: str | None = None) -> list[str]:
        self.console.clear()
        self.offsite.clear()
        response = page.goto(url, wait_until="networkidle")
        assert response is not None, url
        assert response.status == 200, url
        if ready:
            page.locator(ready).first.wait_for(state="visible")
        page.wait_for_timeout(300)  # late work of the page (rendering, workers) reports too
        violations: list[str] = page.evaluate("window.__violations")
        return [*violations, *self.console, *(f"offsite {u}" for u in self.offsite)]


# What shows that a page really rendered (the docs render in the browser, from the schema).
READY = {
    "/api/docs/": ".swagger-ui .opblock",
    "/_allauth/openapi.html": ".swagger-ui .opblock",
}


def test_no_page_breaks_the_policy_in_chromium(browser: Any, live_server: Any, site: Site) -> None:
    base = live_server.url
    origin = urlsplit(base).netloc
    found: dict[str, list[str]] = {}

    visitor = browser.new_context()
    visitor.set_default_timeout(15_000)
    watcher = Watcher(visitor, origin)
    page = visitor.new_page()
    watcher.listen(page)
    for path in PUBLIC:
        problems = watcher.visit(page, base + path, READY.get(path))
        if problems:
            found[f"signed out {path}"] = problems
    visitor.close()

    staff = Client()
    staff.force_login(site.staff)
    context = browser.new_context()
    context.set_default_timeout(15_000)
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": staff.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": base,
            }
        ]
    )
    watcher = Watcher(context, origin)
    page = context.new_page()
    watcher.listen(page)
    for path in site.paths(PRIVATE):
        problems = watcher.visit(page, base + path, READY.get(path))
        if problems:
            found[f"staff {path}"] = problems
    context.close()
    assert found == {}


@pytest.mark.parametrize(
    ("path", "title", "operation"),
    [
        ("/api/docs/", "Scorpion API", "/api/v1/games/{game_id}/commands/"),
        ("/_allauth/openapi.html", "allauth", "/_allauth/{client}/v1/auth/login"),
    ],
)
def test_the_api_docs_render_their_operations(
    browser: Any, live_server: Any, path: str, title: str, operation: str
) -> None:
    context = browser.new_context()
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(live_server.url + path)
    page.locator(".swagger-ui .opblock").first.wait_for(state="visible")
    assert page.locator(".swagger-ui .opblock").count() > 10
    assert title in page.locator(".swagger-ui .info .title").inner_text()
    paths = page.locator(".swagger-ui .opblock-summary-path").all_inner_texts()
    assert any(text.replace("\u200b", "") == operation for text in paths), paths[:20]
    context.close()
