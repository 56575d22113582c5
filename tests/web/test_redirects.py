"""After log-in the player is sent to ``next=`` only when it names a page of this site.

Browsers strip tab, CR and LF from URLs and read a backslash as a slash, so ``/%09/evil.example``
is ``//evil.example`` to them: another site. Each trick is tried in a real Chromium, by the
function the page uses and end to end (log in, see where the browser lands), and against the
server-side redirects that take a ``next`` (the staff top-up button, allauth's own log-in page).
"""

from __future__ import annotations

import itertools
import time
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.web.conftest import PASSWORD

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

# The value of next= as it stands in the address bar (percent-encoded), each one a way out.
OFFSITE = [
    "/%09/evil.example",  # tab: stripped by the URL parser, leaving //evil.example
    "/%0D/evil.example",  # carriage return, likewise
    "/%0A/evil.example",  # line feed, likewise
    "/%09%0A%0D/evil.example",
    "%09//evil.example",
    "/%5Cevil.example",  # /\evil.example: a backslash reads as a slash
    "%5C%5Cevil.example",
    "/%5C/evil.example",
    "//evil.example",
    "///evil.example",
    "%2F%2Fevil.example",
    "/%2F/evil.example",
    "https://evil.example/",
    "https:evil.example",
    "javascript:alert(document.domain)",
    "%20//evil.example",
    "evil.example",
    "/.//evil.example",  # resolves to the path //evil.example, which names a host again
    "/a/..//evil.example",
]
# Those tried end to end as well (a log-in each): the whitespace tricks and one of each kind.
END_TO_END = [
    "/%09/evil.example",
    "/%0D/evil.example",
    "/%0A/evil.example",
    "/%5Cevil.example",
    "%2F%2Fevil.example",
    "javascript:alert(document.domain)",
    "/.//evil.example",
]
# Same-site paths survive, query and fragment included.
ONSITE = [
    ("/daily/", "/daily/"),
    ("/stats/%3Fx%3D1", "/stats/?x=1"),
    ("/history/%23top", "/history/#top"),
]

_emails = itertools.count()


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def safe_next(page: Any, raw: str) -> str:
    """What the page's own check makes of next=<raw> (decoded as the page decodes it)."""
    value: str = page.evaluate(
        """async (raw) => {
            const { safeNext } = await import("scorpion/api.js");
            return safeNext(new URLSearchParams("next=" + raw).get("next"));
        }""",
        raw,
    )
    return value


def test_the_next_check_keeps_only_paths_of_this_site(browser: Any, live_server: Any) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(live_server.url + "/")
    for raw in OFFSITE:
        assert safe_next(page, raw) == "/", raw
    for raw, path in ONSITE:
        assert safe_next(page, raw) == path, raw
    context.close()


@pytest.mark.parametrize("raw", END_TO_END)
def test_log_in_never_leaves_the_site(browser: Any, live_server: Any, raw: str) -> None:
    address = f"next{next(_emails)}-{time.monotonic_ns()}@example.com"
    User.objects.create_user(username=address, email=address, password=PASSWORD)
    base = live_server.url
    origin = urlsplit(base).netloc
    context = browser.new_context()
    context.set_default_timeout(10_000)
    left: list[str] = []

    def elsewhere(route: Any) -> None:
        # The machine has no network: answer for the other site, and remember it was asked.
        left.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<h1>evil</h1>")

    context.route(lambda url: urlsplit(url).netloc not in ("", origin), elsewhere)
    page = context.new_page()
    page.goto(f"{base}/?next={raw}")
    page.fill("#login-email", address)
    page.fill("#login-password", PASSWORD)
    page.click("#login-form button[type=submit]")
    lobby = page.locator("#lobby")
    deadline = time.monotonic() + 10
    while not left and not lobby.is_visible() and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert left == [], f"next={raw} sent the player to {left}"
    expect(lobby).to_be_visible()
    assert urlsplit(page.url).netloc == origin, page.url
    assert urlsplit(page.url).path == "/"
    context.close()


def test_log_in_follows_a_path_of_this_site(browser: Any, live_server: Any) -> None:
    address = f"next{next(_emails)}-{time.monotonic_ns()}@example.com"
    User.objects.create_user(username=address, email=address, password=PASSWORD)
    context = browser.new_context()
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/?next=%2Fdaily%2F")
    page.fill("#login-email", address)
    page.fill("#login-password", PASSWORD)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(f"{live_server.url}/daily/")
    context.close()


# --- redirects made by the server ---

# The same tricks, decoded (a form field or query parameter arrives decoded).
DECODED = [
    "/\t/evil.example",
    "/\r/evil.example",
    "/\n/evil.example",
    "\t//evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "//evil.example",
    "///evil.example",
    "https://evil.example/",
    "https:evil.example",
    "javascript:alert(1)",
    " //evil.example",
]


def _offsite(location: str) -> bool:
    parts = urlsplit(location.replace("\\", "/").replace("\t", "").replace("\n", ""))
    return bool(parts.netloc) or parts.scheme not in ("", "http", "https")


@pytest.mark.parametrize("target", DECODED)
def test_staff_top_up_redirects_only_within_the_site(
    admin_client: Client, settings: Any, target: str
) -> None:
    settings.REDIS_URL = None
    response = admin_client.post(reverse("staff:pool-top-up"), {"next": target})
    assert response.status_code == 302
    assert response["Location"] == reverse("staff:dashboard")


@pytest.mark.parametrize("target", DECODED)
def test_allauth_log_in_page_redirects_only_within_the_site(target: str) -> None:
    User.objects.create_user(username="p@example.com", email="p@example.com", password=PASSWORD)
    response = Client().post(
        "/accounts/login/",
        {"login": "p@example.com", "password": PASSWORD, "next": target},
    )
    assert response.status_code == 302
    assert not _offsite(response["Location"]), response["Location"]
