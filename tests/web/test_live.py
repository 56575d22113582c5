"""Live play across devices, in Chromium: two browser contexts (two devices) on one account,
against the ASGI server (which serves the live streams, as `make run` does)."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.api.conftest import Player, sign_up
from tests.asgi_server import asgi_server  # noqa: F401  (the fixture)
from tests.swallowing_proxy import SwallowingProxy
from tests.web.conftest import DESKTOP, PHONE, shoot, won_deal
from tests.web.test_play import Table, expect

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

API_PASSWORD = "correct horse battery staple"  # tests.api.conftest.sign_up's
_emails = itertools.count()


@pytest.fixture
def player() -> Player:
    return sign_up(f"live{next(_emails)}-{time.monotonic_ns()}@example.com")


class Device:
    """A browser context (its own cookies: a device of its own), logged in as the player."""

    def __init__(self, browser: Any, base: str, player: Player, viewport: dict[str, int]) -> None:
        touch = viewport == PHONE
        self.context = browser.new_context(viewport=viewport, has_touch=touch, is_mobile=touch)
        self.page = self.context.new_page()
        self.base = base
        self.page.goto(base + "/")
        self.page.fill("#login-email", player.email)
        self.page.fill("#login-password", API_PASSWORD)
        self.page.click("#login-form button[type=submit]")
        expect(self.page.locator("#lobby")).to_be_visible()

    def open(self, game_id: str) -> Table:
        return self.open_at(game_id, 0)

    def open_at(self, game_id: str, version: int) -> Table:
        self.page.goto(f"{self.base}/play/{game_id}/")
        table = Table(self.page)
        expect(table.board).to_have_attribute("data-version", str(version))
        # No reload may happen from here on: a reload would drop this marker.
        self.page.evaluate("window.__sameDocument = true")
        return table

    def same_document(self) -> bool:
        return bool(self.page.evaluate("window.__sameDocument === true"))

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def devices(browser: Any, asgi_server: str, player: Player) -> Iterator[tuple[Device, Device]]:  # noqa: F811
    laptop = Device(browser, asgi_server, player, DESKTOP)
    phone = Device(browser, asgi_server, player, PHONE)
    yield laptop, phone
    laptop.close()
    phone.close()


def test_a_move_on_one_device_shows_on_the_other_without_a_reload(
    devices: tuple[Device, Device], player: Player
) -> None:
    laptop, phone = devices
    deal = won_deal()
    game = player.new_game(code=deal["code"])
    on_laptop, on_phone = laptop.open(game["id"]), phone.open(game["id"])
    expect(on_laptop.board).to_have_attribute("data-live", "true")

    first = deal["line"][0]
    on_phone.touch_tap(first["card"])
    on_phone.wait_version(1)
    on_laptop.wait_version(1)  # no reload, no tap: the stream brought it
    assert on_laptop.column_of(first["card"]) == on_phone.column_of(first["card"])
    expect(laptop.page.locator("#announcer")).to_contain_text("Played on another device")
    # And back: the laptop plays, the phone follows, undo included.
    second = deal["line"][1]
    on_laptop.tap(second["card"])
    on_phone.wait_version(2)
    laptop.page.keyboard.press("z")
    on_phone.wait_version(3)
    assert on_phone.column_of(second["card"]) == on_laptop.column_of(second["card"])
    assert laptop.same_document()
    assert phone.same_document()
    shoot(phone.page, "live-phone-after-laptop-undo")


def test_a_tap_on_a_stale_board_is_replayed_or_explained(
    devices: tuple[Device, Device], player: Player
) -> None:
    laptop, phone = devices
    deal = won_deal()
    first, second = deal["line"][:2]
    game = player.new_game(code=deal["code"])
    # The laptop's streams are cut off (a flaky network): its board goes stale.
    laptop.context.route("**/stream/**", lambda route: route.abort())
    on_laptop, on_phone = laptop.open(game["id"]), phone.open(game["id"])

    on_phone.touch_tap(first["card"])
    on_phone.wait_version(1)
    time.sleep(0.5)
    expect(on_laptop.board).to_have_attribute("data-version", "0")  # stale

    # A tap on a card that can still move: sent again against the new position, and played.
    on_laptop.tap(second["card"])
    on_laptop.wait_version(2)
    expect(on_laptop.board).to_have_attribute("data-replayed", "1")
    on_phone.wait_version(2)
    assert on_phone.column_of(second["card"]) == on_laptop.column_of(second["card"])

    # Another game, played up to a move that turned a card face up; the phone undoes it. The
    # laptop, stale, taps that card, face down again: not lost silently, the player is told why.
    other = player.new_game(code=deal["code"])
    turned = None
    for step in deal["line"]:
        event = player.command(other["id"], step).json()["event"]
        if event.get("flipped"):
            turned = event["flipped"][0]["card"]
            break
    assert turned is not None
    version = event["seq"]
    on_laptop, on_phone = laptop.open_at(other["id"], version), phone.open_at(other["id"], version)
    phone.page.keyboard.press("z")
    on_phone.wait_version(version + 1)
    on_laptop.tap(turned)
    expect(laptop.page.locator("#toast")).to_contain_text(
        "The game was played on another device meanwhile: the"
    )
    expect(laptop.page.locator("#toast")).to_contain_text("is no longer face up")
    on_laptop.wait_version(version + 1)  # and it shows the position as it is now
    expect(on_laptop.card(turned)).to_have_count(0)
    assert laptop.same_document()
    shoot(laptop.page, "live-stale-tap-explained")


def test_the_lobby_and_history_follow_the_players_feed(
    devices: tuple[Device, Device], player: Player
) -> None:
    laptop, phone = devices
    laptop.page.goto(laptop.base + "/")
    expect(laptop.page.locator("#recent")).to_contain_text("Your games will be listed here")
    laptop.page.evaluate("window.__sameDocument = true")
    phone.page.goto(phone.base + "/history/")
    phone.page.evaluate("window.__sameDocument = true")

    game = player.new_game()  # on a third device
    expect(laptop.page.locator(f'#recent a[href="/play/{game["id"]}/"]')).to_be_visible()
    expect(laptop.page.locator("#resume-latest")).to_have_attribute("href", f"/play/{game['id']}/")
    expect(phone.page.locator(f'a[href="/play/{game["id"]}/"]')).to_be_visible()
    player.command(game["id"], {"type": "resign"})
    expect(phone.page.locator(f'a[href="/history/{game["id"]}/"]')).to_be_visible()
    expect(laptop.page.locator("#resume")).to_contain_text("No game in progress")
    assert laptop.same_document()
    assert phone.same_document()


def test_a_game_created_while_the_feed_opens_is_not_missed(
    devices: tuple[Device, Device], player: Player
) -> None:
    # The race the lobby once lost: the page read its list, then its feed opened "from now"; a
    # game created between the two was in neither. Hold the feed's request back to make that
    # gap as wide as we like, create a game in it, then let the feed open.
    laptop, _phone = devices
    held: list[Any] = []
    feed = re.compile(r"/api/v1/me/stream/")

    def hold(route: Any) -> None:
        held.append(route)

    laptop.page.route(feed, hold)
    laptop.page.goto(laptop.base + "/")
    expect(laptop.page.locator("#recent")).to_contain_text("Your games will be listed here")
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:
        laptop.page.wait_for_timeout(50)
    assert held, "the lobby did not open its feed"

    game = player.new_game()  # on another device, while this page's feed is not open yet
    held[0].continue_()
    laptop.page.unroute(feed)
    expect(laptop.page.locator(f'#recent a[href="/play/{game["id"]}/"]')).to_be_visible()


def test_a_game_restarted_on_another_device_leads_to_the_new_game(
    devices: tuple[Device, Device], player: Player
) -> None:
    # The phone watches the game the laptop restarts. Its banner must lead on to the laptop's
    # new game: its "New game" or "Play this deal again" would abandon that one in turn.
    deal = won_deal()
    first = deal["line"][0]
    game = player.new_game(code=deal["code"])
    player.command(game["id"], first)
    laptop, phone = devices
    on_laptop, on_phone = laptop.open_at(game["id"], 1), phone.open_at(game["id"], 1)
    expect(on_phone.board).to_have_attribute("data-live", "true")

    laptop.page.get_by_role("button", name="Restart").click()
    laptop.page.locator("dialog[open] button", has_text="Restart").click()
    laptop.page.wait_for_url(re.compile(r"/play/(?!" + game["id"] + r")[0-9a-f-]+/$"))
    restarted = laptop.page.url.rstrip("/").rsplit("/", 1)[-1]

    on_phone.wait_version(2)  # the abandon, from the stream
    banner = phone.page.locator("#banner")
    expect(banner).to_contain_text("This deal was restarted: the new game is in play.")
    onward = banner.get_by_role("link", name="Continue the new game")
    expect(onward).to_have_attribute("href", f"/play/{restarted}/")
    expect(phone.page.locator("#announcer")).to_contain_text("Continue the new game")
    # Restarting here too would abandon the laptop's new game: asked first, and called off.
    # ("New game" deals a random game: it leaves this seeded one alone, and asks nothing.)
    for again in (
        phone.page.locator("#btn-restart"),
        banner.get_by_role("button", name="Play this deal again"),
    ):
        again.click()
        dialog = phone.page.locator("dialog[open]")
        expect(dialog).to_contain_text("The new game in play (Continue the new game) would be")
        dialog.get_by_role("button", name="Cancel").click()
    assert phone.same_document()
    shoot(phone.page, "live-phone-after-laptop-restart")

    onward.click()
    on_phone = Table(phone.page)
    expect(on_phone.board).to_have_attribute("data-version", "0")
    on_phone.touch_tap(first["card"])
    on_laptop.wait_version(1)  # the laptop's new game goes on, played from the phone
    assert player.get(f"/api/v1/games/{restarted}/").json()["status"] == "playing"


def test_a_feed_redraw_keeps_the_keyboard_focus_where_it_was(
    devices: tuple[Device, Device], player: Player
) -> None:
    # The lobby and the history redraw their lists whenever the feed says something happened
    # on another device: a keyboard user's focus must stay on the link it was on, not fall
    # back to the top of the page.
    laptop, phone = devices
    finished = player.new_game()
    player.command(finished["id"], {"type": "resign"})
    replay = f'a[href="/history/{finished["id"]}/"]'
    lists = ((laptop.page, "/", "#lobby", "#recent"), (phone.page, "/history/", "#games", "#games"))
    for page, path, counter, box in lists:
        page.goto(laptop.base + path)
        expect(page.locator(counter)).to_have_attribute("data-updates", "1")  # the feed is open
        page.locator(f"{box} {replay}").focus()

    game = player.new_game(variant="wasp")  # on a third device: both lists are drawn again
    for page, _path, _counter, box in lists:
        expect(page.locator(f'{box} a[href="/play/{game["id"]}/"]')).to_be_visible()
        assert page.evaluate("document.activeElement.getAttribute('href')") == (
            f"/history/{finished['id']}/"
        )
    laptop.page.keyboard.press("Enter")
    laptop.page.wait_for_url(f"**/history/{finished['id']}/")


def test_a_refresh_that_fails_keeps_the_list_and_the_keyboard_focus(
    devices: tuple[Device, Device], player: Player
) -> None:
    # The feed says a game started elsewhere, and the history's reload fails (a server or network
    # blip): the list on screen stays, with the focus on its link, and the message line says the
    # refresh failed; the next refresh that works shows the new game with the focus kept.
    _laptop, phone = devices
    finished = player.new_game()
    player.command(finished["id"], {"type": "resign"})
    page = phone.page
    page.goto(phone.base + "/history/")
    expect(page.locator("#games")).to_have_attribute("data-updates", "1")
    replay = page.locator(f'#games a[href="/history/{finished["id"]}/"]')
    replay.focus()

    failing = {"left": 1}

    def fail_once(route: Any) -> None:
        if failing["left"]:
            failing["left"] -= 1
            route.fulfill(
                status=503, content_type="application/json", body='{"detail": "Try again soon."}'
            )
        else:
            route.fallback()

    page.route("**/api/v1/games/?*", fail_once)
    player.new_game(variant="wasp")
    expect(page.locator("#toast")).to_contain_text("Could not refresh: Try again soon.")
    expect(replay).to_be_focused()
    page.unroute("**/api/v1/games/?*")

    third = player.new_game(variant="wasp")  # abandons the second: the feed says so
    expect(page.locator(f'#games a[href="/play/{third["id"]}/"]')).to_be_visible()
    expect(replay).to_be_focused()


def following_a_new_game(
    devices: tuple[Device, Device], player: Player
) -> tuple[Device, Table, dict[str, Any]]:
    """The phone, showing a new game of the player's, live."""
    _laptop, phone = devices
    game = player.new_game()
    on_phone = phone.open(game["id"])
    expect(on_phone.board).to_have_attribute("data-live", "true")
    return phone, on_phone, game


