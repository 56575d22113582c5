"""The account page's words on a phone: a long address never scrolls the page sideways, a
refused name is said without the field's raw name, a wrong current password is called so."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import PASSWORD, PHONE, shoot
from tests.web.test_guest import expect

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

# 37 characters, one word: nothing to break it at.
LONG_ADDRESS = "a.very.long.name.for.anyone@example.com"


def test_the_account_page_on_a_phone_says_its_refusals_plainly_and_never_scrolls_sideways(
    browser: Any, live_server: Any
) -> None:
    assert len(LONG_ADDRESS) >= 37
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(live_server.url + "/")
    page.fill("#signup-email", LONG_ADDRESS)
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-form button[type=submit]")
    expect(page.locator("#lobby")).to_be_visible()
    page.goto(live_server.url + "/account/")
    expect(page.locator("#account-page")).to_have_attribute("data-loaded", "true")
    expect(page.locator("#emails")).to_contain_text(LONG_ADDRESS)
    wide = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert wide[0] <= wide[1], wide

    # A name the server refuses: its reason, without "display_name:" before it.
    page.fill("#display-name", "a@b.example")
    page.click("#name-form button[type=submit]")
    error = page.locator("#name-form .error")
    expect(error).not_to_be_empty()
    assert "display_name" not in error.inner_text()
    assert error.inner_text()[0].isupper(), error.inner_text()

    # A wrong current password is called wrong (allauth says "Please type your current
    # password.", though one was typed).
    page.fill("#current-password", "not the " + PASSWORD)
    page.fill("#new-password", "another " + PASSWORD)
    page.click("#password-form button[type=submit]")
    expect(page.locator("#password-form .error")).to_have_text("That is not your current password.")
    shoot(page, "account-phone-long-address")
    context.close()
