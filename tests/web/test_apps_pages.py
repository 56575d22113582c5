"""The pages for third-party apps in a real Chromium: a player signs in from an app's
consent page and comes back to it, allows the app, approves a device, and revokes an app
from "Your apps" (with the page's confirmation dialog). Screenshots at desktop and phone
widths land in artifacts/screenshots/."""

from __future__ import annotations

import itertools
import time
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from allauth.idp.oidc.models import Token
from django.contrib.auth.models import User

from accounts.oauth import services
from tests.accounts.conftest import REDIRECT_URI, pkce_pair
from tests.web.conftest import DESKTOP, PASSWORD, PHONE, shoot

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

_emails = itertools.count()


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def new_page(browser: Any, viewport: dict[str, int]) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    return context, page, problems


def developer() -> User:
    return User.objects.create_user(f"dev{next(_emails)}", "dev@example.com")


def sign_up_from(page: Any) -> str:
    """On the log-in page the consent page sent us to: sign up, and come back."""
    email = f"apps{next(_emails)}-{time.monotonic_ns()}@example.com"
    page.fill("#signup-email", email)
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-form button[type=submit]")
    return email


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_consent_then_revoke_in_a_browser(
    browser: Any, live_server: Any, viewport: dict[str, int]
) -> None:
    app, _ = services.app_register(
        owner=developer(), name="Browser Bot", redirect_uris=[REDIRECT_URI], public=True
    )
    verifier, challenge = pkce_pair()
    query = urlencode(
        {
            "response_type": "code",
            "client_id": app.pk,
            "redirect_uri": REDIRECT_URI,
            "scope": "games:play stats:read",
            "state": "s",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
    )
    context, page, problems = new_page(browser, viewport)
    # The app's own site is not on this machine: answer its callback here.
    page.route(f"{REDIRECT_URI}**", lambda route: route.fulfill(body="back at the app"))

    page.goto(f"{live_server.url}/identity/o/authorize?{query}")
    sign_up_from(page)
    expect(page.locator("h1")).to_contain_text("Browser Bot wants to use your Scorpion account")
    expect(page.locator(".scopes li")).to_have_count(2)
    shoot(page, f"apps-consent-{'phone' if viewport == PHONE else 'desktop'}")
    page.locator('.scopes input[value="stats:read"]').uncheck()
    page.click('button[value="grant"]')
    page.wait_for_url(f"{REDIRECT_URI}**")
    callback = parse_qs(urlsplit(page.url).query)
    assert callback["state"] == ["s"]
    exchanged = httpx.post(
        f"{live_server.url}/identity/o/api/token",
        data={
            "grant_type": "authorization_code",
            "code": callback["code"][0],
            "redirect_uri": REDIRECT_URI,
            "code_verifier": verifier,
            "client_id": app.pk,
        },
    )
    assert exchanged.json()["scope"] == "games:play"  # the player unticked stats:read

    page.goto(f"{live_server.url}/account/apps/")
    expect(page.locator(".app-list")).to_contain_text("Browser Bot")
    shoot(page, f"apps-authorised-{'phone' if viewport == PHONE else 'desktop'}")
    page.click(".app-list button.danger")
    expect(page.locator("dialog.confirm")).to_be_visible()
    page.click('dialog.confirm button[value="yes"]')
    expect(page.locator(".notices")).to_contain_text("Revoked")
    expect(page.locator(".app-list")).to_have_count(0)
    assert not Token.objects.filter(client=app).exists()
    assert problems == []
    context.close()


def test_device_approval_in_a_browser(browser: Any, live_server: Any) -> None:
    app, _ = services.app_register(
        owner=developer(), name="Terminal", redirect_uris=[], public=True
    )
    started = httpx.post(
        f"{live_server.url}/identity/o/api/device/code",
        data={"client_id": app.pk, "scope": "games:play"},
    ).json()
    context, page, problems = new_page(browser, DESKTOP)
    page.goto(started["verification_uri"])
    sign_up_from(page)
    page.fill('input[name="code"]', started["user_code"].lower())
    page.click('button[type="submit"].primary')
    expect(page.locator("h1")).to_contain_text("Terminal wants to use your Scorpion account")
    expect(page.locator(".user-code")).to_have_text(started["user_code"])
    shoot(page, "apps-device-desktop")
    page.click('button[value="confirm"]')
    expect(page.locator("h1")).to_have_text("Terminal is connected")
    assert problems == []
    context.close()
