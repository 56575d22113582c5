"""In Chromium, a French browser gets French from the scripts too: the table, a refusal, a
hint, the banner of a finished game, the replay, the lobby, the daily, statistics, history,
account and apps pages show no English sentence that the scripts' catalogue translates, with the
catalogue loaded as a script file and no CSP violation; the calendar names its months in French.
The account page's language setting wins over the browser's (docs/web.md, "Languages").

Screenshots land in artifacts/screenshots/ (languages-*)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.site.test_languages import MONTHS_FR, french, normalised
from tests.web.conftest import DESKTOP, shoot, won_deal
from tests.web.test_csp import Watcher
from tests.web.test_guest import api, confirm, expect
from tests.web.test_play import sign_up

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

# Every piece of text a reader meets: text nodes (hidden ones too: a live region, the
# collapsed help) and the attributes read out.
PIECES = """() => {
  const pieces = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest("script, style, template")) continue;
    if (node.textContent.trim()) pieces.push(node.textContent);
  }
  for (const element of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
    for (const name of ["aria-label", "title", "placeholder"]) {
      const value = element.getAttribute(name);
      if (value) pieces.push(value);
    }
  }
  return pieces;
}"""


def english_sentences() -> Iterator[tuple[str, re.Pattern[str], bool]]:
    """Each English message of the scripts' catalogue that French words otherwise, as a pattern
    (its %(fields)s match anything), and whether it is long enough (four words or more) to be
    looked for inside a piece of text rather than as a whole piece."""
    for entry in french("djangojs"):
        english = [entry.msgid] if entry.plural is None else [entry.msgid, entry.plural]
        for source, translated in zip(english, entry.strings, strict=False):
            if normalised(source) == normalised(translated):
                continue
            literal = re.sub(r"%\(\w+\)s", " ", source)
            if not re.search(r"[A-Za-z]{3,}", literal):
                continue
            parts = re.split(r"%\(\w+\)s", normalised(source))
            pattern = re.compile("(.+?)".join(re.escape(part) for part in parts))
            yield normalised(source), pattern, len(literal.split()) >= 4


SENTENCES = list(english_sentences())


def untranslated(page: Any) -> list[str]:
    pieces = [normalised(piece) for piece in page.evaluate(PIECES)]
    found = []
    for english, pattern, long in SENTENCES:
        for piece in pieces:
            if pattern.fullmatch(piece) or (long and pattern.search(piece)):
                found.append(f"{english!r} in {piece!r}")
                break
    return found


def french_page(browser: Any, base: str) -> tuple[Any, Watcher, list[str]]:
    """A page of a French browser, with its CSP watcher and the script errors it meets."""
    context = browser.new_context(viewport=DESKTOP, locale="fr-FR")
    context.set_default_timeout(10_000)
    watcher = Watcher(context, base.split("://", 1)[1])
    page = context.new_page()
    watcher.listen(page)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, watcher, errors


def test_a_french_browser_reads_french_everywhere_the_scripts_write(
    browser: Any, live_server: Any
) -> None:
    base = live_server.url
    page, watcher, errors = french_page(browser, base)

    assert watcher.visit(page, base + "/") == []
    assert page.get_attribute("html", "lang") == "fr"
    page.click("#play-now")
    page.wait_for_url("**/play/*/")
    expect(page.locator("#board")).to_have_attribute("data-version", "0")
    # The catalogue is loaded (a script file: the CSP allows no inline script).
    assert page.evaluate("typeof django === 'object' && Object.keys(django.catalog).length") > 200
    assert page.evaluate("window.__violations") == []
    expect(page.locator("#mode")).to_contain_text("Donne au hasard")

    # A refusal the page words itself (a face-down card), then the hint.
    back = page.locator("#board .tableau .card.back").first.bounding_box()
    assert back is not None
    page.mouse.click(back["x"] + back["width"] / 2, back["y"] + 3)
    expect(page.locator("#toast")).to_contain_text("Cette carte n'est pas encore face visible.")
    page.click("#btn-hint")
    expect(page.locator("#toast")).to_contain_text("Indice 1 sur")
    expect(page.locator("#toast")).to_contain_text(
        "si toutes les cartes étaient connues", timeout=30_000
    )
    assert untranslated(page) == []
    shoot(page, "languages-table-fr")

    # The game resigned: the banner, then its replay and analysis.
    page.click("#btn-resign")
    confirm(page)
    expect(page.locator("#banner")).to_contain_text("Partie finie : abandonnée")
    assert untranslated(page) == []
    game_path = page.url.split(base, 1)[1]
    page.goto(base + game_path.replace("/play/", "/history/"))
    expect(page.locator("#step-text")).to_contain_text("La donne.")
    expect(page.locator("#analysis")).to_contain_text("Analyse")
    page.locator("#step-last").click()
    expect(page.locator("#step-text")).to_contain_text("Étape")
    assert untranslated(page) == []

    for path, ready in (
        ("/", "#resume p"),
        ("/daily/", "#play-daily"),
        ("/stats/", "#figures dl"),
        ("/history/", "#games .game-list"),
        ("/account/", "#language-form"),
    ):
        assert watcher.visit(page, base + path, ready) == [], path
        assert untranslated(page) == [], path
    shoot(page, "languages-account-fr")
    assert errors == []


def test_the_friends_challenge_calendar_and_achievements_read_french(
    browser: Any, live_server: Any
) -> None:
    """The pages added with the social features: a challenge seen by its creator and by a
    guest it is sent to, the friends page with an invite link, the daily calendar, and the
    statistics page's achievements and badges."""
    base = live_server.url
    page, watcher, errors = french_page(browser, base)
    sign_up(page, base)
    game = api(page, "POST", "/api/v1/games/", {"mode": "seeded", "seed": 42})["body"]
    resigned = api(page, "POST", f"/api/v1/games/{game['id']}/commands/", {"type": "resign"})
    assert resigned["status"] == 200, resigned
    made = api(page, "POST", "/api/v1/challenges/", {"game": game["id"]})
    assert made["status"] == 201, made
    challenge = made["body"]["url"]

    for path, ready in (
        (challenge, "#challenge-results"),
        ("/friends/", "#friends-list p"),
        ("/daily/calendar/", "#calendar[data-loaded=true]"),
        ("/stats/", "#achievement-list"),
    ):
        assert watcher.visit(page, base + path, ready) == [], path
        assert untranslated(page) == [], path
    expect(page.locator("#achievement-list")).to_contain_text("Première victoire")
    for path, ready in (("/account/apps/", "#tokens-title"), ("/developers/apps/", "#dev-title")):
        assert watcher.visit(page, base + path, ready) == [], path
        assert untranslated(page) == [], path

    # The calendar names its months in French, the one the server wrote and those the script
    # moves to ("décembre 2026", never "2026-12").
    page.goto(base + "/daily/calendar/")
    expect(page.locator("#calendar")).to_have_attribute("data-loaded", "true")
    this_month = page.locator("#month-title").inner_text()
    assert re.fullmatch(rf"({'|'.join(MONTHS_FR)}) \d{{4}}", this_month), this_month
    page.click("#month-prev")
    expect(page.locator("#month-title")).not_to_have_text(this_month)
    before = page.locator("#month-title").inner_text()
    assert re.fullmatch(rf"({'|'.join(MONTHS_FR)}) \d{{4}}", before), before
    page.click("#month-next")
    expect(page.locator("#month-title")).to_have_text(this_month)
    page.goto(base + "/friends/")
    page.click("#make-invite")
    expect(page.locator("#invite-url")).to_be_visible()
    assert untranslated(page) == []
    shoot(page, "languages-friends-fr")

    # The challenge as the guest it is sent to sees it: hidden results, a button to play.
    guest = browser.new_context(viewport=DESKTOP, locale="fr-FR").new_page()
    guest.goto(base + "/")
    guest.click("#play-now")
    guest.wait_for_url("**/play/*/")
    guest.goto(base + challenge)
    expect(guest.locator("#play-challenge")).to_have_text("Jouer ce défi")
    expect(guest.locator("#board-hidden")).to_be_visible()
    assert untranslated(guest) == []
    assert errors == []


