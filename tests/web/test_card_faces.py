"""Card faces (docs/web.md, "Card faces"): court cards show a figure, and the deck chosen on the
account page (classic, or four colours) is kept by the account and drawn on every page."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.api.conftest import Player, sign_up
from tests.web.test_layout import log_in
from tests.web.test_play import Table, expect

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

COLOUR_OF = """(code) => getComputedStyle(
  document.querySelector(`#board .card.face[data-card="${code}"]`)).color"""
FIGURE_OF = """(code) => {
  const pip = document.querySelector(`#board .card.face[data-card="${code}"] .pip.court`);
  const style = getComputedStyle(pip, '::before');
  return [style.maskImage || style.webkitMaskImage, parseFloat(style.width)];
}"""


def face_up(game: dict[str, Any], suits: str) -> str:
    for column in game["columns"]:
        for card in column["cards"]:
            if card[1] in suits:
                return str(card)
    raise AssertionError(f"no face-up card of {suits}")


def test_the_four_colour_deck_is_chosen_on_the_account_page_and_drawn_everywhere(
    browser: Any, live_server: Any
) -> None:
    player: Player = sign_up(f"deck-{time.monotonic_ns()}@example.com")
    game = player.new_game(seed=61)
    assert player.get("/api/v1/me/").json()["deck"] == "classic"
    page = log_in(browser, live_server.url, player, (1366, 768))

    page.goto(f"{live_server.url}/play/{game['id']}/")
    Table(page).wait_version(0)
    diamond, club = face_up(game, "D"), face_up(game, "C")
    classic = [page.evaluate(COLOUR_OF, diamond), page.evaluate(COLOUR_OF, club)]
    assert classic == ["rgb(196, 18, 47)", "rgb(28, 27, 25)"]
    # Court cards show a figure (a mask of the suit's colour), not a letter.
    court = next(c for col in game["columns"] for c in col["cards"] if c[0] in "JQK")
    figure, width = page.evaluate(FIGURE_OF, court)
    name = {"J": "jack", "Q": "queen", "K": "king"}[court[0]]
    assert f"court/{name}.svg" in figure
    assert width > 10

    page.goto(f"{live_server.url}/account/")
    expect(page.locator('#deck-form input[value="classic"]')).to_be_checked()
    page.locator('#deck-form input[value="four_colour"]').check()
    expect(page.locator("#deck-form .status")).to_have_text("Saved: four-colour cards.")
    assert player.get("/api/v1/me/").json()["deck"] == "four_colour"

    page.goto(f"{live_server.url}/play/{game['id']}/")
    Table(page).wait_version(0)
    expect(page.locator("body")).to_have_attribute("data-deck", "four_colour")
    four = [page.evaluate(COLOUR_OF, diamond), page.evaluate(COLOUR_OF, club)]
    assert four == ["rgb(23, 71, 184)", "rgb(13, 107, 42)"]
    page.screenshot(path="artifacts/screenshots/play-four-colour-1366x768.png")
    page.context.close()
