"""The table at five screen sizes, measured from the DOM in Chromium, and instant moves.

At 390x844 (a phone, touch), 844x390 (the phone turned), 768x1024, 1366x768 and 1920x1080:
a fresh deal and a table with a 46-card column fit the width (no horizontal scroll), every
face-up card shows its corner whole (rank and suit, never cut by the card on it), the banner
and the messages never cover a card or the toolbar. Screenshots land in artifacts/screenshots/.

The time from a tap to the table showing the move is measured with performance.now() in the
page, with every request held 300 ms (Chromium's network emulation): the move shows before the
server's answer. The figures (p50 and max) are printed and written to
artifacts/web-instant-moves.txt; no timing is asserted.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

import pytest

from tests.api.conftest import Player, sign_up
from tests.web.conftest import ROOT, shoot, won_deal
from tests.web.test_play import Table, expect

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

SIZES = [(390, 844), (844, 390), (768, 1024), (1366, 768), (1920, 1080)]
TOUCH = {(390, 844), (844, 390)}
API_PASSWORD = "correct horse battery staple"  # tests.api.conftest.sign_up's
MIN_CORNER_PX = 11

# Every face-up card of the tableau: its corner's font size, how far the corner's box (ascent
# to descent of rank and suit) stays clear of the card on it, and whether it lies on screen.
CORNERS_JS = """() => {
  const out = [];
  for (const pile of document.querySelectorAll('#board .tableau .column')) {
    const cards = [...pile.querySelectorAll(':scope > .card')];
    cards.forEach((card, i) => {
      if (!card.classList.contains('face')) return;
      const corner = card.querySelector('.corner.top');
      const box = corner.getBoundingClientRect();
      const rect = card.getBoundingClientRect();
      const next = cards[i + 1] ? cards[i + 1].getBoundingClientRect().top : rect.bottom;
      // The corner's room below it: to the first card lying over its box (a card to its right,
      // as in a diagonal run, leaves it whole).
      const over = cards.slice(i + 1).map((c) => c.getBoundingClientRect())
        .filter((r) => r.left < box.right - 0.5 && r.right > box.left + 0.5);
      const clear = (over.length ? Math.min(...over.map((r) => r.top)) : rect.bottom) - box.bottom;
      const under = cards[i - 1] && cards[i - 1].dataset.card;
      const ranks = 'A23456789TJQK';
      const code = card.dataset.card;
      out.push({
        card: code,
        // lying on its successor (inside a run): it can never move by itself
        run: Boolean(under) && under[1] === code[1]
          && ranks.indexOf(under[0]) === ranks.indexOf(code[0]) + 1,
        strip: next - rect.top,
        font: parseFloat(getComputedStyle(corner).fontSize),
        clear,
        index: box.height,
        inside: box.left >= rect.left && box.right <= rect.right && box.top >= rect.top,
        onScreenX: rect.left >= 0 && rect.right <= document.documentElement.clientWidth,
        bottom: rect.bottom + window.scrollY,
      });
    });
  }
  return out;
}"""

RECTS_JS = """(selector) => [...document.querySelectorAll(selector)]
  .filter((e) => e.offsetParent !== null)
  .map((e) => e.getBoundingClientRect())
  .map((r) => [r.left, r.top, r.right, r.bottom])"""


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


@pytest.fixture
def player() -> Player:
    return sign_up(f"layout-{time.monotonic_ns()}@example.com")


def log_in(browser: Any, base: str, player: Player, size: tuple[int, int]) -> Any:
    touch = size in TOUCH
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(base + "/")
    page.fill("#login-email", player.email)
    page.fill("#login-password", API_PASSWORD)
    page.click("#login-form button[type=submit]")
    expect(page.locator("#lobby")).to_be_visible()
    return page


def open_table(
    browser: Any, base: str, player: Player, size: tuple[int, int], code: str
) -> tuple[Any, Table, dict[str, Any]]:
    """A new game of the deal `code`, open in the player's browser at `size`, once dealt."""
    game = player.new_game(code=code)
    page = log_in(browser, base, player, size)
    page.goto(f"{base}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)
    return page, table, game


def long_column_game(game: dict[str, Any], status: str = "playing") -> dict[str, Any]:
    """The game as the page would get it with 46 face-up cards in column 1 (the other six
    cards one per column): the longest column the layout must take."""
    # All 52 cards (J and Q included, whose corners must not read as I and O), in runs of three
    # of a suit (KQJ of spades, KQJ of hearts, ..., T98 of spades, ...): a third of them can
    # be played, the others lie on their successor.
    chunks = ["KQJ", "T98", "765", "432", "A"]
    cards = [rank + suit for chunk in chunks for suit in "SHDC" for rank in chunk]
    columns = [{"hidden": 0, "cards": cards[:46]}]
    columns += [{"hidden": 0, "cards": [card]} for card in cards[46:]]
    return {**game, "columns": columns, "stock": 0, "collected": [], "status": status}


def serve_long_column(status: str) -> Any:
    def handler(route: Any) -> None:
        body = json.dumps(long_column_game(route.fetch().json(), status))
        route.fulfill(status=200, content_type="application/json", body=body)

    return handler


def measure(page: Any) -> dict[str, Any]:
    corners = page.evaluate(CORNERS_JS)
    scroll = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " document.documentElement.scrollHeight, window.innerHeight]"
    )
    return {"corners": corners, "scroll": scroll}


