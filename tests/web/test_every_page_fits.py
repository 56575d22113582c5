"""Every page, the newest included (the daily calendar, friends, a challenge seen by its creator
and by a guest, the account's apps and personal tokens, the developer pages), at 320x568,
390x844, 768x1024 (touch) and 1366x768: nothing wider than the screen (the page never scrolls
sideways; a table wider than a phone scrolls in its own box), every control at least 44 px tall
on a touch screen (a link that is a word in a sentence excepted, as WCAG 2.5.8 does) and no
serious or critical axe violation.

Found so: at 320 px the header's "Log out" stuck out 6 px on every signed-in page, the lobby's
panels 2 px, a challenge's results table 41 px (its last heading then failing contrast); on
touch screens the header's links were 26-35 px tall, "Log out" 30, buttons 40, fields 42."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.accounts.conftest import register
from tests.api.conftest import Player, sign_up
from tests.web.conftest import won_deal
from tests.web.test_axe import violations
from tests.web.test_play import expect

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

SIZES = [(320, 568), (390, 844), (768, 1024), (1366, 768)]
TOUCH = {(320, 568), (390, 844), (768, 1024)}  # has_touch and is_mobile, as a phone's browser

MEASURE = """() => {
  const root = document.documentElement;
  const wide = [...document.querySelectorAll('body *')].filter((e) => {
    if (e.offsetParent === null) return false;
    const r = e.getBoundingClientRect();
    if (r.width === 0) return false;
    // inside a box that scrolls sideways on purpose
    for (let p = e.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (['auto', 'scroll', 'hidden'].includes(s.overflowX)) return false;
    }
    return r.right > root.clientWidth + 0.5 || r.left < -0.5;
  }).slice(0, 5)
    .map((e) => `${e.tagName}#${e.id}.${e.className} ${(e.textContent || '').trim().slice(0, 30)}`);
  const small = [...document.querySelectorAll(
    'button, a[href], input:not([type=hidden]), select, textarea, summary, [role=button]'
  )].filter((e) => {
    if (e.offsetParent === null && getComputedStyle(e).position !== 'fixed') return false;
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.bottom < 0) return false;  // the skip link, hidden
    if (e.closest('#board')) return false;  // the cards: test_layout.py measures them
    // a word in a sentence (WCAG 2.5.8's inline exception)
    const line = e.parentElement.textContent.trim().length;
    const inline = getComputedStyle(e).display === 'inline';
    if (inline && line > e.textContent.trim().length + 3) return false;
    // a choice: its whole label is the target
    const label = e.closest('label');
    if (label && label.getBoundingClientRect().height >= 43.5) return false;
    return r.height < 43.5;
  }).map((e) => `${e.tagName}#${e.id}.${e.className} "${(e.textContent || '').trim()
    .slice(0, 30)}" ${Math.round(e.getBoundingClientRect().height)} px`);
  return { scroll: [root.scrollWidth, root.clientWidth], wide, small };
}"""


def measure(page: Any, touch: bool) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(MEASURE)
    out: dict[str, Any] = {}
    if found["scroll"][0] > found["scroll"][1] or found["wide"]:
        out["overflow"] = [found["scroll"], found["wide"]]
    if touch and found["small"]:
        out["small"] = found["small"]
    bad = violations(page)
    if bad:
        out["axe"] = bad
    return out


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_page_fits_the_width_with_finger_sized_controls_and_no_serious_axe_violation(
    browser: Any, live_server: Any, size: tuple[int, int]
) -> None:
    base = live_server.url
    stamp = time.monotonic_ns()
    player: Player = sign_up(f"fit-{stamp}@example.com")
    friend: Player = sign_up(f"fit-friend-{stamp}@example.com")
    done = player.new_game(code=won_deal()["code"])
    player.command(done["id"], {"type": "resign"})
    game = player.new_game(code=won_deal()["code"])
    challenge = player.post("/api/v1/challenges/", {"game": done["id"]}).json()
    invite = friend.post("/api/v1/invites/", {}).json()
    player.post("/api/v1/friends/", {"invite": invite["id"]})
    player.post("/api/v1/me/tokens/", {"name": "my script", "scopes": ["games:read"], "days": 30})
    owner = User.objects.get(email=player.email)
    app = register(owner, name="A developer's app with a rather long name")
    pages = ["/", f"/play/{game['id']}/", f"/play/{done['id']}/", "/daily/", "/daily/calendar/"]
    pages += ["/stats/", "/history/", f"/history/{done['id']}/", "/account/", "/account/apps/"]
    pages += ["/friends/", challenge["url"], "/developers/apps/", "/developers/apps/new/"]
    pages += [f"/developers/apps/{app.client.id}/"]
    touch = size in TOUCH
    found: dict[str, Any] = {}

    visitor = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch
    )
    page = visitor.new_page()
    for path in ("/", "/account/password/reset/", "/offline/"):
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
        found[f"visitor {path}"] = measure(page, touch)
    # a guest's view of the challenge
    page.goto(base + "/")
    page.click("#play-now")
    page.wait_for_url("**/play/**")
    page.goto(base + challenge["url"])
    page.wait_for_load_state("networkidle")
    found[f"guest {challenge['url']}"] = measure(page, touch)
    visitor.close()

    page = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch
    ).new_page()
    page.goto(base + "/")
    page.fill("#login-email", player.email)
    page.fill("#login-password", "correct horse battery staple")
    page.click("#login-form button[type=submit]")
    expect(page.locator("#lobby")).to_be_visible()
    for path in pages:
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
        expect(page.locator("main, body").first).to_be_visible()
        found[path] = measure(page, touch)
    page.context.close()
    bad = {path: v for path, v in found.items() if v}
    assert not bad, bad
