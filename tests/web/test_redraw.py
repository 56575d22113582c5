"""A move touches only what it changed: counted with a MutationObserver on the table.

Each move of the known winning line (taps, at 1366x768) is drawn twice, at once and from the
server's answer; the attributes written and the elements inserted in the table are counted from
the tap until the answer is drawn and the cards have settled. A move used to rewrite about 360
attributes and re-insert the whole destination column; now only the moved cards, the columns'
labels that changed and the table's own marks (version, status) are touched.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import pytest

from tests.api.conftest import Player, sign_up
from tests.web.conftest import won_deal
from tests.web.test_layout import open_table

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

COUNT_JS = """() => {
  const counts = { attributes: 0, inserted: 0, names: {}, last: performance.now() };
  window.__counts = counts;
  new MutationObserver((records) => {
    counts.last = performance.now();
    for (const r of records) {
      if (r.type === 'attributes') {
        counts.attributes += 1;
        counts.names[r.attributeName] = (counts.names[r.attributeName] || 0) + 1;
      } else if (r.type === 'childList') {
        counts.inserted += r.addedNodes.length;
      }
    }
  }).observe(document.getElementById('board'),
             { subtree: true, childList: true, attributes: true });
}"""


def test_a_move_touches_only_the_cards_it_changed(browser: Any, live_server: Any) -> None:
    player: Player = sign_up(f"redraw-{time.monotonic_ns()}@example.com")
    deal = won_deal()
    page, table, _ = open_table(browser, live_server.url, player, (1366, 768), deal["code"])
    page.evaluate(COUNT_JS)
    attributes: list[int] = []
    inserted: list[int] = []
    names: dict[str, int] = {}
    for version, action in enumerate(deal["line"][:12], start=1):
        page.evaluate("window.__counts.attributes = 0; window.__counts.inserted = 0;")
        page.evaluate("window.__counts.names = {}")
        if action["type"] == "deal":
            page.click("#stock")
        elif action["card"][0] == "K":
            table.drag(action["card"], action["to"])  # a tap goes to the first empty column
        else:
            table.tap(action["card"])
        table.wait_version(version)
        counts = page.evaluate("window.__counts")
        attributes.append(counts["attributes"])
        inserted.append(counts["inserted"])
        for name, n in counts["names"].items():
            names[name] = names.get(name, 0) + n
        # The cards moved, a card turned up, a dealt stock's three: never a whole column again.
        assert counts["inserted"] <= 14, counts
    print(
        f"per move, {len(attributes)} moves: attributes written p50 "
        f"{statistics.median(attributes):.0f}, max {max(attributes)}; elements inserted p50 "
        f"{statistics.median(inserted):.0f}, max {max(inserted)}; by attribute {names}"
    )
    assert len(attributes) >= 5
    assert max(attributes) <= 60, attributes
    page.context.close()