def check_readable(name: str, found: dict[str, Any]) -> None:
    """No horizontal scroll; every face-up card's corner whole (its visible strip at least the
    index's height, or the index bare at its left in a diagonal run) and on screen: a card
    lying on its successor too, which can never move by itself (it showed a 4 px sliver)."""
    scroll_width, client_width, _, _ = found["scroll"]
    assert scroll_width <= client_width, f"{name}: horizontal scroll"
    for corner in found["corners"]:
        assert corner["font"] >= MIN_CORNER_PX, (name, corner)
        assert corner["clear"] >= 0, (name, corner)
        assert corner["inside"], (name, corner)
        assert corner["onScreenX"], (name, corner)


def check_readable_on_a_turned_phone(page: Any, name: str) -> None:
    """Every card readable (``check_readable``) and the whole table within the 390 px of a
    phone turned sideways."""
    found = measure(page)
    check_readable(name, found)
    assert max(c["bottom"] for c in found["corners"]) <= 390, f"{name}: the table runs off"


def check_nothing_covered(page: Any, name: str) -> None:
    """The banner and the message line never lie over a card or the toolbar."""
    cards = page.evaluate(RECTS_JS, "#board .card, #board .empty-slot")
    toolbar = page.evaluate(RECTS_JS, ".toolbar button")
    for cover in page.evaluate(RECTS_JS, "#banner, #toast"):
        for rect in cards + toolbar:
            assert not overlaps(cover, rect), (name, cover, rect)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_table_fits_every_screen_with_every_corner_readable(
    browser: Any, live_server: Any, player: Player, size: tuple[int, int]
) -> None:
    name = f"{size[0]}x{size[1]}"
    game = player.new_game(code=won_deal()["code"])
    page = log_in(browser, live_server.url, player, size)
    page.goto(f"{live_server.url}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)

    # A fresh deal: on screen whole, in both directions.
    dealt = measure(page)
    header = page.locator(".site-header").bounding_box()
    assert header is not None
    if size == (390, 844):
        # The header in one row (it took three), and the deal uses the felt below it.
        assert header["height"] <= 48, header
        assert max(c["bottom"] for c in dealt["corners"]) >= 0.6 * size[1], dealt
    if size == (844, 390):
        # The header and the controls in a rail at the right: the table has the whole height.
        assert header["x"] >= 600, header
        assert header["y"] == 0, header
        toolbar = page.locator(".toolbar").bounding_box()
        assert toolbar is not None
        assert toolbar["x"] >= 600, toolbar
    check_readable(f"{name} deal", dealt)
    assert max(c["bottom"] for c in dealt["corners"]) <= size[1], f"{name}: the deal overflows"
    # A message (an illegal tap) shows in its own line: over no card, not over the toolbar.
    ranks = "A23456789TJQK"
    tops = {c["cards"][-1] for c in game["columns"] if c["cards"]}
    refused = next(
        card
        for c in game["columns"]
        for card in c["cards"]
        if card[0] != "K" and ranks[ranks.index(card[0]) + 1] + card[1] not in tops
    )
    table.tap(refused)
    expect(page.locator("#toast")).to_be_visible()
    check_nothing_covered(page, f"{name} message")
    shoot(page, f"play-{name}")

    # A 46-card column (the page is handed such a table): fits the width, corners readable,
    # and its last card on screen wherever 45 readable strips fit the height.
    for status in ("playing", "stuck"):
        page.route(f"**/api/v1/games/{game['id']}/", serve_long_column(status))
        page.reload()
        expect(table.board).to_have_attribute("data-status", status)
        table.settle()
        found = measure(page)
        check_readable(f"{name} 46 cards {status}", found)
        last = max(c["bottom"] for c in found["corners"])
        width = page.evaluate(
            "getComputedStyle(document.documentElement).getPropertyValue('--card-w')"
        )
        print(f"{name} {status}: 46-card column ends at {last:.0f}px of {size[1]}px; cards {width}")
        # Playing, it fits every screen; the stuck banner above the table costs a turned phone
        # the height of a row.
        if status == "playing" or size[1] >= 768:
            assert last <= size[1], f"{name}: the 46-card column runs off the screen"
        if status == "stuck":
            expect(page.locator("#banner")).to_contain_text("No moves available")
            check_nothing_covered(page, f"{name} banner")
            shoot(page, f"play-{name}-46-cards-stuck")
        else:
            shoot(page, f"play-{name}-46-cards")
        page.unroute(f"**/api/v1/games/{game['id']}/")
    page.context.close()


# Installed in the page: the time of the tap (pointerdown), of the first change to the table
# after it, and of the answer (data-version changes).
WATCH_JS = """() => {
  const board = document.getElementById('board');
  const mark = { tap: 0, shown: 0, answered: 0 };
  window.__mark = mark;
  document.addEventListener('pointerdown', () => {
    mark.tap = performance.now(); mark.shown = 0; mark.answered = 0;
  }, true);
  new MutationObserver((records) => {
    if (!mark.tap) return;
    const now = performance.now();
    if (records.some((r) => r.type === 'childList') && !mark.shown) mark.shown = now;
    const versioned = records.some(
      (r) => r.attributeName === 'data-version' && r.oldValue !== board.dataset.version);
    if (versioned && !mark.answered) mark.answered = now;
  }).observe(board, { subtree: true, childList: true, attributes: true,
                      attributeOldValue: true, attributeFilter: ['data-version'] });
}"""


def test_a_tapped_move_shows_before_the_answer(
    browser: Any, live_server: Any, player: Player
) -> None:
    deal = won_deal()
    game = player.new_game(code=deal["code"])
    page = log_in(browser, live_server.url, player, (1366, 768))
    page.goto(f"{live_server.url}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 300, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    page.evaluate(WATCH_JS)
    shown: list[float] = []
    answered: list[float] = []
    version = 0
    for action in deal["line"][:40]:
        if action["type"] == "deal":
            page.click("#stock")
        elif action["card"][0] == "K":
            # A King's tap goes to the first empty column, which may not be the line's.
            page.evaluate("window.__mark.tap = 0")
            table.drag(action["card"], action["to"])
        else:
            table.tap(action["card"])
            version += 1
            table.wait_version(version)
            mark = page.evaluate("window.__mark")
            assert 0 < mark["shown"] < mark["answered"], mark  # the move showed first
            shown.append(mark["shown"] - mark["tap"])
            answered.append(mark["answered"] - mark["tap"])
            continue
        version += 1
        table.wait_version(version)
    with open("/proc/loadavg") as loadavg:
        load = loadavg.read().split()[0]
    report = (
        f"tap to table updated, network held 300 ms, {len(shown)} taps (Chromium, 1366x768, "
        f"load {load}): p50 {statistics.median(shown):.1f} ms, max {max(shown):.1f} ms; "
        f"tap to the server's answer drawn: p50 {statistics.median(answered):.0f} ms, "
        f"max {max(answered):.0f} ms"
    )
    print(report)
    (ROOT / "artifacts").mkdir(exist_ok=True)
    (ROOT / "artifacts" / "web-instant-moves.txt").write_text(report + "\n")
    page.context.close()


def test_keys_walk_the_table_and_enter_plays_the_focused_card(
    browser: Any, live_server: Any, player: Player
) -> None:
    deal = won_deal()
    game = player.new_game(code=deal["code"])
    page = log_in(browser, live_server.url, player, (1366, 768))
    page.goto(f"{live_server.url}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)
    focused = "document.activeElement.dataset.card || null"
    columns = game["columns"]

    page.keyboard.press("ArrowRight")  # from the page: the first column's last card
    assert page.evaluate(focused) == columns[0]["cards"][-1]
    page.keyboard.press("ArrowUp")
    assert page.evaluate(focused) == columns[0]["cards"][-2]
    # Focused, a card is not raised over the card lying on it (which would move with it).
    assert page.evaluate(STRIP_HITS_JS, columns[0]["cards"][-2:]) == [True, True]
    page.keyboard.press("ArrowDown")
    assert page.evaluate(focused) == columns[0]["cards"][-1]
    # The focus ring shows (a keyboard focus: :focus-visible).
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"

    # Walk right to the card of the line's first move (3C), then Enter plays it.
    first = deal["line"][0]
    target = next(c for c, column in enumerate(columns) if first["card"] in column["cards"])
    for _ in range(target):
        page.keyboard.press("ArrowRight")
    while page.evaluate(focused) != first["card"]:
        page.keyboard.press("ArrowUp")
    page.keyboard.press("Enter")
    table.wait_version(1)
    assert table.column_of(first["card"]) == first["to"]
    # The card keeps the focus in its new column; z undoes as before.
    assert page.evaluate(focused) == first["card"]
    page.keyboard.press("z")
    table.wait_version(2)
    page.context.close()


def test_a_refused_move_glides_back_with_the_reason_in_words(
    browser: Any, live_server: Any, player: Player
) -> None:
    """The page draws a move at once; when the server refuses it (here: an answer made up by
    the test, as if the table had changed), the card goes back and the reason is worded from
    the problem's details: no card code, columns 1 to 7."""
    deal = won_deal()
    game = player.new_game(code=deal["code"])
    page = log_in(browser, live_server.url, player, (390, 844))
    page.goto(f"{live_server.url}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)
    first = deal["line"][0]
    origin = table.column_of(first["card"])
    problem = {
        "type": "/api/problems/illegal_move/",
        "title": "That move is not allowed",
        "status": 422,
        "code": "illegal_move",
        "detail": f"{first['card']} can only go on 4C, which is not exposed",
        "details": {
            "reason": "onto_not_exposed",
            "card": first["card"],
            "column": origin + 1,
            "onto": "4C",
            "onto_state": "unseen",
        },
    }

    def refuse(route: Any) -> None:
        page.wait_for_timeout(300)
        route.fulfill(status=422, content_type="application/problem+json", body=json.dumps(problem))

    page.route("**/commands/", refuse)
    table.touch_tap(first["card"])
    # Drawn at once in its new column, then back where it was once the answer came.
    expect(
        page.locator(f'#board .column[data-column="{first["to"]}"] [data-card="3C"]')
    ).to_be_attached()
    expect(page.locator("#toast")).to_have_text(
        "The 3 of clubs can only go on the 4 of clubs, which is not face up yet."
    )
    assert table.column_of(first["card"]) == origin
    assert page.locator("#board").get_attribute("data-version") == "0"
    page.context.close()


def test_reduced_motion_moves_without_animation(
    browser: Any, live_server: Any, player: Player
) -> None:
    deal = won_deal()
    game = player.new_game(code=deal["code"])
    page = log_in(browser, live_server.url, player, (1366, 768))
    page.emulate_media(reduced_motion="reduce")
    page.goto(f"{live_server.url}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)
    page.evaluate(
        "window.__animated = 0; new MutationObserver(() => {"
        " window.__animated += document.getAnimations().length; })"
        ".observe(document.getElementById('board'), {subtree: true, childList: true})"
    )
    table.tap(deal["line"][0]["card"])
    table.wait_version(1)
    assert page.evaluate("window.__animated") == 0
    assert page.evaluate("document.getAnimations().length") == 0
    page.context.close()


# What the page sees at the middle of each card's strip that shows (down to the next card's
# top): the card itself, or something over it.
STRIP_HITS_JS = """(codes) => codes.map((code) => {
  const card = document.querySelector(`#board .card[data-card="${code}"]`);
  const rect = card.getBoundingClientRect();
  const next = card.nextElementSibling;
  const bottom = next ? next.getBoundingClientRect().top : rect.bottom;
  const hit = document.elementFromPoint(rect.left + rect.width / 2, (rect.top + bottom) / 2);
  return Boolean(hit && hit.closest('.card') === card);
})"""


def ask_a_hint(page: Any, base: str, game_id: str) -> tuple[Table, Any]:
    """The game's table, once dealt, and its message line after `h`."""
    page.goto(f"{base}/play/{game_id}/")
    table = Table(page)
    table.wait_version(0)
    page.keyboard.press("h")
    return table, page.locator("#toast")


@pytest.mark.parametrize("size", [(844, 390), (390, 844)], ids=["844x390", "390x844"])
def test_a_hint_on_a_phone_shows_its_chance_and_the_cards_that_move_with_it(
    browser: Any, live_server: Any, player: Player, size: tuple[int, int]
) -> None:
    # The longest hint the page words: a card carrying others, a reason in two parts, and its
    # winning chance; served as such, so that the test does not hang on a deal's best move.
    game = player.new_game(code=won_deal()["code"])
    origin, column = next(
        (i, c) for i, c in enumerate(game["columns"]) if not c["hidden"] and len(c["cards"]) > 3
    )
    card, carried = column["cards"][-4], column["cards"][-3:]
    to = (origin + 1) % 7
    hints = {
        "version": 0,
        "moves": [
            {
                "card": card,
                "from": origin,
                "to": to,
                "reason": "",
                "details": [
                    {"reason": "frees", "card": carried[0], "column": origin + 1},
                    {"reason": "empties_column", "column": origin + 1},
                ],
            }
        ],
        "deal": True,
    }
    action = {"type": "move", "card": card, "to": to, "chance": 0.34, "low": 0.28}
    action |= {"high": 0.41, "wins": 68, "losses": 132, "undecided": 0, "samples": 200}
    chances = {"status": "ready", "game": game["id"], "version": 0, "samples": 200}
    chances |= {"node_budget": 20_000, "actions": [action]}
    page = log_in(browser, live_server.url, player, size)
    name = f"{size[0]}x{size[1]}"
    page.route("**/hints/", lambda route: route.fulfill(json=hints))
    page.route(
        "**/chances/",
        lambda route: (
            route.fulfill(json=chances)
            if route.request.method == "GET"
            else route.fulfill(status=202, json={**chances, "actions": None})
        ),
    )
    _, toast = ask_a_hint(page, live_server.url, game["id"])
    expect(toast).to_contain_text(
        "Chance of winning after it, if every card were known: 34% (28%\u201341%, 200 deals)"
    )
    # Whole: not cut to the line's height (the chance came last and was what went missing).
    assert toast.evaluate("(e) => e.scrollHeight <= e.clientHeight + 1"), toast.inner_text()
    check_nothing_covered(page, f"{name} hint")
    if size == (844, 390):
        check_readable_on_a_turned_phone(page, f"{name} hint")
    else:
        check_readable(f"{name} hint", measure(page))
    # What the chance means, a tap away below the table.
    help_box = page.locator("#chance-help")
    help_box.locator("summary").click()
    expect(help_box).to_contain_text("solver that sees every card")
    # The cards on the hinted card move with it: they light up, and it is not drawn over them.
    expect(page.locator("#board .card.hint")).to_have_attribute("data-card", card)
    carried_lit = page.locator("#board .card.hint-carried")
    assert [e.get_attribute("data-card") for e in carried_lit.all()] == carried
    assert page.evaluate(STRIP_HITS_JS, [card, *carried]) == [True] * 4
    shoot(page, f"play-{name}-hint")
    page.context.close()


def test_a_resigned_game_on_a_turned_phone_keeps_its_banner_to_one_row(
    browser: Any, live_server: Any, player: Player
) -> None:
    game = player.new_game(code=won_deal()["code"])
    page = log_in(browser, live_server.url, player, (844, 390))
    page.goto(f"{live_server.url}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)

    page.click("#btn-resign")
    page.click("dialog[open] button.danger, dialog[open] button:has-text('Resign')")
    expect(page.locator("#banner")).to_contain_text("Game over: resigned")
    table.settle()

    # One row (title and buttons side by side, about 40 px), not a block of two (about 95 px):
    # the table below keeps the height.
    banner = page.locator("#banner").bounding_box()
    assert banner is not None
    assert banner["height"] <= 44, banner
    check_nothing_covered(page, "844x390 resigned")
    check_readable_on_a_turned_phone(page, "844x390 resigned")
    shoot(page, "play-844x390-resigned")
    page.context.close()


def test_a_turned_phone_names_a_daily_practice_game_whole(
    browser: Any, live_server: Any, player: Player
) -> None:
    """The longest heading a table has: a daily practice attempt with its date and band. The
    page is handed such a game through a route (what it shows depends on these fields alone)."""
    game = player.new_game(code=won_deal()["code"])
    daily = {"mode": "daily", "daily_date": "2026-12-01", "difficulty": "medium", "ranked": False}

    def as_daily(route: Any) -> None:
        body = json.dumps({**route.fetch().json(), **daily})
        route.fulfill(status=200, content_type="application/json", body=body)

    page = log_in(browser, live_server.url, player, (844, 390))
    page.route(f"**/api/v1/games/{game['id']}/", as_daily)
    page.goto(f"{live_server.url}/play/{game['id']}/")
    Table(page).wait_version(0)

    mode = page.locator("#mode")
    expect(mode).to_have_text("Daily challenge · 2026-12-01 · medium · practice: does not rank")
    # Drawn whole (it was cut after the date: the band and the practice note were lost).
    clipped = mode.evaluate(
        "(el) => el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1"
    )
    assert not clipped, mode.bounding_box()
    head = page.evaluate(RECTS_JS, "#mode, .counters, .toolbar button")
    for i, a in enumerate(head):
        assert a[2] <= 844, a  # on screen
        for b in head[i + 1 :]:
            assert not overlaps(a, b), (a, b)
    check_readable_on_a_turned_phone(page, "844x390 daily practice")
    shoot(page, "play-844x390-daily-practice")
    page.context.close()


def test_a_hint_leaves_the_message_line_once_the_table_changes(
    browser: Any, live_server: Any, player: Player
) -> None:
    game = player.new_game(code=won_deal()["code"])
    page = log_in(browser, live_server.url, player, (1366, 768))
    # The chances, computed in the request here, would hold the test's server a few seconds.
    pending = {"status": "pending", "game": game["id"], "version": 0, "retry_after": 2}
    page.route("**/chances/", lambda route: route.fulfill(status=202, json=pending))
    table, toast = ask_a_hint(page, live_server.url, game["id"])
    expect(toast).to_contain_text("still computing")
    hinted = page.locator("#board .card.hint").get_attribute("data-card")
    assert hinted is not None
    table.tap(hinted)
    table.wait_version(1)

    # Its words named a move now played: gone with it, not left for its 6 s.
    expect(toast).to_be_hidden(timeout=1_000)
    page.context.close()


# The slots of the runs to collect, and the top corner of the King shown in each filled one.
SLOTS_JS = """() => [...document.querySelectorAll('#board .foundations .slot')].map((slot) => {
  const r = slot.getBoundingClientRect();
  const corner = slot.querySelector('.corner.top');
  const c = corner ? corner.getBoundingClientRect() : null;
  return {
    rect: [r.left, r.top, r.right, r.bottom],
    corner: c ? [c.left, c.top, c.right, c.bottom] : null,
    filled: slot.classList.contains('filled'),
  };
})"""


def inside(inner: list[float], outer: list[float]) -> bool:
    return all(
        (outer[0] <= inner[0], inner[2] <= outer[2], outer[1] <= inner[1], inner[3] <= outer[3])
    )


def serve_collected(runs: str) -> Any:
    def handler(route: Any) -> None:
        body = json.dumps({**route.fetch().json(), "collected": list(runs)})
        route.fulfill(status=200, content_type="application/json", body=body)

    return handler


def check_run_slots(page: Any, name: str, *, filled: int) -> None:
    """Every slot of the runs to collect on screen whole, none over another, and the King of
    each collected run showing its corner whole in its own slot. (Double Scorpion's eight in
    a rail beside the table stood in rows 0.4 of a card apart, each a whole card high: every
    slot but the last lay under the next.)"""
    width, height = page.evaluate("[document.documentElement.clientWidth, window.innerHeight]")
    slots = page.evaluate(SLOTS_JS)
    assert sum(slot["filled"] for slot in slots) == filled, name
    for i, slot in enumerate(slots):
        left, top, right, bottom = slot["rect"]
        assert min(right - left, bottom - top) >= 20, (name, i, slot)
        assert inside(slot["rect"], [0, 0, width, height]), (name, i, slot)
        for other in slots[i + 1 :]:
            assert not overlaps(slot["rect"], other["rect"]), (name, i, slot, other)
        if slot["filled"]:
            assert inside(slot["corner"], slot["rect"]), (name, i, slot)


def test_taps_made_faster_than_a_slow_network_answers_end_on_the_servers_table(
    browser: Any, live_server: Any, player: Player
) -> None:
    """With every request held 400 ms, the first 16 steps of a winning line are tapped one
    after the other without waiting for an answer (a card a move turns up is tapped once it
    shows): the moves are drawn at once, the answers come in behind them, and in the end the
    table drawn is the server's game, card for card, with nothing left foreseen."""
    deal = won_deal()
    game = player.new_game(code=deal["code"])
    page = log_in(browser, live_server.url, player, (390, 844))
    page.goto(f"{live_server.url}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 400, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    steps = deal["line"][:16]
    for action in steps:
        if action["type"] == "deal":
            page.click("#stock")
        elif action["card"][0] == "K":
            table.drag(action["card"], action["to"])
        else:
            table.tap(action["card"])
    expect(table.board).to_have_attribute("data-version", str(len(steps)), timeout=30_000)
    expect(table.board).to_have_attribute("aria-busy", "false")
    server = player.get(f"/api/v1/games/{game['id']}/").json()
    assert server["version"] == len(steps)
    drawn = page.evaluate(
        "[...document.querySelectorAll('#board .tableau .column')].map((c) =>"
        " [c.querySelectorAll('.card.back').length,"
        "  [...c.querySelectorAll('.card.face')].map((card) => card.dataset.card)])"
    )
    assert drawn == [[c["hidden"], c["cards"]] for c in server["columns"]]
    page.context.close()
