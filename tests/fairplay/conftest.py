"""Helpers for the fair-play tests: ranked dailies played through the API from a given address,
at a given pace, under the statistics tests' clock."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from games.models import DailyDeal, Game
from tests.api.conftest import Player, make_player, player  # noqa: F401  (fixtures)
from tests.stats.conftest import WON, Clock, clock  # noqa: F401  (the fixture)

CODE = WON[0]["code"]
LINE: list[dict[str, Any]] = WON[0]["line"]
OTHER_LINE: list[dict[str, Any]] = WON[1]["line"]

# Seconds between commands: a person's irregular pace, and a bot's.
HUMAN_GAPS = (2.4, 1.1, 3.8, 0.9, 5.2, 1.7, 2.9, 1.3, 7.5, 2.2, 1.6, 4.1)
BOT_GAPS = (0.2,)


def today_deal(timer: Clock, *, certificate: Sequence[dict[str, Any]] = LINE) -> DailyDeal:
    """Today's daily is WON[0]'s deal; ``certificate`` is the solver's line the service knows
    (another deal's line stands for a solver's line the player did not follow)."""
    deal, _ = DailyDeal.objects.get_or_create(
        date=timer.now.date(),
        defaults={"seed": 7, "candidate": 0, "deal_code": CODE, "certificate": list(certificate)},
    )
    return deal


def play_daily(
    who: Player, timer: Clock, *, gaps: Sequence[float], address: str = "203.0.113.7"
) -> Game:
    """Start today's daily from ``address`` and win it by LINE, waiting ``gaps`` (cycled)
    between commands."""
    response = who.client.post(
        "/api/v1/games/", {"mode": "daily"}, format="json", REMOTE_ADDR=address
    )
    assert response.status_code == 201, response.content
    game_id = response.json()["id"]
    pace: Iterator[float] = itertools.cycle(gaps)
    for step in LINE:
        timer.advance(seconds=next(pace))
        answer = who.command(game_id, step)
        assert answer.status_code == 200, answer.content
    game = Game.objects.get(pk=game_id)
    assert game.status == "won"
    assert game.ranked
    return game


@pytest.fixture
def daily(clock: Clock) -> Callable[..., Game]:  # noqa: F811  (the imported fixture)
    today_deal(clock)

    def play(who: Player, **kwargs: Any) -> Game:
        return play_daily(who, clock, **kwargs)

    return play
