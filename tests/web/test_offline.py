"""The browser client on a dead network (docs/web.md, "Offline"): installable, its shell served
by the service worker, taps made offline kept with their Idempotency-Key and sent in order when
the network is back, and the server's event log the truth afterwards: nothing lost or doubled."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from games.models import GameEvent
from tests.api.conftest import Player, sign_up
from tests.web.conftest import shoot, won_deal
from tests.web.test_layout import log_in
from tests.web.test_play import Table, expect

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

PHONE = (390, 844)
# A deal (seed 61) where 20 moves can be played one after the other on the table as a player
# sees it, none of them onto or of a card that a move before turned up (which stays face down
# until the server says which it is): found by a search over the visible table.
SEED = 61
TWENTY = [
    ("5D", 0), ("6D", 1), ("3H", 1), ("QD", 2), ("2C", 1), ("4S", 2), ("KC", 5), ("7C", 1),
    ("KD", 4), ("TH", 1), ("7D", 6), ("TS", 0), ("AD", 4), ("5H", 1), ("QC", 5), ("4H", 1),
    ("7H", 4), ("4D", 6), ("2H", 1), ("8C", 4),
]  # fmt: skip
# Once the network is back the taps go one request at a time, on a loaded machine.
CATCH_UP_MS = 30_000


def open_game(browser: Any, base: str, **deal: Any) -> tuple[Any, Table, Player, dict[str, Any]]:
    player: Player = sign_up(f"offline-{time.monotonic_ns()}@example.com")
    game = player.new_game(**(deal or {"code": won_deal()["code"]}))
    page = log_in(browser, base, player, PHONE)
    page.goto(f"{base}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)
    return page, table, player, game


# The worker controls the page, and has kept it (what a reload offline is served from).
CONTROLLED_AND_KEPT = """async () => Boolean(
    navigator.serviceWorker && navigator.serviceWorker.controller
    && await caches.match(location.href, { cacheName: "scorpion-pages" })
)"""


def wait_for_worker(page: Any) -> None:
    """Until the service worker controls the page and has kept it (it claims its clients once
    active, and keeps the tables among them).

    Its install fetches every shell file and each language's words from the test server, which
    shares two cores with the other worker's tests: up to 60 s, and on failure the worker's
    state says where it stopped (installing, installed, activating...)."""
    for _ in range(1200):
        if page.evaluate(CONTROLLED_AND_KEPT):
            return
        page.wait_for_timeout(50)
    state = page.evaluate(
        """async () => {
            const registration = await navigator.serviceWorker.getRegistration();
            if (!registration) return "no registration";
            const worker = registration.installing || registration.waiting || registration.active;
            return worker ? worker.state : "no worker";
        }"""
    )
    raise AssertionError(f"the service worker never took control of the page (worker: {state})")


def _no_network(route: Any) -> None:
    route.abort("internetdisconnected")


def go_offline(page: Any) -> None:
    """No network, for the page and for its service worker: Playwright's offline mode does not
    reach the requests a service worker lets through, so the API is refused as well."""
    page.context.set_offline(True)
    page.context.route("**/api/**", _no_network)
    # The page learns it is offline a moment later (an event): a tap before that would be sent,
    # through the service worker, which Playwright's offline mode does not stop.
    page.wait_for_function("() => navigator.onLine === false")


def go_online(page: Any) -> None:
    page.context.unroute("**/api/**", _no_network)
    page.context.set_offline(False)


def logged(game_id: str) -> list[GameEvent]:
    return list(GameEvent.objects.filter(game_id=game_id).order_by("seq"))


def moves_of(events: list[GameEvent]) -> list[tuple[str, Any]]:
    return [(event.type, (event.payload.get("card"), event.payload.get("to"))) for event in events]


def test_twenty_taps_made_offline_reach_the_log_in_order_once(
    browser: Any, live_server: Any
) -> None:
    page, table, player, game = open_game(browser, live_server.url, seed=SEED)
    taps = [{"card": card, "to": to} for card, to in TWENTY]

    page.context.set_offline(True)
    banner = page.locator("#offline-banner")
    expect(banner).to_contain_text("Offline")
    for done, action in enumerate(taps, start=1):
        table.tap(action["card"])
        # Drawn at once, from the visible table: the move waits in the outbox.
        expect(table.board).to_have_attribute("data-predicted", str(done))
    expect(banner).to_contain_text("20 moves wait")
    assert logged(game["id"]) == [], "nothing reaches the server while offline"
    kept = json.loads(page.evaluate(f"localStorage.getItem('scorpion.outbox.{game['id']}')"))
    assert [entry["body"]["card"] for entry in kept] == [a["card"] for a in taps]
    keys = [entry["key"] for entry in kept]
    assert len(set(keys)) == 20
    shoot(page, "offline-phone-20-taps")

    page.context.set_offline(False)
    expect(table.board).to_have_attribute("data-version", "20", timeout=CATCH_UP_MS)
    expect(table.board).to_have_attribute("data-predicted", "0")
    expect(banner).to_be_hidden()
    events = logged(game["id"])
    assert moves_of(events) == [("move", (a["card"], a["to"])) for a in taps]
    assert [event.idempotency_key for event in events] == keys
    # The board is the server's game: the log is the truth.
    server = player.get(f"/api/v1/games/{game['id']}/").json()
    assert server["version"] == 20
    drawn = page.evaluate(
        "[...document.querySelectorAll('#board .tableau .column')].map((c) =>"
        " [c.querySelectorAll('.card.back').length,"
        "  [...c.querySelectorAll('.card.face')].map((card) => card.dataset.card)])"
    )
    assert drawn == [[c["hidden"], c["cards"]] for c in server["columns"]]
    assert page.evaluate(f"localStorage.getItem('scorpion.outbox.{game['id']}')") is None
    page.context.close()


def test_a_page_reloaded_offline_keeps_its_taps_and_a_deal_waits_marked(
    browser: Any, live_server: Any
) -> None:
    page, table, _player, game = open_game(browser, live_server.url)
    wait_for_worker(page)
    line = won_deal()["line"]

    go_offline(page)
    for action in line[:3]:
        table.tap(action["card"])
    expect(table.board).to_have_attribute("data-predicted", "3")
    # The shell comes from the service worker; the table from what the page kept.
    page.reload()
    table = Table(page)
    expect(table.board).to_have_attribute("data-predicted", "3")
    expect(page.locator("#offline-banner")).to_contain_text("3 moves wait")
    assert table.card(line[2]["card"]).get_attribute("data-column") == str(line[2]["to"])
    # A deal needs the server: it waits, marked, and nothing is taken after it.
    page.locator("#stock").click()
    expect(page.locator("#stock.waiting")).to_be_visible()
    expect(page.locator("#offline-banner")).to_contain_text("4 moves wait")
    table.tap(line[3]["card"])
    expect(page.locator("#toast")).to_contain_text("waits until the command before it")
    expect(page.locator("#btn-hint")).to_be_disabled()
    shoot(page, "offline-phone-deal-waits")
    # Only the taps, in order, can have reached the server: Playwright's offline mode does not
    # stop every request a service worker lets through (CI saw one move go out), and the outbox
    # then sends it again with its Idempotency-Key, which the server answers once.
    early = moves_of(logged(game["id"]))
    assert early == [("move", (a["card"], a["to"])) for a in line[: len(early)]]

    go_online(page)
    expect(table.board).to_have_attribute("data-version", "4", timeout=CATCH_UP_MS)
    expect(page.locator("#stock.waiting")).to_have_count(0)
    events = logged(game["id"])
    assert moves_of(events) == [("move", (a["card"], a["to"])) for a in line[:3]] + [
        ("deal", (None, None))
    ]
    page.context.close()


def test_a_command_whose_answer_was_lost_is_sent_again_and_applied_once(
    browser: Any, live_server: Any
) -> None:
    page, table, _player, game = open_game(browser, live_server.url)
    lost = []

    def lose_the_first_answer(route: Any) -> None:
        if lost:
            route.continue_()
            return
        route.fetch()  # the server applies it...
        lost.append(route.request.headers.get("idempotency-key"))
        route.abort("internetdisconnected")  # ...and the answer never arrives

    page.route("**/commands/", lose_the_first_answer)
    first = won_deal()["line"][0]
    table.tap(first["card"])
    expect(table.board).to_have_attribute("data-version", "1", timeout=CATCH_UP_MS)
    events = logged(game["id"])
    assert moves_of(events) == [("move", (first["card"], first["to"]))]
    assert [event.idempotency_key for event in events] == lost
    page.context.close()


def test_the_app_is_installable_and_its_worker_keeps_the_shell(live_server: Any) -> None:
    import httpx

    base = live_server.url
    manifest = httpx.get(f"{base}/manifest.webmanifest")
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    body = manifest.json()
    assert body["start_url"] == "/"
    assert body["display"] == "standalone"
    sizes = {icon["sizes"] for icon in body["icons"] if icon["type"] == "image/png"}
    assert {"192x192", "512x512"} <= sizes
    for icon in body["icons"]:
        assert httpx.get(base + icon["src"]).status_code == 200, icon
    worker = httpx.get(f"{base}/sw.js")
    assert worker.headers["content-type"].startswith("text/javascript")
    assert worker.headers["cache-control"] == "no-cache"
    assert "/static/web/js/play.js" in worker.text
    assert "/static/web/js/play-outbox.js" in worker.text
    assert "content-security-policy" in worker.headers
    home = httpx.get(f"{base}/").text
    assert 'rel="manifest"' in home


def test_moves_held_offline_are_dropped_and_said_once_another_tab_logs_out(
    browser: Any, live_server: Any
) -> None:
    """The moves a table held without a network were the session's: once another tab of the
    browser logs out, none is sent when the network is back (a log-in of anyone since would
    send them as that account), none is written back to the device the account has left, and
    the page it goes to says how many were dropped. They were sent, met a 401, and the table
    wrote the rest of them back to localStorage after the log-out had forgotten them."""
    player: Player = sign_up(f"offline-out-{time.monotonic_ns()}@example.com")
    game = player.new_game(seed=SEED)
    # No service worker: the table's requests are the page's own, which its route cuts.
    context = browser.new_context(
        viewport={"width": PHONE[0], "height": PHONE[1]}, service_workers="block"
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(live_server.url + "/")
    page.fill("#login-email", player.email)
    page.fill("#login-password", "correct horse battery staple")
    page.click("#login-form button[type=submit]")
    expect(page.locator("#lobby")).to_be_visible()
    page.goto(f"{live_server.url}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)

    page.route("**/api/**", _no_network)
    for done, (card, _) in enumerate(TWENTY[:3], start=1):
        table.tap(card)
        expect(table.board).to_have_attribute("data-predicted", str(done))
    expect(page.locator("#offline-banner")).to_contain_text("3 moves wait")

    other = context.new_page()
    other.goto(live_server.url + "/stats/")
    other.click("#logout")
    expect(other.locator("#login-form")).to_be_visible()
    other.close()

    page.unroute("**/api/**", _no_network)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator("#login-form")).to_be_visible(timeout=CATCH_UP_MS)
    expect(page.locator("#toast, .toast").first).to_contain_text(
        "the 3 moves made here without a network were not sent"
    )
    assert logged(game["id"]) == [], "nothing sent"
    kept = page.evaluate(
        "Object.keys(localStorage).filter((k) => k.startsWith('scorpion.outbox.')"
        " || k.startsWith('scorpion.game.'))"
    )
    assert kept == [], kept
    context.close()
