"""Playing together in Chromium: two accounts, a challenge made from a finished game's page,
opened from its link by the other, played, and the results compared on the challenge's page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import DESKTOP, shoot, won_deal
from tests.web.test_play import expect, sign_up, start_from_code, watch_errors

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]


def _command(page: Any, game_id: str, body: dict[str, Any]) -> None:
    """A command from the page's own context (its session cookie and CSRF token)."""
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(
        f"{page.url.split('/play/')[0]}/api/v1/games/{game_id}/commands/",
        data=body,
        headers={"X-CSRFToken": token, "Referer": page.url},
    )
    assert response.ok, response.text()


def test_a_challenge_is_made_opened_played_and_compared(browser: Any, live_server: Any) -> None:
    deal = won_deal()
    base = live_server.url
    ann_context = browser.new_context(viewport=DESKTOP)
    ann_context.set_default_timeout(10_000)
    ann = ann_context.new_page()
    ann_errors = watch_errors(ann)
    sign_up(ann, base)

    # Ann plays a deal and resigns it: the finished game's page offers a challenge.
    start_from_code(ann, deal["code"])
    expect(ann.locator("#challenge-friend")).to_have_count(0)  # not while the game is on
    ann.locator("#btn-resign").click()
    ann.locator("dialog.confirm").get_by_role("button", name="Resign").click()
    expect(ann.locator("#board")).to_have_attribute("data-status", "resigned")
    ann.locator("#challenge-friend").click()
    ann.wait_for_url("**/challenges/*/")
    link = ann.locator("#challenge-link").input_value()
    assert link.startswith(base + "/challenges/")
    expect(ann.locator("#challenge-results tbody tr")).to_have_count(1)
    shoot(ann, "challenge-made")

    # Bob opens the link: no result before he has played.
    bob_context = browser.new_context(viewport=DESKTOP)
    bob_context.set_default_timeout(10_000)
    bob = bob_context.new_page()
    bob_errors = watch_errors(bob)
    sign_up(bob, base)
    bob.goto(link)
    expect(bob.locator("#board-hidden")).to_be_visible()
    expect(bob.locator("#challenge-results")).to_have_count(0)
    bob.locator("#play-challenge").click()
    bob.wait_for_url("**/play/*/")
    expect(bob.locator("#board")).to_have_attribute("data-status", "playing")
    game_id = bob.url.rstrip("/").rsplit("/", 1)[-1]
    for step in deal["line"]:
        _command(bob, game_id, step)
    bob.goto(link)
    rows = bob.locator("#challenge-results tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("(you)")
    expect(rows.first).to_contain_text("Won")
    expect(rows.nth(1)).to_contain_text("Resigned")
    shoot(bob, "challenge-compared")

    # Ann sees Bob's result on her challenge's page too.
    ann.reload()
    expect(ann.locator("#challenge-results tbody tr")).to_have_count(2)
    expect(ann.locator("#challenge-results tbody tr").first).to_contain_text("Won")
    assert not ann_errors, ann_errors
    assert not bob_errors, bob_errors
    ann_context.close()
    bob_context.close()
