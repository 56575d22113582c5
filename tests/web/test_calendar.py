"""The daily calendar and achievements in a real Chromium: a guest opens the calendar from the
daily page, plays yesterday's daily late, sees "Achievement: First win" in the win moment, and
finds the day won late in the month view; signed up, the achievement is on the statistics page.

Screenshots land in artifacts/screenshots/ (calendar-*).
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from achievements.models import Achievement
from games.models import DailyDeal, Game
from tests.web.conftest import DESKTOP, PASSWORD, shoot, won_deal
from tests.web.test_guest import api, expect

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]


def test_a_past_daily_played_late_fills_the_calendar_and_earns_an_achievement(
    browser: Any, live_server: Any
) -> None:
    base = live_server.url
    deal = won_deal()
    line: list[dict[str, Any]] = deal["line"]
    yesterday = datetime.datetime.now(datetime.UTC).date() - datetime.timedelta(days=1)
    DailyDeal.objects.create(
        date=yesterday, seed=7, candidate=0, deal_code=deal["code"], certificate=line
    )
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(base + "/")
    page.click("#play-now")  # a guest
    page.wait_for_url("**/play/*/")
    page.goto(base + "/daily/")
    page.click("#calendar-link")
    page.wait_for_url("**/daily/calendar/")
    expect(page.locator("#calendar")).to_have_attribute("data-loaded", "true")
    if yesterday.strftime("%Y-%m") != page.locator("#calendar").get_attribute("data-month"):
        page.click("#month-prev")
    day = page.locator(f'td.day[data-date="{yesterday.isoformat()}"]')
    day.locator("button.play-day").click()
    page.wait_for_url("**/play/*/")
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    game = Game.objects.get(pk=game_id)
    assert (game.daily_date, game.ranked) == (yesterday, False)

    for action in line[:-1]:
        answer = api(page, "POST", f"/api/v1/games/{game_id}/commands/", action)
        assert answer["status"] == 200, answer
    page.reload()
    expect(page.locator("#board")).to_have_attribute("data-version", str(len(line) - 1))
    last = line[-1]
    if last["type"] == "deal":
        page.click("#stock")
    else:
        card = page.locator(f'#board button.card[data-card="{last["card"]}"]')
        card.click(position={"x": 20, "y": 7})  # its visible top edge, under the cards on it
    result = page.locator("#banner .win-result")
    expect(result).to_be_visible()
    expect(result.locator(".achievement-earned").first).to_contain_text("Achievement: First win")
    shoot(page, "calendar-win-moment")

    page.goto(base + "/daily/calendar/")
    if yesterday.strftime("%Y-%m") != page.locator("#calendar").get_attribute("data-month"):
        page.click("#month-prev")
    day = page.locator(f'td.day[data-date="{yesterday.isoformat()}"]')
    expect(day).to_have_class("day won-late")
    expect(day).to_contain_text("Won late")
    expect(day.locator("a.day-replay")).to_have_attribute("href", f"/history/{game_id}/")
    shoot(page, "calendar-month")

    # Signed up, the guest keeps what it earned.
    page.goto(base + "/account/")
    page.fill("#signup-email", "calendar@example.com")
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-form button[type=submit]")
    page.wait_for_url("**/account/?welcome=1")
    page.goto(base + "/stats/")
    expect(page.locator("#stats")).to_have_attribute("data-loaded", "true")
    earned = page.locator('#achievement-list li.earned[data-code="first_win"]')
    expect(earned).to_contain_text("First win")
    assert Achievement.objects.filter(user__email="calendar@example.com").exists()
    shoot(page, "calendar-achievements")
    assert errors == []
    context.close()
