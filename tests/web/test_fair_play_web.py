"""The browser tells a player that staff hid their ranked win from the leaderboard, and why:
on the daily page in place of their rank, and on their history; a restored win ranks again."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from games import services
from games.models import Game
from games.variants import deal_state
from tests.api.conftest import Player, _waiting_for_table_locks
from tests.data import DEALS
from tests.web.test_layout import log_in, player  # noqa: F401  (a fixture)
from tests.web.test_play import expect

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]

REASON = "Moves faster than any person plays"


def test_a_hidden_win_says_why_on_the_daily_page_and_the_history(
    browser: Any,
    live_server: Any,
    player: Player,  # noqa: F811
) -> None:
    owner = User.objects.get(email=player.email)
    staff = User.objects.create_user("mod", "mod@example.com", "pw", is_staff=True)
    code = DEALS["won"][0]["code"]
    now = timezone.now()
    game = Game.objects.create(
        owner=owner,
        mode="daily",
        daily_date=now.date(),
        ranked=True,
        deal_code=code,
        state=deal_state(code, "scorpion").to_dict(),
        status="won",
        moves=50,
        started_at=now - datetime.timedelta(seconds=90),
        finished_at=now,
    )
    services.leaderboard_result_hide(game_id=game.pk, by=staff.pk, reason=REASON)

    page = log_in(browser, live_server.url, player, (1366, 768))
    page.goto(live_server.url + "/daily/")
    expect(page.locator("#my-rank")).to_have_text(
        f"Your win was hidden from the leaderboard by staff: {REASON}"
    )
    expect(page.locator("#leaderboard")).to_contain_text("No winner yet")
    page.goto(live_server.url + "/history/")
    expect(page.locator(f'li[data-game-id="{game.pk}"]')).to_contain_text(
        f"hidden from the leaderboard: {REASON}"
    )

    _waiting_for_table_locks(
        lambda: services.leaderboard_result_restore(game_id=game.pk, by=staff.pk, reason="ok")
    )
    page.goto(live_server.url + "/daily/")
    expect(page.locator("#my-rank")).to_contain_text("#1")
    page.context.close()
