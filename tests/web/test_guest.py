"""Guest play and the account pages in a real Chromium: a visitor plays within one tap of
landing, wins as a guest, signs up, and finds the game in the history and the statistics; then
manages the account (name, password, export, deletion) without the API.

Screenshots land in artifacts/screenshots/ (guest-*, account-*).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth.models import User

from accounts.models import Profile
from games.models import Game
from tests.web import conftest
from tests.web.conftest import DESKTOP, PASSWORD, PHONE, shoot, won_deal

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

FETCH = """async ([method, path, body]) => {
  const token = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="));
  const response = await fetch(path, {
    method,
    headers: {"Content-Type": "application/json", "X-CSRFToken": token ? token.slice(10) : ""},
    body: body === null ? undefined : JSON.stringify(body),
  });
  return {status: response.status, body: await response.json().catch(() => null)};
}"""


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def api(page: Any, method: str, path: str, body: Any = None) -> dict[str, Any]:
    """A call of the public API from the page, with its session and CSRF token, as the web
    client makes them (the moves of the winning line that the test does not tap)."""
    answer: dict[str, Any] = page.evaluate(FETCH, [method, path, body])
    return answer


def confirm(page: Any) -> None:
    dialog = page.locator("dialog.confirm")
    expect(dialog).to_be_visible()
    dialog.locator("button.danger").click()


def test_a_guest_wins_signs_up_and_finds_the_game_in_history_and_stats(
    browser: Any, live_server: Any
) -> None:
    base = live_server.url
    deal = won_deal()
    line: list[dict[str, Any]] = deal["line"]
    context = browser.new_context(viewport=PHONE, has_touch=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    # One tap from landing to a dealt table, no sign-up.
    page.goto(base + "/")
    shoot(page, "guest-landing-phone")
    page.click("#play-now")
    page.wait_for_url("**/play/*/")
    expect(page.locator("#board")).to_have_attribute("data-version", "0")
    expect(page.locator(".account.guest .who")).to_have_text("Guest")
    expect(page.locator("#guest-signup")).to_be_visible()
    assert Profile.objects.filter(guest=True).count() == 1
    shoot(page, "guest-table-phone")

    # The guest sees the lobby, and deals the known winning deal by its code.
    page.goto(base + "/")
    page.select_option("#deal-kind", "code")
    page.fill("#deal-value", deal["code"])
    page.click("#seeded-form button[type=submit]")
    page.wait_for_url("**/play/*/")
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    for version, action in enumerate(line[:-1], start=1):
        answer = api(page, "POST", f"/api/v1/games/{game_id}/commands/", action)
        assert answer["status"] == 200, answer
        assert answer["body"]["version"] == version
    page.reload()
    expect(page.locator("#board")).to_have_attribute("data-version", str(len(line) - 1))
    last = line[-1]
    if last["type"] == "deal":
        page.click("#stock")
    else:
        card = page.locator(f'#board button.card[data-card="{last["card"]}"]')
        card.scroll_into_view_if_needed()
        box = card.bounding_box()
        assert box is not None
        card.tap(position={"x": box["width"] / 2, "y": 7})

    # The win moment: the banner, then what the win meant.
    banner = page.locator("#banner")
    expect(banner).to_contain_text("You won!")
    result = banner.locator(".win-result")
    expect(result).to_be_visible()
    expect(result).to_contain_text("new best time")
    expect(result).to_contain_text("Your first win of this kind")
    expect(result.locator(".next-daily")).to_have_text(re.compile(r"^\d\d:\d\d$"))
    # The banner is no live region: its figures are said once, through the page's announcer.
    expect(page.locator("#announcer")).to_contain_text("Your first win of this kind!")
    assert page.evaluate(conftest.LIVE_REGIONS_SAYING, "Your first win") == ["announcer"]
    shoot(page, "guest-won-phone")

    # Sign up from the guest's session: the guest becomes the account.
    page.click("#guest-signup")
    page.wait_for_url("**/account/")
    shoot(page, "guest-account-phone")
    page.fill("#signup-email", "guest-kept@example.com")
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-form button[type=submit]")
    page.wait_for_url("**/account/?welcome=1")
    expect(page.locator("#name-form")).to_be_visible()
    expect(page.locator(".account .who")).to_have_text("guest-kept@example.com")
    owner = Game.objects.get(pk=game_id).owner
    assert owner.email == "guest-kept@example.com"
    assert not Profile.objects.get(user=owner).guest

    page.goto(base + "/history/?status=won")
    expect(page.locator(f'#games li[data-game-id="{game_id}"]')).to_be_visible()
    expect(page.locator(f'#games li[data-game-id="{game_id}"] .badge')).to_have_text("Won")
    page.goto(base + "/stats/")
    expect(page.locator("#stats")).to_have_attribute("data-loaded", "true")
    # The random deal of "Play now" is still in play: not counted until it ends or is left.
    expect(page.locator('[data-figure="played"] dd')).to_have_text("1")
    expect(page.locator('[data-figure="won"] dd')).to_have_text("1")
    expect(page.locator('[data-figure="win-rate"] dd')).to_have_text("100%")
    expect(page.locator('[data-figure="in-play"] dd')).to_have_text("1")
    assert not errors, errors
    context.close()


def guest_at_table(browser: Any, base: str) -> tuple[Any, Any, list[str]]:
    """A browser (context) whose first tab pressed "Play now": the guest's table, marked so
    that a reload shows (``window.keptPage``), and the list its page errors go to."""
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(10_000)
    table = context.new_page()
    errors: list[str] = []
    table.on("pageerror", lambda error: errors.append(str(error)))
    table.goto(base + "/")
    table.click("#play-now")
    table.wait_for_url("**/play/*/")
    expect(table.locator(".account.guest .who")).to_have_text("Guest")
    # Set on this page only: it is still there if the header was redrawn without a reload.
    table.evaluate("window.keptPage = true")
    return context, table, errors


def test_a_guest_tab_follows_the_sign_up_and_log_out_made_in_another_tab(
    browser: Any, live_server: Any
) -> None:
    base = live_server.url
    context, table, errors = guest_at_table(browser, base)
    play_path = table.url.removeprefix(base)

    # The guest signs up in a second tab of the same browser; the table is never reloaded.
    account = context.new_page()
    account.goto(base + "/account/")
    account.fill("#signup-email", "two-tabs@example.com")
    account.fill("#signup-password", PASSWORD)
    account.click("#signup-form button[type=submit]")
    account.wait_for_url("**/account/?welcome=1")
    expect(table.locator(".account .who")).to_have_text("two-tabs@example.com")
    expect(table.locator(".account")).not_to_have_class(re.compile(r"\bguest\b"))
    expect(table.locator("#guest-signup")).to_have_count(0)
    expect(table.locator("#announcer")).to_have_text("Signed in as two-tabs@example.com.")
    assert table.evaluate("window.keptPage === true")
    expect(table.locator("#board")).to_have_attribute("data-version", "0")

    # Logged out there: this tab's game is no longer the session's, and it goes to the log-in.
    account.click("#logout")
    account.wait_for_url(base + "/")
    table.wait_for_url(re.compile(r"/\?next="))
    assert play_path in unquote(table.url)
    expect(table.locator("#login-form")).to_be_visible()
    assert not errors, errors
    context.close()


def test_a_guest_logs_in_elsewhere_losing_nothing_to_a_wrong_password(
    browser: Any, live_server: Any, web_settings: Any
) -> None:
    """The account page's log-in: a step left pending or a wrong password leaves the guest
    signed in, its game and its other tab as they were (a guest has no password: signed out,
    it would be lost); the right one takes the browser to the account, the guest's game
    staying with the guest."""
    base = live_server.url
    for name, verified in [("elsewhere", True), ("unconfirmed", False)]:
        email = f"{name}@example.com"
        user = User.objects.create_user(username=name, email=email, password=PASSWORD)
        EmailAddress.objects.create(user=user, email=email, primary=True, verified=verified)
    context, table, errors = guest_at_table(browser, base)
    play_url = table.url
    game_id = play_url.rstrip("/").rsplit("/", 1)[1]
    guest = Game.objects.get(pk=game_id).owner

    account = context.new_page()
    account.on("pageerror", lambda error: errors.append(str(error)))
    account.goto(base + "/account/")
    form = account.locator("#login-form")
    # An account whose address waits for its confirmation: the log-in waits too.
    web_settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory"
    form.locator("#login-email").fill("unconfirmed@example.com")
    form.locator("#login-password").fill(PASSWORD)
    form.locator("button[type=submit]").click()
    expect(form.locator(".status")).to_contain_text("you play on as the guest")
    assert api(account, "GET", "/api/v1/me/")["body"]["id"] == guest.pk

    form.locator("#login-email").fill("elsewhere@example.com")
    form.locator("#login-password").fill("not the password")
    form.locator("button[type=submit]").click()
    expect(form.locator(".error")).to_contain_text("not correct")
    shoot(account, "guest-login-wrong-password")
    # Still the guest, here, in the other tab, and in a fresh load of the page.
    expect(account.locator(".account.guest .who")).to_have_text("Guest")
    assert api(account, "GET", "/api/v1/me/")["body"]["id"] == guest.pk
    listed = api(account, "GET", "/api/v1/games/")["body"]["results"]
    assert [game["id"] for game in listed] == [game_id]
    assert table.url == play_url
    assert table.evaluate("window.keptPage === true")
    account.reload()
    expect(account.locator("#signup-form")).to_be_visible()

    form.locator("#login-email").fill("elsewhere@example.com")
    form.locator("#login-password").fill(PASSWORD)
    form.locator("button[type=submit]").click()
    account.wait_for_url(base + "/")
    expect(account.locator(".account .who")).to_have_text("elsewhere@example.com")
    # The other tab, drawn for the guest, is loaded again for the account (docs/web.md).
    expect(table.locator(".account .who")).to_have_text("elsewhere@example.com")
    assert table.evaluate("window.keptPage === undefined")
    assert Game.objects.get(pk=game_id).owner_id == guest.pk
    assert Profile.objects.get(user=guest).guest
    assert not errors, errors
    context.close()


def account_with_password(name: str) -> User:
    """An existing account with a confirmed address, to log in to from a tab."""
    email = f"{name}@example.com"
    user = User.objects.create_user(username=name, email=email, password=PASSWORD)
    EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
    return user


def log_in(page: Any, base: str, path: str, email: str) -> None:
    """Logs in with the form of ``path`` (the account page's for a guest, the home page's for a
    visitor), as a person would in that tab."""
    page.goto(base + path)
    form = page.locator("#login-form")
    form.locator("#login-email").fill(email)
    form.locator("#login-password").fill(PASSWORD)
    form.locator("button[type=submit]").click()
    page.wait_for_url(base + "/")
    expect(page.locator(".account .who")).to_have_text(email)


def test_a_guest_table_goes_to_the_lobby_when_the_guest_logs_in_elsewhere(
    browser: Any, live_server: Any
) -> None:
    """The guest's table must not be loaded again for the account logged in to in another
    tab: that account does not own the game (a reload showed an error). The tab goes to the
    account's lobby and says why; the game stays the guest's, unseen by the account."""
    base = live_server.url
    account_with_password("taken")
    context, table, errors = guest_at_table(browser, base)
    game_id = table.url.rstrip("/").rsplit("/", 1)[1]
    guest = Game.objects.get(pk=game_id).owner

    log_in(context.new_page(), base, "/account/", "taken@example.com")
    table.wait_for_url(base + "/")
    expect(table.locator("#lobby")).to_be_visible()
    expect(table.locator(".account .who")).to_have_text("taken@example.com")
    said = "Logged in as taken@example.com in another tab: this tab now shows that account."
    expect(table.locator("#toast")).to_contain_text(said)
    expect(table.locator("#announcer")).to_contain_text(said)
    expect(table.locator("#recent")).to_contain_text("Your games will be listed here.")
    expect(table.locator(f'a[href="/play/{game_id}/"]')).to_have_count(0)
    shoot(table, "guest-table-after-log-in-elsewhere")
    # Not lost (still the guest's, the guest kept), not leaked (the account cannot read it).
    assert Game.objects.get(pk=game_id).owner_id == guest.pk
    assert Profile.objects.get(user=guest).guest
    assert api(table, "GET", f"/api/v1/games/{game_id}/")["status"] == 404
    # Its address, opened by this account anyway (from history, a link): a way on, no more.
    for path in [f"/play/{game_id}/", f"/history/{game_id}/"]:
        table.goto(base + path)
        expect(table.locator("#board")).to_contain_text("This game is not among your games")
        expect(table.locator('#board a[href="/"]')).to_have_text("To the lobby")
    table.goto(base + "/")
    # The notice is said once: a reload of the lobby does not say it again.
    table.reload()
    expect(table.locator("#lobby")).to_be_visible()
    expect(table.locator("#toast")).to_be_hidden()
    assert not errors, errors
    context.close()


def test_a_signed_out_tab_follows_a_log_in_back_to_its_page_only_for_its_account(
    browser: Any, live_server: Any
) -> None:
    """A tab on the log-in form follows a log-in made in another tab. Sent there from a page
    (a log-out elsewhere), it goes back to that page when the account logging in is the one it
    showed the page to, and to the lobby for another account, whose that page is not; its own
    form does the same."""
    base = live_server.url
    account_with_password("first")
    account_with_password("second")
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(10_000)
    errors: list[str] = []
    context.on("weberror", lambda error: errors.append(str(error.error)))
    other = context.new_page()

    # Signed out from the start: the home page's forms give way to the lobby.
    tab = context.new_page()
    tab.goto(base + "/")
    expect(tab.locator("#login-form")).to_be_visible()
    log_in(other, base, "/", "first@example.com")
    expect(tab.locator("#lobby")).to_be_visible()
    expect(tab.locator(".account .who")).to_have_text("first@example.com")
    expect(tab.locator("#announcer")).to_contain_text(
        "Logged in as first@example.com in another tab"
    )

    # The first account's table, sent to the log-in form by a log-out in the other tab, goes
    # back to its game when the same account logs in again there...
    tab.click("button[data-mode=random]")
    tab.wait_for_url("**/play/*/")
    first_game = tab.url
    expect(tab.locator("#board")).to_have_attribute("data-version", "0")
    other.click("#logout")
    other.wait_for_url(base + "/")
    tab.wait_for_url(re.compile(r"/\?next="))
    expect(tab.locator("#login-form")).to_be_visible()
    log_in(other, base, "/", "first@example.com")
    tab.wait_for_url(first_game)
    expect(tab.locator("#board")).to_have_attribute("data-version", "0")

    # ... and to the lobby when another account logs in by its own form: not its game.
    other.click("#logout")
    tab.wait_for_url(re.compile(r"/\?next="))
    tab.fill("#login-email", "second@example.com")
    tab.fill("#login-password", PASSWORD)
    tab.click("#login-form button[type=submit]")
    tab.wait_for_url(base + "/")
    expect(tab.locator("#lobby")).to_be_visible()
    expect(tab.locator(".account .who")).to_have_text("second@example.com")
    # The other tab, signed out, followed that log-in.
    expect(other.locator(".account .who")).to_have_text("second@example.com")

    # ... or by the other tab's form.
    tab.click("button[data-mode=random]")
    tab.wait_for_url("**/play/*/")
    expect(tab.locator("#board")).to_have_attribute("data-version", "0")
    other.click("#logout")
    tab.wait_for_url(re.compile(r"/\?next="))
    log_in(other, base, "/", "first@example.com")
    tab.wait_for_url(base + "/")
    expect(tab.locator("#lobby")).to_be_visible()
    expect(tab.locator(".account .who")).to_have_text("first@example.com")
    expect(tab.locator("#announcer")).to_contain_text(
        "Logged in as first@example.com in another tab: this tab now shows that account."
    )
    assert not errors, errors
    context.close()


def test_the_account_pages_name_password_export_and_deletion(
    browser: Any, live_server: Any
) -> None:
    base = live_server.url
    context = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(base + "/")
    page.fill("#signup-email", "manage@example.com")
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-form button[type=submit]")
    expect(page.locator("#lobby")).to_be_visible()
    page.click("button[data-mode=random]")
    page.wait_for_url("**/play/*/")

    page.click(".account a.who")
    page.wait_for_url("**/account/")
    expect(page.locator("#account-page")).to_have_attribute("data-loaded", "true")
    expect(page.locator("#emails")).to_contain_text("manage@example.com")

    page.fill("#display-name", "Ann Lee")
    page.click("#name-form button[type=submit]")
    expect(page.locator("#name-form .status")).to_contain_text("Ann Lee")
    page.fill("#display-name", "a@b.example")
    page.click("#name-form button[type=submit]")
    expect(page.locator("#name-form .error")).not_to_be_empty()

    page.fill("#current-password", PASSWORD)
    page.fill("#new-password", "another " + PASSWORD)
    page.click("#password-form button[type=submit]")
    expect(page.locator("#password-form .status")).to_have_text("Your password is changed.")

    page.fill("#new-email", "moved@example.com")
    page.click("#email-form button[type=submit]")
    expect(page.locator("#emails")).to_contain_text("moved@example.com")
    shoot(page, "account-desktop")

    with page.expect_download() as download:
        page.click("#export")
    assert download.value.suggested_filename.startswith("scorpion-export-")

    page.click("#delete-data")
    confirm(page)
    expect(page.locator(".danger-zone .status")).to_contain_text(
        "Deleted 1 game and its statistics."
    )
    assert not Game.objects.exists()

    page.click("#delete-account")
    page.locator("dialog.confirm button[value=no]").click()  # cancelled: nothing happens
    expect(page.locator("#account-page")).to_be_visible()
    page.click("#delete-account")
    confirm(page)
    page.wait_for_url(base + "/")
    expect(page.locator("#play-now")).to_be_visible()
    # The page it lands on says so, once.
    expect(page.locator("#toast")).to_contain_text("Your account is deleted")
    page.reload()
    expect(page.locator("#play-now")).to_be_visible()
    expect(page.locator("#toast")).not_to_contain_text("Your account is deleted")

    # A forgotten password: the reset page, signed out.
    page.goto(base + "/account/password/reset/")
    page.fill("#reset-email", "nobody@example.com")
    page.click("#request-form button[type=submit]")
    expect(page.locator("#request-form .status")).to_contain_text("on its way")
    shoot(page, "account-reset-desktop")
    assert not errors, errors
    context.close()


def test_play_now_past_the_guest_limit_says_when_to_come_back_in_words(
    browser: Any, live_server: Any
) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    drf = {
        "type": "/api/problems/throttled/",
        "title": "Too many requests",
        "status": 429,
        "detail": "Request was throttled. Expected available in 1596 seconds.",
        "code": "throttled",
    }
    page.route(
        "**/api/v1/guest/",
        lambda route: route.fulfill(
            status=429,
            headers={"Retry-After": "1596", "Content-Type": "application/problem+json"},
            json=drf,
        ),
    )
    page.goto(live_server.url + "/")
    page.click("text=Play now")

    said = page.get_by_text("Too many requests for now: try again in 27 minutes.")
    expect(said).to_be_visible()
    assert "Expected available" not in page.content()
    page.context.close()