def test_a_game_ended_on_another_device_keeps_the_keyboard_focus_on_the_page(
    devices: tuple[Device, Device], player: Player
) -> None:
    # A keyboard user is on a card when the game is resigned elsewhere: the cards stop being
    # buttons and Undo and Resign are disabled, so the focus must go to what the page says
    # next, not fall back to the top of the page.
    phone, on_phone, game = following_a_new_game(devices, player)
    phone.page.keyboard.press("ArrowRight")
    assert phone.page.evaluate("document.activeElement.matches('#board button.card')")

    player.command(game["id"], {"type": "resign"})
    on_phone.wait_version(1)
    heading = phone.page.locator("#banner h2")
    expect(heading).to_have_text("Game over: resigned")
    expect(heading).to_be_focused()
    phone.page.keyboard.press("Tab")
    expect(phone.page.locator("#banner").get_by_role("button", name="New game")).to_be_focused()


def test_a_game_deleted_on_another_device_says_so(
    devices: tuple[Device, Device], player: Player
) -> None:
    # The player deletes their games on the laptop's account page while the phone shows one:
    # the phone says why, instead of a table whose every move is refused ("No such game").
    phone, on_phone, _game = following_a_new_game(devices, player)

    assert player.client.delete("/api/v1/me/data/").status_code == 200

    expect(on_phone.board).to_have_attribute("data-gone", "true")
    expect(phone.page.get_by_role("alert")).to_contain_text(
        "This game no longer exists: your games were deleted."
    )
    expect(phone.page.locator("#btn-undo")).to_be_disabled()
    expect(phone.page.locator("#btn-resign")).to_be_disabled()
    assert phone.same_document()


