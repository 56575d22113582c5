"""The Scorpion family in the browser: a variant picked in the lobby, a Wasp game won with
the mouse, and the ten-column tables (Three Blind Mice with its reserve, Double Scorpion's two
decks) fitting the screens of tests/web/test_layout.py."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from games.engine.position import deal_position
from games.engine.solver import solve
from games.engine.variants import (
    OFFERED_VARIANTS,
    VARIANTS,
    deal_code_for_seed,
)
from tests.api.conftest import Player, sign_up
from tests.web.conftest import DESKTOP, shoot
from tests.web.test_layout import (
    SIZES,
    check_readable,
    check_run_slots,
    log_in,
    measure,
    serve_collected,
)
from tests.web.test_play import Table, expect, watch_errors
from tests.web.test_play import sign_up as sign_up_in_browser

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

WASP_SEED = 0


def wasp_line(seed: int) -> list[dict[str, Any]]:
    """A winning line of a Wasp deal: every Scorpion move is a Wasp move, so the (Scorpion)
    solver's line on the Wasp layout wins the Wasp game."""
    wasp = VARIANTS["wasp"]
    solution = solve(deal_position(deal_code_for_seed(seed, wasp), wasp), node_budget=100_000)
    assert solution.verdict == "won"
    return list(solution.line)


@pytest.mark.django_db
def test_the_lobby_offers_every_offered_variant_of_the_registry(
    client: Any, django_user_model: Any
) -> None:
    # Signed out, the page offers Play now's picker; signed in, the lobby's.
    signed_out = client.get("/").content.decode()
    client.force_login(django_user_model.objects.create_user("picker", "picker@example.com", "pw"))
    page = signed_out + client.get("/").content.decode()
    for picker in ("variant-pick", "play-now-variant"):
        block = page.split(f'id="{picker}"', 1)[1].split("</select>", 1)[0]
        assert re.findall(r'value="([^"]+)"', block) == list(OFFERED_VARIANTS), picker
        assert re.findall(r"<option[^>]*selected", block) == ['<option value="scorpion" selected']


def test_pick_wasp_in_the_lobby_and_win_it_with_the_mouse(browser: Any, live_server: Any) -> None:
    line = wasp_line(WASP_SEED)
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors = watch_errors(page)
    sign_up_in_browser(page, live_server.url)

    page.select_option("#variant-pick", "wasp")
    # The daily challenge and the winnable deals are Scorpion's: their buttons wait.
    expect(page.locator('button[data-mode="daily"]')).to_be_disabled()
    expect(page.locator('button[data-mode="winnable"]')).to_be_disabled()
    expect(page.locator("#variant-note")).to_be_visible()
    page.select_option("#deal-kind", "seed")
    page.fill("#deal-value", str(WASP_SEED))
    page.click("#seeded-form button[type=submit]")
    page.wait_for_url("**/play/*/")
    table = Table(page)
    table.wait_version(0)

    expect(page.locator("#board")).to_have_attribute("data-variant", "wasp")
    expect(page.locator("#board .tableau > .column")).to_have_count(7)
    expect(page.locator("#board .tableau .card.back")).to_have_count(12)  # 3 in columns 1-4
    expect(page.locator("#mode")).to_contain_text("Wasp")
    expect(page.locator("#rules-title")).to_have_text("How to play Wasp")
    expect(page.locator("#rules")).to_contain_text("any card")
    shoot(page, "wasp-table")

    for version, step in enumerate(line, start=1):
        if step["type"] == "deal":
            page.click("#btn-deal")
        else:
            table.drag(step["card"], step["to"])
        table.wait_version(version)
    expect(page.locator("#banner")).to_contain_text("You won!")
    expect(page.locator("#board")).to_have_attribute("data-status", "won")
    shoot(page, "wasp-won")

    # The statistics count it for Wasp.
    page.goto(live_server.url + "/stats/")
    expect(page.locator("#stats")).to_have_attribute("data-loaded", "true")
    wasp_row = page.locator("#variants tbody tr", has_text="Wasp")
    expect(wasp_row.locator("td").nth(0)).to_have_text("1")  # played
    expect(wasp_row.locator("td").nth(1)).to_have_text("1")  # won

    # The lobby remembers the variant; the recent games say it.
    page.goto(live_server.url + "/")
    expect(page.locator("#variant-pick")).to_have_value("wasp")
    expect(page.locator("#recent")).to_contain_text("Wasp")
    assert errors == []
    context.close()


