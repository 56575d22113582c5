"""Every page passes axe-core (vendored in tests/web/vendor/axe-core, MPL-2.0) with no serious
or critical violation, at 390x844 (a phone) and 1366x768: signed out, and signed in with a
game in play and a finished one (its replay)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Player, sign_up
from tests.web.conftest import won_deal
from tests.web.test_layout import log_in
from tests.web.test_play import Table, expect

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

AXE = (Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js").read_text()
SIZES = [(390, 844), (1366, 768)]

RUN_AXE = """async () => {
  const result = await axe.run(document, { resultTypes: ['violations'] });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, count: v.nodes.length,
                   nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
}"""


def violations(page: Any) -> list[dict[str, Any]]:
    page.evaluate(AXE)  # through the debugger: the page's CSP does not apply
    found: list[dict[str, Any]] = page.evaluate(RUN_AXE)
    return found


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_page_passes_axe_with_no_serious_violation(
    browser: Any, live_server: Any, size: tuple[int, int]
) -> None:
    base = live_server.url
    found: dict[str, list[dict[str, Any]]] = {}

    visitor = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = visitor.new_page()
    for path in ("/", "/account/password/reset/"):
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
        found[f"visitor {path}"] = violations(page)
    visitor.close()

    player: Player = sign_up(f"axe-{time.monotonic_ns()}@example.com")
    done = player.new_game(code=won_deal()["code"])
    player.command(done["id"], {"type": "resign"})
    game = player.new_game(code=won_deal()["code"])
    page = log_in(browser, base, player, size)
    pages = ["/", f"/play/{game['id']}/", "/daily/", "/daily/calendar/", "/stats/", "/history/"]
    pages += [f"/history/{done['id']}/", "/account/", "/account/apps/"]
    challenge = player.post("/api/v1/challenges/", {"game": done["id"]}).json()
    pages += ["/friends/", challenge["url"], f"/play/{done['id']}/"]
    for path in pages:
        page.goto(base + path)
        if path.startswith("/play/"):
            Table(page).wait_version(0 if path == f"/play/{game['id']}/" else 1)
        page.wait_for_load_state("networkidle")
        expect(page.locator("main")).to_be_visible()
        found[path] = violations(page)
    page.context.close()
    bad = {path: v for path, v in found.items() if v}
    assert not bad, bad


def test_a_phone_reaches_the_stats_tables_by_keyboard_and_hears_moves_and_reveals(
    browser: Any, live_server: Any
) -> None:
    player: Player = sign_up(f"keys-{time.monotonic_ns()}@example.com")
    deal = won_deal()
    game = player.new_game(code=deal["code"])
    page = log_in(browser, live_server.url, player, (390, 844))

    # The statistics' tables scroll sideways in a box that Tab reaches and the arrows scroll.
    page.goto(live_server.url + "/stats/")
    expect(page.locator("#modes .table-scroll")).to_be_visible()
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('table-scroll')"):
            break
    box = page.evaluate(
        "[document.activeElement.getAttribute('aria-label'),"
        " document.activeElement.scrollWidth > document.activeElement.clientWidth]"
    )
    assert box[0] == "By kind of deal: table", box
    if box[1]:
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(400)  # Chromium scrolls smoothly
        assert page.evaluate("document.activeElement.scrollLeft") > 0

    # Moves, and the cards they turn up, are said through the page's live region.
    page.goto(f"{live_server.url}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)
    hidden = [column["hidden"] for column in game["columns"]]
    for version, action in enumerate(deal["line"], start=1):
        if action["type"] != "move" or action["card"][0] == "K":
            break
        table.tap(action["card"])
        table.wait_version(version)
        record = player.get(f"/api/v1/games/{game['id']}/").json()
        if [column["hidden"] for column in record["columns"]] != hidden:
            expect(page.locator("#announcer")).to_contain_text("turned up")
            break
    announcer = page.locator("#announcer")
    expect(announcer).to_have_attribute("aria-live", "polite")
    expect(announcer).to_contain_text(" to column ")
    page.context.close()


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_api_docs_pass_axe_with_no_serious_violation(
    browser: Any, live_server: Any, size: tuple[int, int]
) -> None:
    """Swagger UI (drf-spectacular-sidecar) with its operations listed and one opened."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(live_server.url + "/api/docs/")
    expect(page.locator(".opblock").first).to_be_visible(timeout=20_000)
    found = {"listed": violations(page)}
    page.locator(".opblock-summary").first.click()
    expect(page.locator(".opblock-body").first).to_be_visible()
    found["opened"] = violations(page)
    context.close()
    bad = {state: v for state, v in found.items() if v}
    assert not bad, bad