def test_the_account_pages_language_wins_over_the_browsers(browser: Any, live_server: Any) -> None:
    base = live_server.url
    context = browser.new_context(viewport=DESKTOP, locale="fr-FR")
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(base + "/")
    page.click("#play-now")
    page.wait_for_url("**/play/*/")
    page.goto(base + "/account/")
    expect(page.locator("h1")).to_have_text("Votre compte")
    page.select_option("#language", "en")
    page.click("#language-form button[type=submit]")
    expect(page.locator("h1")).to_have_text("Your account")
    assert page.get_attribute("html", "lang") == "en"
    expect(page.locator("#language")).to_have_value("en")
    # The scripts follow: English words from the English catalogue.
    page.goto(base + "/history/")
    expect(page.locator("#games")).to_contain_text("Resume")
    assert untranslated(page) != []  # the check above does see English where it is
    page.goto(base + "/account/")
    page.select_option("#language", "")
    page.click("#language-form button[type=submit]")
    expect(page.locator("h1")).to_have_text("Votre compte")


@pytest.mark.parametrize("size", [(390, 844), (844, 390)], ids=["390x844", "844x390"])
def test_a_french_hint_with_its_chance_shows_whole_on_a_phone(
    browser: Any, live_server: Any, size: tuple[int, int]
) -> None:
    """French is longer than English: the longest hint the page words (a card carrying others,
    a reason in two parts, its winning chance) still shows whole in the message line."""
    base = live_server.url
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, locale="fr-FR", has_touch=True
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(base + "/")
    page.click("#play-now")
    page.wait_for_url("**/play/*/")
    game = api(page, "POST", "/api/v1/games/", {"code": won_deal()["code"]})["body"]
    origin, column = next(
        (i, c) for i, c in enumerate(game["columns"]) if not c["hidden"] and len(c["cards"]) > 3
    )
    card, carried = column["cards"][-4], column["cards"][-3:]
    to = (origin + 1) % 7
    details = [
        {"reason": "frees", "card": carried[0], "column": origin + 1},
        {"reason": "empties_column", "column": origin + 1},
    ]
    hints = {
        "version": 0,
        "moves": [{"card": card, "from": origin, "to": to, "reason": "", "details": details}],
        "deal": True,
    }
    action = {"type": "move", "card": card, "to": to, "chance": 0.34, "low": 0.28}
    action |= {"high": 0.41, "wins": 68, "losses": 132, "undecided": 0, "samples": 200}
    chances = {"status": "ready", "game": game["id"], "version": 0, "samples": 200}
    chances |= {"node_budget": 20_000, "actions": [action]}
    page.route("**/hints/", lambda route: route.fulfill(json=hints))
    page.route(
        "**/chances/",
        lambda route: (
            route.fulfill(json=chances)
            if route.request.method == "GET"
            else route.fulfill(status=202, json={**chances, "actions": None})
        ),
    )
    page.goto(f"{base}/play/{game['id']}/")
    expect(page.locator("#board")).to_have_attribute("data-version", "0")
    page.keyboard.press("h")
    toast = page.locator("#toast")
    expect(toast).to_contain_text("si toutes les cartes étaient connues")
    expect(toast).to_contain_text("34% (28%\u201341%, 200 donnes).")
    assert toast.evaluate("(e) => e.scrollHeight <= e.clientHeight + 1"), toast.inner_text()
    # The longer French words (the header, the controls) never widen the page.
    widths = "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    wide, seen = page.evaluate(widths)
    assert wide <= seen, (wide, seen)
    shoot(page, f"languages-hint-fr-{size[0]}x{size[1]}")