@pytest.fixture
def player() -> Player:
    return sign_up(f"variants-{time.monotonic_ns()}@example.com")


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_ten_column_tables_fit_every_screen(
    browser: Any, live_server: Any, player: Player, size: tuple[int, int]
) -> None:
    name = f"{size[0]}x{size[1]}"
    mice = player.new_game(seed=1, variant="three-blind-mice")
    double = player.new_game(seed=1, variant="double-scorpion")
    page = log_in(browser, live_server.url, player, size)
    # Five of Double Scorpion's eight runs shown collected: filled and empty slots alike.
    page.route(f"**/api/v1/games/{double['id']}/", serve_collected("SHDCS"))
    for game, runs in ((mice, 4), (double, 8)):
        page.goto(f"{live_server.url}/play/{game['id']}/")
        table = Table(page)
        table.wait_version(0)
        expect(page.locator("#board .tableau > .column")).to_have_count(10)
        expect(page.locator("#board .foundations .slot")).to_have_count(runs)
        found = measure(page)
        check_readable(f"{name} {game['variant']}", found)
        faces = sum(len(column["cards"]) for column in game["columns"])
        assert len(found["corners"]) == faces  # two copies of a card are two cards
        if size[1] >= 768:
            bottom = max(corner["bottom"] for corner in found["corners"])
            assert bottom <= size[1], f"{name} {game['variant']}: the deal overflows"
        # The collected runs' slots, on every screen: all on it, apart.
        check_run_slots(page, f"{name} {game['variant']}", filled=5 if game is double else 0)
        if game["variant"] == "three-blind-mice":
            reserve = page.locator("#board .reserve button.card")
            expect(reserve).to_have_count(2)
            assert [reserve.nth(i).get_attribute("data-card") for i in range(2)] == game["reserve"]
            assert [reserve.nth(i).get_attribute("data-column") for i in range(2)] == [
                "10",
                "11",
            ]
        shoot(page, f"play-{name}-{game['variant']}")
    page.context.close()


