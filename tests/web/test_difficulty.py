"""Deal difficulty in the browser (docs/difficulty.md): the lobby's choice of band for a
winnable deal, the band on the table and on the daily card, the win rate by band on the stats
page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.difficulty_data import banded_pool, today_rated_deal
from tests.web.conftest import DESKTOP, PHONE, shoot
from tests.web.test_play import Table, expect, sign_up, watch_errors

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]


def test_choose_a_band_see_it_on_the_table_the_daily_and_the_stats(
    browser: Any, live_server: Any
) -> None:
    banded_pool()
    today_rated_deal("hard", 64)
    base = live_server.url
    page = browser.new_context(viewport=DESKTOP).new_page()
    errors = watch_errors(page)
    sign_up(page, base)

    page.select_option("#winnable-difficulty", "medium")
    page.click("button[data-mode=winnable]")
    page.wait_for_url("**/play/*/")
    table = Table(page)
    table.wait_version(0)
    expect(page.locator("#mode")).to_contain_text("medium")
    page.locator("#btn-resign").click()
    page.locator("dialog.confirm").get_by_role("button", name="Resign").click()
    expect(page.locator("#board")).to_have_attribute("data-status", "resigned")

    page.goto(base + "/daily/")
    expect(page.locator("#daily-difficulty")).to_contain_text("hard")
    expect(page.locator("#daily-difficulty")).to_contain_text("64 out of 100")
    shoot(page, "desktop-daily-difficulty")

    page.goto(base + "/stats/")
    row = page.locator("#band-table tr[data-band=medium]")
    expect(row).to_contain_text("1")
    expect(row).to_contain_text("0%")
    shoot(page, "desktop-stats-difficulty")
    assert not errors, errors


def test_the_difficulty_choice_sits_beside_its_button_on_a_phone(
    browser: Any, live_server: Any
) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    sign_up(page, live_server.url)
    button = page.locator("button[data-mode=winnable]").bounding_box()
    choice = page.locator("#winnable-difficulty").bounding_box()
    shoot(page, "phone-lobby-difficulty")
    # One line each, side by side: the button's label does not wrap.
    assert abs(button["y"] - choice["y"]) < 8
    assert button["x"] + button["width"] <= choice["x"]
    assert button["height"] < 60
