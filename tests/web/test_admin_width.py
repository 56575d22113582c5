"""The admin's lists at 1366x768 in Chromium: every column of the operator's key lists is on
screen, with no sideways scrolling (the navigation sidebar open, as the admin shows it)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from allauth.idp.oidc.models import Client as App
from django.conf import settings
from django.contrib.admin.models import LogEntry
from django.test import Client
from django.urls import reverse

from accounts.models import Profile
from infrastructure.audit import staff_action_record
from social.models import Challenge
from tests.admin.conftest import WON, daily_deal, make_user, new_game, play, winnable_deal
from tests.web.conftest import shoot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("web_settings")]

PAGES = [
    "admin:games_game_changelist",
    "admin:games_gameevent_changelist",
    "admin:auth_user_changelist",
    "admin:admin_logentry_changelist",
    "admin:stats_playerstats_changelist",
    "admin:games_dailydeal_changelist",
    "admin:games_winnabledeal_changelist",
    "admin:allauth_idp_oidc_client_changelist",
    "admin:social_challenge_changelist",
    "admin:achievements_achievement_changelist",
    "staff:leaderboard",
]

# The right edge of the page's widest table and of each of its header cells, and how far the
# document scrolls sideways.
MEASURE = """() => {
  const table = document.querySelector('#result_list, #staff-leaderboard');
  if (!table) return {cells: [], scroll: 0, missing: true};
  const cells = [...table.querySelectorAll('thead th')].map(
    (cell) => [cell.textContent.trim(), cell.getBoundingClientRect().right]);
  return {cells, scroll: document.documentElement.scrollWidth};
}"""


def test_key_columns_are_on_screen_at_1366(browser: Any, live_server: Any) -> None:
    owner = make_user("a.rather.long.address.for.a.player@example.com")
    Profile.objects.update_or_create(user=owner, defaults={"display_name": "A Long Display Name"})
    game = play(owner, new_game(owner, code=WON[0]["code"]), WON[0]["line"])
    daily_deal(datetime.date(2024, 6, 15), WON[1], seed=12345678901)
    winnable_deal(WON[2], seed=98765432109)
    App.objects.create(name="A third-party app with a long name", owner=owner, type="public")
    Challenge.objects.create(
        creator=owner, source_game=game, variant=game.variant, deal_code=game.deal_code
    )
    staff = make_user("staff.member@example.com", staff=True)
    staff_action_record(
        actor_id=staff.pk, target=game, action="looked at the game", reason="a long reason " * 8
    )
    assert LogEntry.objects.exists()
    client = Client()
    client.force_login(staff)
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    page = context.new_page()
    try:
        for name in PAGES:
            page.goto(live_server.url + reverse(name))
            measured = page.evaluate(MEASURE)
            assert not measured.get("missing"), name
            off_screen = [text for text, right in measured["cells"] if right > 1366]
            if off_screen or measured["scroll"] > 1366:
                shoot(page, f"admin-1366-{name.split(':')[1]}")
            assert off_screen == [], name
            assert measured["scroll"] <= 1366, name
    finally:
        context.close()