def test_a_tap_in_double_scorpion_says_which_copy_it_moves(
    browser: Any, live_server: Any, player: Player
) -> None:
    game = player.new_game(seed=3, variant="double-scorpion")
    hint = player.get(f"/api/v1/games/{game['id']}/hints/").json()["moves"][0]
    page = log_in(browser, live_server.url, player, (1366, 768))
    page.goto(f"{live_server.url}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)
    card = page.locator(
        f'#board button.card[data-card="{hint["card"]}"][data-column="{hint["from"]}"]'
    )
    box = card.bounding_box()
    assert box is not None
    card.click(position={"x": box["width"] / 2, "y": 7})
    table.wait_version(1)
    sent = page.locator("#board").get_attribute("data-last-command") or ""
    assert f'"from":{hint["from"]}' in sent, sent
    page.context.close()


@pytest.mark.parametrize("copy", ["lower", "upper"])
def test_a_tap_on_either_of_two_copies_in_one_column_moves_that_one(
    browser: Any, live_server: Any, player: Player, copy: str
) -> None:
    # Double Scorpion seed 4: both copies of 3D lie face up in one column, and either may move
    # (PySolFC 3.4.0+). The tapped one moves, with the cards on it.
    game = player.new_game(seed=4, variant="double-scorpion")
    hint = next(
        move
        for move in player.get(f"/api/v1/games/{game['id']}/hints/").json()["moves"]
        if move.get("copy") == copy
    )
    page = log_in(browser, live_server.url, player, (1366, 768))
    page.goto(f"{live_server.url}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)
    copies = page.locator(
        f'#board button.card[data-card="{hint["card"]}"][data-column="{hint["from"]}"]'
    )
    expect(copies).to_have_count(2)
    card = copies.first if copy == "lower" else copies.last
    box = card.bounding_box()
    assert box is not None
    card.click(position={"x": box["width"] / 2, "y": 7})
    table.wait_version(1)
    sent = page.locator("#board").get_attribute("data-last-command") or ""
    assert f'"copy":"{copy}"' in sent, sent
    event = player.get(f"/api/v1/games/{game['id']}/events/").json()["results"][-1]
    column = game["columns"][hint["from"]]["cards"]
    lower_count = len(column) - column.index(hint["card"])
    upper_count = column[::-1].index(hint["card"]) + 1
    assert event["count"] == (lower_count if copy == "lower" else upper_count)
    page.context.close()


CARD_LABELS = "[...document.querySelectorAll('#board .card.face')].map((c) => c.ariaLabel)"


def test_double_scorpion_names_each_copy_of_a_card_by_its_place(
    browser: Any, live_server: Any, player: Player
) -> None:
    game = player.new_game(seed=3, variant="double-scorpion")
    hint = player.get(f"/api/v1/games/{game['id']}/hints/").json()["moves"][0]
    one_deck = player.new_game(seed=3, variant="wasp")
    page = log_in(browser, live_server.url, player, (1366, 768))
    errors = watch_errors(page)
    page.goto(f"{live_server.url}/play/{game['id']}/")
    table = Table(page)
    table.wait_version(0)
    labels = page.evaluate(CARD_LABELS)
    assert len(labels) == sum(len(column["cards"]) for column in game["columns"])
    assert len(set(labels)) == len(labels), "two cards a screen reader cannot tell apart"
    # Double Scorpion deals nearly every card face up, so most faces show twice: a pair in two
    # columns says the column, a pair in one column the place in it too.
    places: dict[str, list[tuple[int, int]]] = {}
    for c, column in enumerate(game["columns"]):
        for i, code in enumerate(column["cards"]):
            places.setdefault(code, []).append((c, i))
    apart = next(code for code, at in places.items() if len(at) == 2 and at[0][0] != at[1][0])
    together = next(code for code, at in places.items() if len(at) == 2 and at[0][0] == at[1][0])
    for code, suffix in ((apart, ""), (together, ", face-up card {i}")):
        for c, i in places[code]:
            card = page.locator(f'#board [data-card="{code}"][data-column="{c}"][data-index="{i}"]')
            named = f"{card_name(code)}, column {c + 1}" + suffix.format(i=i + 1)
            expect(page.get_by_role("button", name=named, exact=True)).to_have_count(1)
            expect(card).to_have_attribute("aria-label", named)
    # What sighted players see is the card alone.
    assert page.locator("#board .card.face").first.inner_text().count("column") == 0

    # The keyboard path, by the label a screen reader reads: the hinted copy plays with Enter.
    c, i = next(at for at in places[hint["card"]] if at[0] == hint["from"])
    copy = page.locator(f'#board [data-card="{hint["card"]}"][data-column="{c}"][data-index="{i}"]')
    label = copy.get_attribute("aria-label") or ""
    page.get_by_role("button", name=label, exact=True).focus()
    page.keyboard.press("Enter")
    table.wait_version(1)
    sent = page.locator("#board").get_attribute("data-last-command") or ""
    assert f'"from":{hint["from"]}' in sent, sent

    # One deck: each face shows once, and its label is its name alone.
    page.goto(f"{live_server.url}/play/{one_deck['id']}/")
    Table(page).wait_version(0)
    shown = [code for column in one_deck["columns"] for code in column["cards"]]
    assert page.evaluate(CARD_LABELS) == [card_name(code) for code in shown]
    assert errors == []
    page.context.close()


def card_name(code: str) -> str:
    """A face-up card's accessible name: what its corner shows ("Q♠"), then its words."""
    ranks = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
    suits = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
    symbols = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
    shown = f"{'10' if code[0] == 'T' else code[0]}{symbols[code[1]]}\ufe0e"
    return f"{shown}, {ranks.get(code[0], code[0])} of {suits[code[1]]}"


def game_begun_before_3_4(player: Player) -> dict[str, Any]:
    """A Double Scorpion game as PySolFC 3.2 dealt it, begun before the service followed 3.4.0
    (migration 0015 named them so; no new game may be one): its row as the service made it."""
    from django.contrib.auth.models import User

    from games.models import Game
    from games.variants import deal_state

    name = "double-scorpion-3-2"
    code = deal_code_for_seed(1, VARIANTS[name])
    game = Game.objects.create(
        owner=User.objects.get(email=player.email),
        mode="seeded",
        variant=name,
        deal_code=code,
        seed=1,
        state=deal_state(code, name).to_dict(),
    )
    return {"id": str(game.pk)}


@pytest.mark.parametrize(
    "variant", ["three-blind-mice", "double-scorpion-3-2", "double-scorpion", "wasp"]
)
def test_a_sideways_phone_names_the_variant_whole_and_offers_no_deal_without_a_stock(
    browser: Any, live_server: Any, player: Player, variant: str
) -> None:
    game = (
        game_begun_before_3_4(player)
        if variant == "double-scorpion-3-2"
        else player.new_game(seed=1, variant=variant)
    )
    page = log_in(browser, live_server.url, player, (844, 390))
    page.goto(f"{live_server.url}/play/{game['id']}/")
    Table(page).wait_version(0)
    mode = page.locator("#mode")
    expect(mode).to_contain_text(VARIANTS[variant].title)
    # The whole name is drawn, not cut to "Three Blind …": nothing hidden past the box.
    clipped = mode.evaluate(
        "(el) => el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1"
    )
    assert not clipped, mode.inner_text()
    box = mode.bounding_box()
    assert box is not None
    title_width = mode.evaluate(
        """(el, title) => {
          const probe = document.createElement("span");
          probe.style.font = getComputedStyle(el).font;
          probe.textContent = title;
          document.body.append(probe);
          const width = probe.getBoundingClientRect().width;
          probe.remove();
          return width;
        }""",
        VARIANTS[variant].title,
    )
    assert title_width <= box["width"] + 1, (title_width, box)
    # The toolbar stays on screen, in the rail below the name, and clear of it.
    resign = page.locator("#btn-resign").bounding_box()
    assert resign is not None
    assert resign["x"] + resign["width"] <= 844, resign
    assert resign["y"] + resign["height"] <= 390, resign
    first = page.locator(".toolbar button:visible").first.bounding_box()
    assert first is not None
    assert first["y"] >= box["y"] + box["height"], (first, box)
    if variant in ("wasp", "double-scorpion"):
        expect(page.locator("#btn-deal")).to_be_visible()
        if variant == "double-scorpion":
            # PySolFC 3.4.0+: a stock of four, dealt onto columns 1 to 4 when the player likes.
            expect(page.locator("#stock")).to_have_attribute(
                "aria-label", "Stock: 4 cards. Deal them onto columns 1 to 4"
            )
            page.keyboard.press("d")
            expect(page.locator("#stock")).to_have_attribute("aria-label", "Stock: dealt")
        page.context.close()
        return
    # Three Blind Mice and Double Scorpion as PySolFC 3.2 dealt it have no stock: no Deal
    # button, and "d" says why.
    expect(page.locator("#btn-deal")).to_be_hidden()
    expect(page.locator("#stock")).to_have_attribute("aria-label", "No stock in this game")
    if variant == "three-blind-mice":
        # The stock's empty place names the reserve beside it (else it looks collected).
        expect(page.locator("#stock .reserve-caption")).to_have_text("Reserve")
        caption = page.locator("#stock .reserve-caption").bounding_box()
        reserve = page.locator("#board .reserve").bounding_box()
        assert caption is not None
        assert reserve is not None
        # On this screen the reserve lies under the caption, in the rail.
        assert caption["y"] + caption["height"] <= reserve["y"] + 1, (caption, reserve)
        # ... and stays within the stock's place, clear of the tenth column.
        inside = page.locator("#stock .reserve-caption").evaluate(
            "(el) => el.scrollWidth <= el.clientWidth + 1"
        )
        assert inside
    else:
        # Double Scorpion's stock place is left empty: no outline of a place for a card.
        expect(page.locator("#stock .empty-slot")).to_have_count(0)
    page.keyboard.press("d")
    expect(page.locator("#toast")).to_contain_text("no stock")
    shoot(page, f"play-844x390-{variant}-name")
    page.context.close()


def test_new_game_after_a_wasp_game_deals_wasp_again(
    browser: Any, live_server: Any, player: Player
) -> None:
    game = player.new_game(variant="wasp")
    player.command(game["id"], {"type": "resign"})
    page = log_in(browser, live_server.url, player, (1366, 768))
    page.goto(f"{live_server.url}/play/{game['id']}/")
    page.locator("#banner button", has_text="New game").click()
    page.wait_for_url(re.compile(r".*/play/(?!" + game["id"] + r")[0-9a-f-]+/$"))
    new_id = page.url.rstrip("/").rsplit("/", 1)[1]
    assert player.get(f"/api/v1/games/{new_id}/").json()["variant"] == "wasp"
    expect(page.locator("#mode")).to_contain_text("Wasp")
    page.context.close()


def test_the_lobby_counts_one_move_as_one_move(
    browser: Any, live_server: Any, player: Player
) -> None:
    game = player.new_game(seed=1, variant="three-blind-mice")
    hint = player.get(f"/api/v1/games/{game['id']}/hints/").json()["moves"][0]
    played = player.command(
        game["id"], {"type": "move", "card": hint["card"], "to": hint["to"], "from": hint["from"]}
    )
    assert played.status_code == 200, played.content
    page = log_in(browser, live_server.url, player, (1366, 768))
    expect(page.locator("#lobby")).to_contain_text("Three Blind Mice, chosen deal · 1 move")
    expect(page.locator("#lobby")).not_to_contain_text("1 moves")
    page.context.close()


def test_a_finished_game_of_a_variant_no_longer_offered_offers_no_challenge(
    browser: Any, live_server: Any, player: Player
) -> None:
    # A challenge deals new games, and Double Scorpion 3.2 begins none: its finished game's
    # page says so instead of a button the server would refuse.
    game = game_begun_before_3_4(player)
    assert player.command(game["id"], {"type": "resign"}).status_code == 200
    page = log_in(browser, live_server.url, player, (1366, 768))
    page.goto(f"{live_server.url}/play/{game['id']}/")
    expect(page.locator("#challenge-offer")).to_contain_text(
        "Double Scorpion 3.2 is kept for the games begun in it"
    )
    expect(page.locator("#challenge-friend")).to_have_count(0)
    page.context.close()


def test_new_game_after_a_double_scorpion_3_2_game_deals_double_scorpion(
    browser: Any, live_server: Any, player: Player
) -> None:
    # The game's own variant begins no new game (the server refused it: a dead button); the
    # same game's deal of today does.
    game = game_begun_before_3_4(player)
    assert player.command(game["id"], {"type": "resign"}).status_code == 200
    page = log_in(browser, live_server.url, player, (1366, 768))
    page.goto(f"{live_server.url}/play/{game['id']}/")
    page.locator("#banner button", has_text="New game").click()
    page.wait_for_url(re.compile(r".*/play/(?!" + game["id"] + r")[0-9a-f-]+/$"))
    new_id = page.url.rstrip("/").rsplit("/", 1)[1]
    assert player.get(f"/api/v1/games/{new_id}/").json()["variant"] == "double-scorpion"
    page.context.close()