def test_the_network_coming_back_opens_the_streams_afresh(
    devices: tuple[Device, Device], player: Player
) -> None:
    # After a phone changes networks its stream can look open while nothing reaches it any
    # more (EventSource never sees the heartbeats, which are comments): when the network comes
    # back, the page's streams are opened anew, the game's from the version shown.
    phone, on_phone, game = following_a_new_game(devices, player)
    opened: list[str] = []
    phone.page.on(
        "request", lambda request: opened.append(request.url) if "/stream/" in request.url else None
    )
    phone.context.set_offline(True)
    phone.context.set_offline(False)  # the browser's "online" event
    expect(on_phone.board).to_have_attribute("data-live", "true")
    deadline = time.monotonic() + 10
    while not any(f"/games/{game['id']}/stream/?since=0" in url for url in opened):
        assert time.monotonic() < deadline, f"no stream opened afresh: {opened}"
        phone.page.wait_for_timeout(50)

    player.command(game["id"], {"type": "deal"})
    on_phone.wait_version(1)
    assert phone.same_document()


def test_a_stream_that_dies_without_closing_is_opened_again_within_two_heartbeats(
    browser: Any,
    asgi_server: str,  # noqa: F811
    player: Player,
    settings: Any,
) -> None:
    # A phone's connection dies without closing (a network change, a proxy that swallows the
    # bytes): EventSource waits on it forever, and the board once stayed at an old version for
    # 70 s and more. The server's heartbeats are events the page sees (here every 2 s): after
    # two missed ones the page opens its stream again, from the version it shows.
    settings.STREAM_HEARTBEAT_SECONDS = 2
    deal = won_deal()
    game = player.new_game(code=deal["code"])
    port = int(asgi_server.rsplit(":", 1)[1])
    with SwallowingProxy(port) as proxy:
        laptop = Device(browser, proxy.url, player, DESKTOP)
        try:
            on_laptop = laptop.open(game["id"])
            expect(on_laptop.board).to_have_attribute("data-live", "true")
            laptop.page.wait_for_timeout(500)  # a heartbeat or so: the page knows the interval
            proxy.swallow()
            swallowed_at = time.monotonic()
            player.command(game["id"], deal["line"][0])  # on the phone
            on_laptop.wait_version(1)
            assert time.monotonic() - swallowed_at < 2 * 2 + 2.5  # two heartbeats, reconnecting
            assert laptop.same_document()
        finally:
            laptop.close()
