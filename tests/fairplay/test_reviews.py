"""A won ranked daily is reviewed in the command that wins it: the signals raised by a bot's
pace, a replayed solver line, several accounts of one address, a bot app; none for an honest
game, nor for a game that does not rank."""

from __future__ import annotations

import datetime
import io
from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.models import AppKind
from fairplay import services, signals
from fairplay.models import FairPlayReview
from games import services as game_services
from games.models import Game, GameEvent
from players.services import account_data_delete
from tests.api.conftest import Player
from tests.fairplay.conftest import (
    BOT_GAPS,
    HUMAN_GAPS,
    LINE,
    OTHER_LINE,
    play_daily,
    today_deal,
)
from tests.stats.conftest import Clock

pytestmark = pytest.mark.django_db


def review(game: Game) -> FairPlayReview:
    return FairPlayReview.objects.get(game=game)


def test_a_bot_paced_win_raises_the_timing_signals(
    daily: Callable[..., Game], player: Player
) -> None:
    found = review(daily(player, gaps=BOT_GAPS))
    assert signals.FAST_MOVES in found.signals
    assert signals.REGULAR_TIMING in found.signals
    assert found.flagged
    assert found.measures["median_seconds"] == pytest.approx(0.2)


def test_replaying_the_solvers_line_raises_the_solver_line_signal(
    daily: Callable[..., Game], player: Player
) -> None:
    # Today's certificate is the very line the player wins by.
    found = review(daily(player, gaps=HUMAN_GAPS))
    assert found.signals == [signals.SOLVER_LINE]
    assert found.measures["solver_line_share"] == 1.0


def test_an_honest_win_raises_nothing(clock: Clock, player: Player) -> None:
    today_deal(clock, certificate=OTHER_LINE)  # the solver found another line
    found = review(play_daily(player, clock, gaps=HUMAN_GAPS))
    assert found.signals == []
    assert not found.flagged
    assert found.measures["address_accounts"] == 1


def test_three_accounts_winning_from_one_address_are_all_flagged(
    clock: Clock, make_player: Callable[[], Player]
) -> None:
    today_deal(clock, certificate=OTHER_LINE)
    first, second = (
        play_daily(make_player(), clock, gaps=HUMAN_GAPS, address="198.51.100.4") for _ in range(2)
    )
    elsewhere = play_daily(make_player(), clock, gaps=HUMAN_GAPS, address="192.0.2.9")
    assert review(first).signals == review(second).signals == []
    third = play_daily(make_player(), clock, gaps=HUMAN_GAPS, address="198.51.100.4")
    for game in (first, second, third):
        assert review(game).signals == [signals.SHARED_ADDRESS], game
    assert review(elsewhere).signals == []
    # Only a hash of the address is kept.
    assert Game.objects.filter(client_address_hash__contains="198.51").count() == 0
    assert len({Game.objects.get(pk=g.pk).client_address_hash for g in (first, third)}) == 1


def test_a_bot_apps_win_raises_the_bot_signal(clock: Clock, player: Player) -> None:
    today_deal(clock, certificate=OTHER_LINE)
    game = play_daily(player, clock, gaps=HUMAN_GAPS)
    Game.objects.filter(pk=game.pk).update(app_kind=AppKind.BOT)  # as staff marking its app
    game.refresh_from_db()
    assert services.review_compute(game=game).signals == [signals.BOT_APP]


def test_a_practice_attempt_is_not_reviewed(
    daily: Callable[..., Game], clock: Clock, player: Player
) -> None:
    daily(player, gaps=HUMAN_GAPS)
    again = player.new_game(mode="daily")  # a second attempt of the day: practice
    assert again["ranked"] is False
    for step in LINE:
        clock.advance(seconds=0.1)
        assert player.command(again["id"], step).status_code == 200
    user = User.objects.get(email=player.email)
    assert Game.objects.filter(owner=user, status="won").count() == 2
    assert FairPlayReview.objects.filter(game__owner=user).count() == 1


def test_rebuild_reviews_every_ranked_win_again(daily: Callable[..., Game], player: Player) -> None:
    game = daily(player, gaps=BOT_GAPS)
    FairPlayReview.objects.all().delete()
    out = io.StringIO()

    call_command("rebuild_fair_play", stdout=out)

    assert "Reviewed 1 ranked daily win(s)." in out.getvalue()
    assert signals.FAST_MOVES in review(game).signals


def test_a_players_deleted_data_takes_their_reviews(
    daily: Callable[..., Game], player: Player
) -> None:
    daily(player, gaps=BOT_GAPS)
    user = User.objects.get(email=player.email)
    account_data_delete(user=user)
    assert not FairPlayReview.objects.exists()


def test_a_rebuild_reviews_an_archived_win_from_its_archive(
    daily: Callable[..., Game], player: Player, archive_dir: Path
) -> None:
    game = daily(player, gaps=BOT_GAPS)
    before = review(game)
    Game.objects.filter(pk=game.pk).update(
        finished_at=timezone.now() - datetime.timedelta(days=400)
    )
    run = game_services.game_logs_archive(
        finished_before=timezone.now() - datetime.timedelta(days=90), limit=10
    )
    assert run.archived == 1
    assert not GameEvent.objects.filter(game=game).exists()  # the log is in its file now

    call_command("rebuild_fair_play", stdout=io.StringIO())

    after = review(game)
    assert after.signals == before.signals
    assert after.measures == before.measures


def test_a_rebuild_goes_on_past_a_win_whose_archive_cannot_be_read(
    daily: Callable[..., Game], make_player: Callable[[], Player], archive_dir: Path
) -> None:
    games = [
        daily(make_player(), gaps=BOT_GAPS, address=address)
        for address in ("203.0.113.7", "198.51.100.9")
    ]
    Game.objects.filter(pk__in=[game.pk for game in games]).update(
        finished_at=timezone.now() - datetime.timedelta(days=400)
    )
    run = game_services.game_logs_archive(
        finished_before=timezone.now() - datetime.timedelta(days=90), limit=10
    )
    assert run.archived == 2
    broken, readable = (Game.objects.get(pk=game.pk) for game in games)
    (archive_dir / broken.archive_name).unlink()
    long_ago = timezone.now() - datetime.timedelta(days=30)
    FairPlayReview.objects.update(computed_at=long_ago)
    out = io.StringIO()

    with pytest.raises(CommandError, match=str(broken.pk)):
        call_command("rebuild_fair_play", stdout=out)

    assert "Reviewed 1 ranked daily win(s)." in out.getvalue()
    assert review(readable).computed_at > long_ago
    # The review of the unreadable one is kept as it was, signals and all, not dropped.
    kept = review(broken)
    assert kept.computed_at == long_ago
    assert signals.FAST_MOVES in kept.signals
