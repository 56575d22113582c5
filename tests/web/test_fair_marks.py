"""The browser's history marks a bot's game (it never ranks) and a game of a known deal (it
sets no record): issue 25, findings 6 and 7."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from accounts.models import AppKind
from games.models import Game
from games.variants import deal_state
from tests.accounts.conftest import register
from tests.api.conftest import _waiting_for_table_locks
from tests.data import DEALS
from tests.web.conftest import DESKTOP
from tests.web.test_play import expect, sign_up, watch_errors

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("web_settings"),
]


def test_the_history_marks_bots_games_and_known_deals(browser: Any, live_server: Any) -> None:
    bot = register(name="Solver 9000", kind=AppKind.BOT)
    base = live_server.url
    page = browser.new_context(viewport=DESKTOP).new_page()
    errors = watch_errors(page)
    address = sign_up(page, base)
    page.goto(base + "/history/")
    owner = User.objects.get(email=address)
    code = DEALS["won"][0]["code"]

    def finished_game(**fields: Any) -> Game:
        # SQLite's shared test database: wait out a table the live server's requests hold.
        return _waiting_for_table_locks(  # type: ignore[no-any-return]
            lambda: Game.objects.create(
                owner=owner,
                mode="seeded",
                deal_code=code,
                state=deal_state(code, "scorpion").to_dict(),
                status="resigned",
                finished_at=timezone.now(),
                **fields,
            )
        )

    by_bot = finished_game(app=bot.client, app_kind=AppKind.BOT)
    known = finished_game(known_deal=True)

    page.reload()
    expect(page.locator(f'li[data-game-id="{by_bot.pk}"]')).to_contain_text(
        "played by a bot (Solver 9000)"
    )
    expect(page.locator(f'li[data-game-id="{known.pk}"]')).to_contain_text("known deal")
    assert not errors, errors
