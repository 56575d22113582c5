"""Illegal taps answered at once: the refusals the visible table shows, in the server's words.

With every request held 300 ms (Chromium's network emulation), a tap the rules refuse on what
the player sees (a card whose successor is face down or covered, a King with no empty column,
a drop on the wrong column, a face-down card, a deal with the stock gone) is explained without
a request: the page's reason (``data-refused``, the problem's ``details`` as the page worked them
out) equals the one the server gives for the same command, and the words on the message line
come from it like the server's. The time from the tap to the words is printed (p50 and max),
not asserted. A legal tap is still sent: the server stays the authority.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

import pytest

from tests.api.conftest import Player, sign_up
from tests.asgi_server import asgi_server  # noqa: F401  (the fixture)
from tests.web.conftest import ROOT, won_deal
from tests.web.test_layout import open_table
from tests.web.test_play import expect

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

RANKS = "A23456789TJQK"

# The time of the last tap or drop (pointerup: a tap is recognised there) or key, and of the
# message line's next words after it.
WATCH_JS = """() => {
  const toast = document.getElementById('toast');
  const mark = { tap: 0, said: 0 };
  window.__mark = mark;
  const start = () => { mark.tap = performance.now(); mark.said = 0; };
  document.addEventListener('pointerup', start, true);
  document.addEventListener('keydown', start, true);
  new MutationObserver(() => {
    if (mark.tap && !mark.said && !toast.hidden && toast.textContent) mark.said = performance.now();
  }).observe(toast, { subtree: true, childList: true, characterData: true, attributes: true });
}"""


def successor(card: str) -> str:
    return RANKS[RANKS.index(card[0]) + 1] + card[1]


def illegal_taps(columns: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Commands the visible table shows to be illegal: (how to make it, the command)."""
    tops = [c["cards"][-1] for c in columns if c["cards"]]
    found: list[tuple[str, dict[str, Any]]] = []
    for c, column in enumerate(columns):
        for card in column["cards"]:
            if card[0] == "K":
                found.append(("tap", {"type": "move", "card": card}))
                continue
            onto = successor(card)
            if onto not in tops:
                found.append(("tap", {"type": "move", "card": card}))
            else:
                target = next(t for t, other in enumerate(columns) if other["cards"][-1:] == [onto])
                wrong = next(t for t in range(7) if t not in (c, target) and columns[t]["cards"])
                found.append(("drag", {"type": "move", "card": card, "to": wrong}))
    return found


def test_an_illegal_tap_is_explained_at_once_in_the_servers_words(
    browser: Any,
    asgi_server: str,  # noqa: F811
) -> None:
    # The stream server (as `make run` serves it): with the game's stream open, the table is
    # the game as it is, and the page answers alone.
    player: Player = sign_up(f"refusals-{time.monotonic_ns()}@example.com")
    code = won_deal()["code"]
    page, table, game = open_table(browser, asgi_server, player, (1366, 768), code)
    expect(table.board).to_have_attribute("data-live", "true")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if "/commands/" in r.url else None)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 300, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    page.evaluate(WATCH_JS)
    toast = page.locator("#toast")
    times: list[float] = []

    def answered_at_once(what: str) -> dict[str, Any]:
        expect(toast).to_be_visible()
        mark = page.evaluate("window.__mark")
        assert mark["said"] > 0, (what, mark)
        times.append(mark["said"] - mark["tap"])
        refused: dict[str, Any] = json.loads(page.locator("#board").get_attribute("data-refused"))
        return refused

    taps = illegal_taps(game["columns"])
    reasons = set()
    for how, body in taps:
        page.evaluate("document.getElementById('board').removeAttribute('data-refused')")
        if how == "tap":
            table.tap(body["card"])
        else:
            table.drag(body["card"], body["to"])
        refused = answered_at_once(json.dumps(body))
        server = player.command(game["id"], {**body, "expected_version": 0})
        assert server.status_code == 422, server.content
        assert refused == server.json()["details"], body
        reasons.add(refused["reason"])
    assert {"onto_not_exposed", "wrong_column"} <= reasons, reasons
    assert reasons & {"no_empty_column", "already_at_bottom"}, reasons

    # A face-down card says it is not face up, with no request either.
    back = page.locator("#board .tableau .card.back").first.bounding_box()
    assert back is not None
    page.mouse.click(back["x"] + back["width"] / 2, back["y"] + 3)
    assert answered_at_once("face-down")["reason"] == "not_face_up"
    expect(toast).to_have_text("That card is not face up yet.")
    assert sent == [], sent

    # A legal tap goes to the server; once the stock is dealt, "d" says so at once.
    page.click("#stock")
    table.wait_version(1)
    assert len(sent) == 1
    page.evaluate("document.getElementById('board').removeAttribute('data-refused')")
    page.keyboard.press("d")
    refused = answered_at_once("deal")
    expect(toast).to_have_text("The stock has already been dealt.")
    server = player.command(game["id"], {"type": "deal", "expected_version": 1})
    assert refused == server.json()["details"]
    assert len(sent) == 1, sent

    report = (
        f"illegal tap to its reason on screen, network held 300 ms, {len(times)} refusals "
        f"(Chromium, 1366x768): p50 {statistics.median(times):.1f} ms, max {max(times):.1f} ms"
    )
    print(report)
    (ROOT / "artifacts").mkdir(exist_ok=True)
    (ROOT / "artifacts" / "web-instant-refusals.txt").write_text(report + "\n")
    page.context.close()


def test_without_the_stream_an_illegal_tap_is_explained_at_once_and_still_sent(
    browser: Any, live_server: Any
) -> None:
    """A server without streams (pytest's WSGI live server): another device could have moved
    the game on unseen, so the server still decides; the words show at once all the same."""
    player: Player = sign_up(f"refusals-{time.monotonic_ns()}@example.com")
    code = won_deal()["code"]
    page, table, game = open_table(browser, live_server.url, player, (1366, 768), code)
    _, body = next(tap for tap in illegal_taps(game["columns"]) if tap[0] == "tap")
    with page.expect_request("**/commands/") as sent:
        table.tap(body["card"])
        expect(page.locator("#toast")).to_be_visible()
        assert page.locator("#board").get_attribute("data-refused") is not None
    assert sent.value.post_data_json["card"] == body["card"]
    page.context.close()
