"""Wins of one address and day committing at once count each other (real threads,
PostgreSQL): three accounts are flagged however their last moves interleave."""

from __future__ import annotations

import pytest
from django.utils import timezone

from fairplay import signals
from fairplay.models import FairPlayReview
from games import services
from games.models import Game
from games.services import CommandResult, DealChoice
from tests.api.test_event_store import postgres, race  # noqa: F401  (a fixture)
from tests.stats.conftest import as_command, ensure_daily_deal, line_of, make_user, run


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres")
def test_two_wins_of_one_address_at_once_see_each_other() -> None:
    ensure_daily_deal(timezone.now().date())
    for round_ in range(4):
        address = f"{round_:032x}"
        games: list[Game] = []
        for number in range(3):
            owner = make_user(f"r{round_}n{number}")
            game = services.game_create(
                owner=owner, choice=DealChoice(mode="daily"), address_hash=address
            )
            assert game.ranked
            for action in line_of(game)[:-1]:
                run(game, as_command(action))
            games.append(game)
        first, *racing = games
        run(first, as_command(line_of(first)[-1]))

        results = race([lambda g=g: run(g, as_command(line_of(g)[-1])) for g in racing])

        assert all(isinstance(result, CommandResult) for result in results), results
        for game in games:
            found = FairPlayReview.objects.get(game=game)
            assert signals.SHARED_ADDRESS in found.signals, (round_, found.measures)
