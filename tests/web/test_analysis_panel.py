"""The replay page's analysis panel in a real Chromium: the verdict, the turning point, and the
winning line stepped through on the board."""

from __future__ import annotations

import re
from typing import Any

import pytest

from games.analysis import VARIANT_ANALYSIS_BUDGETS
from games.engine.cards import card_code
from tests.engine.test_analysis import first_losing_point
from tests.web.conftest import DESKTOP, shoot, won_deal
from tests.web.test_play import expect, sign_up, start_from_code, watch_errors

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

SEND = """async ([id, command]) => {
  const csrf = document.cookie.match(/csrftoken=([^;]+)/)[1];
  const response = await fetch(`/api/v1/games/${id}/commands/`, {
    method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json", "X-CSRFToken": csrf},
    body: JSON.stringify(command),
  });
  return response.status;
}"""


def test_the_replay_shows_where_a_lost_game_turned_and_steps_through_the_winning_line(
    browser: Any, live_server: Any
) -> None:
    base = live_server.url
    deal = won_deal()
    log, losing = first_losing_point(deal["code"], deal["line"])
    before = len(log.events)
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    sign_up(page, base)
    start_from_code(page, deal["code"])
    game_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    commands = [
        *deal["line"][:before],
        {"type": "move", "card": card_code(losing.card), "to": losing.to},
        {"type": "resign"},
    ]
    for command in commands:
        assert page.evaluate(SEND, [game_id, command]) == 200

    page.goto(f"{base}/history/{game_id}/")

    panel = page.locator("#analysis")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("The deal could be won from the start.")
    expect(page.locator("#analysis-turning-point")).to_contain_text(
        f"Still winnable after step {before}; step {before + 1} lost it"
    )
    page.click("#analysis-turn")
    expect(page.locator("#step-count")).to_have_text(f"{before} / {len(commands)}")

    next_step = page.locator("#line-next")
    next_step.click()
    expect(page.locator("#line-step")).to_contain_text("Winning line, 1 / ")
    while next_step.is_enabled():
        next_step.click()
    expect(page.locator("#line-step")).to_contain_text("Winning line")
    expect(page.locator("#board .slot.filled")).to_have_count(4)
    shoot(page, "desktop-replay-analysis")
    page.click("#line-prev")
    expect(page.locator("#board .slot.filled")).not_to_have_count(4)
    assert errors == []
    page.close()


IN_VIEW = """() => {
  const r = document.getElementById("board").getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight;
}"""


def test_on_a_turned_phone_the_winning_line_is_stepped_through_in_sight(
    browser: Any, live_server: Any
) -> None:
    """At 844x390 the panel lies below the table: its buttons bring the table into view, and
    the controls above the table (and the arrow keys) step on through the line."""
    base = live_server.url
    deal = won_deal()
    page = browser.new_page(viewport={"width": 844, "height": 390})
    page.set_default_timeout(30_000)
    errors = watch_errors(page)
    sign_up(page, base)
    start_from_code(page, deal["code"])
    game_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    for command in [*deal["line"][:3], {"type": "resign"}]:
        assert page.evaluate(SEND, [game_id, command]) == 200

    page.goto(f"{base}/history/{game_id}/")
    expect(page.locator("#step-count")).to_have_text("0 / 4")
    next_step = page.locator("#line-next")
    next_step.scroll_into_view_if_needed()
    assert not page.evaluate(IN_VIEW)  # the panel and the table do not fit together
    next_step.click()
    step_text = page.locator("#step-text")

    def line_step(n: int) -> re.Pattern[str]:
        return re.compile(rf"winning line from step \d+, {n} / ")

    expect(page.locator("#line-step")).to_contain_text("Winning line, 1 / ")
    expect(step_text).to_contain_text(line_step(1))
    # Entered from the deal, the line goes on from the game's end (step 4, the resignation):
    # the count says so, not "0 / 4".
    expect(step_text).to_contain_text("winning line from step 4, ")
    expect(page.locator("#step-count")).to_have_text("4 / 4")
    page.wait_for_function(IN_VIEW)
    page.click("#step-next")
    expect(step_text).to_contain_text(line_step(2))
    page.keyboard.press("ArrowRight")
    expect(step_text).to_contain_text(line_step(3))
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#line-step")).to_contain_text("Winning line, 2 / ")
    shoot(page, "phone-landscape-replay-line")
    # The game's own steps come back with the first step, the slider or Play.
    page.click("#step-first")
    expect(step_text).to_have_text("The deal.")
    page.click("#step-next")
    expect(step_text).to_contain_text("Step 1:")
    assert errors == []
    page.close()


def test_a_game_still_on_has_no_analysis_panel(browser: Any, live_server: Any) -> None:
    base = live_server.url
    page = browser.new_page(viewport=DESKTOP)
    sign_up(page, base)
    start_from_code(page, won_deal()["code"])
    game_id = page.url.rstrip("/").rsplit("/", 1)[-1]

    page.goto(f"{base}/history/{game_id}/")

    expect(page.locator("#step-count")).to_have_text("0 / 0")
    expect(page.locator("#analysis")).to_be_hidden()
    page.close()


CREATE = """async (body) => {
  const csrf = document.cookie.match(/csrftoken=([^;]+)/)[1];
  const response = await fetch("/api/v1/games/", {
    method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json", "X-CSRFToken": csrf},
    body: JSON.stringify(body),
  });
  return (await response.json()).id;
}"""


def test_a_variant_deal_the_solver_cannot_decide_is_said_undecided_on_the_replay(
    browser: Any, live_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A small budget (the server runs in this process): Double Scorpion seed 0 stays undecided.
    monkeypatch.setitem(VARIANT_ANALYSIS_BUDGETS, "double-scorpion", (500, 1_000))
    base = live_server.url
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    sign_up(page, base)
    game_id = page.evaluate(CREATE, {"variant": "double-scorpion", "seed": 0})
    assert page.evaluate(SEND, [game_id, {"type": "resign"}]) == 200

    page.goto(f"{base}/history/{game_id}/")

    panel = page.locator("#analysis")
    expect(panel).to_contain_text(
        "Whether the deal could be won is unknown: the solver could not decide this deal "
        "within its budget."
    )
    expect(page.locator("#analysis-undecided")).to_contain_text("Where the game turned is unknown")
    expect(page.locator("#line-next")).to_have_count(0)  # no line is guessed
    assert errors == []
    page.close()
