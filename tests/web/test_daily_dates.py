"""The daily page's leaderboard date box in Chromium: a day after today, typed in past the
box's max, is answered with the server's reason; one the box cannot read, with a prompt."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.utils import timezone

from tests.api.conftest import Player
from tests.web.test_layout import log_in, player  # noqa: F401  (a fixture)
from tests.web.test_play import expect

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]


def test_a_future_day_typed_in_gets_the_servers_reason_not_an_old_board(
    browser: Any,
    live_server: Any,
    player: Player,  # noqa: F811
) -> None:
    today = timezone.now().date()
    later = today + datetime.timedelta(days=3)
    page = log_in(browser, live_server.url, player, (1366, 768))
    page.goto(live_server.url + "/daily/")
    box = page.locator("#day")
    expect(page.locator("#leaderboard")).to_contain_text("No winner yet")
    assert box.get_attribute("max") == today.isoformat()

    # A date past max, as typed into the box (the box takes it and marks it invalid).
    box.fill(later.isoformat())
    expect(page.locator("#board-title")).to_have_text(f"Leaderboard of {later.isoformat()}")
    message = page.locator("#leaderboard .error")
    expect(message).to_contain_text(f"{later.isoformat()} is after today")
    expect(message).to_contain_text(f"({today.isoformat()}, UTC)")
    assert page.evaluate("document.getElementById('day').validity.rangeOverflow")

    box.fill("")
    expect(message).to_have_text(f"Pick a whole date, up to today ({today.isoformat()}, UTC).")

    box.fill(today.isoformat())
    expect(page.locator("#board-title")).to_have_text("Today's leaderboard")
    expect(page.locator("#leaderboard")).to_contain_text("No winner yet")
    page.context.close()
