"""Achievements awarded when a command wins a game, and rebuilt from the games by the command."""

from __future__ import annotations

import datetime
from typing import Any
from unittest import mock

import pytest
from django.core.management import call_command

from achievements import rules, services
from achievements.models import Achievement
from games.history import Command
from games.models import DailyDeal, Game, RankedDailyClaim
from games.services import DealChoice, game_create
from games.services import creation as services_creation
from stats.selectors import daily_leaderboard
from tests.achievements.conftest import daily_row
from tests.stats.conftest import (
    WON,
    Clock,
    as_command,
    ensure_daily_deal,
    make_user,
    new_game,
    resign,
    run,
    win,
)

pytestmark = pytest.mark.django_db


def held(user: Any) -> dict[str, tuple[Any, Any]]:
    return {
        code: (game_id, earned_at)
        for code, game_id, earned_at in Achievement.objects.filter(user=user).values_list(
            "code", "game_id", "earned_at"
        )
    }


def test_the_winning_command_awards_first_win_no_undo_and_the_variant() -> None:
    player = make_user("ann")
    lost = resign(new_game(player))
    assert held(player) == {}
    game = win(new_game(player))
    earned = held(player)
    assert set(earned) == {rules.FIRST_WIN, rules.NO_UNDO_WIN, "win_scorpion"}
    assert earned[rules.FIRST_WIN] == (game.pk, game.finished_at)
    assert lost.pk not in {game_id for game_id, _ in earned.values()}


def test_a_win_with_an_undo_is_no_no_undo_win_and_earns_once() -> None:
    player = make_user("ben")
    game = new_game(player)
    line = next(step for step in WON if step["code"] == game.deal_code)["line"]
    run(game, as_command(line[0]))
    run(game, Command("undo"))
    first = win(game)
    assert set(held(player)) == {rules.FIRST_WIN, "win_scorpion"}
    second = win(new_game(player))
    earned = held(player)
    assert earned[rules.FIRST_WIN][0] == first.pk  # earned once, by the first
    assert earned[rules.NO_UNDO_WIN][0] == second.pk


def test_games_of_a_known_deal_and_bots_games_earn_nothing() -> None:
    player = make_user("cat")
    first = resign(new_game(player, deal=WON[0]))
    again = game_create(owner=player, choice=DealChoice(mode="seeded", code=first.deal_code))
    assert again.known_deal
    win(again)
    assert held(player) == {}
    bot_game = new_game(player, deal=WON[1])
    Game.objects.filter(pk=bot_game.pk).update(app_kind="bot")
    win(bot_game)
    assert held(player) == {}


def test_a_hard_daily_win_and_a_seven_day_streak(clock: Clock) -> None:
    player = make_user("dan")
    start = clock.now.date()
    games = []
    for offset in range(7):
        day = start + datetime.timedelta(days=offset)
        clock.set(datetime.datetime.combine(day, datetime.time(9), tzinfo=datetime.UTC))
        ensure_daily_deal(day, WON[offset])  # a deal new to the player each day
        DailyDeal.objects.filter(date=day).update(difficulty_band="hard")
        games.append(win(game_create(owner=player, choice=DealChoice(mode="daily"))))
    earned = held(player)
    assert earned[rules.HARD_WIN][0] == games[0].pk
    assert earned[rules.DAILY_STREAK_7][0] == games[6].pk
    assert rules.DAILY_STREAK_30 not in earned


def test_the_rebuild_awards_past_games_what_the_rules_say() -> None:
    """An achievement added to the rules (here: every past one, the rows being gone) is
    awarded by the command to the past game that earned it, with its date."""
    player = make_user("eve")
    games = [win(new_game(player)) for _ in range(3)]
    before = held(player)
    Achievement.objects.all().delete()
    with mock.patch.object(rules, "HUNDRED", 3):  # "100 wins" counted on three
        call_command("rebuild_achievements")
    after = held(player)
    assert after == before | {rules.WINS_100: (games[2].pk, games[2].finished_at)}
    call_command("rebuild_achievements", "--user", player.email)  # idempotent
    assert held(player) == before


def test_the_rebuild_agrees_with_the_awards_as_games_finish() -> None:
    player = make_user("fay")
    for index in range(4):
        game = new_game(player, deal=WON[index % 2])
        if index == 1:
            resign(game)
        else:
            win(game)
    awarded = held(player)
    services.achievements_recompute(user=player)
    assert held(player) == awarded


def test_streak_days_count_games_begun_on_their_day_only() -> None:
    player = make_user("gus")
    day = datetime.date(2026, 1, 1)
    for offset in range(6):
        daily_row(player, day + datetime.timedelta(days=offset))
    # The seventh day won late: no streak day, so no week of dailies.
    daily_row(player, day + datetime.timedelta(days=6), begun=day + datetime.timedelta(days=9))
    services.achievements_recompute(user=player)
    assert rules.DAILY_STREAK_7 not in held(player)
    seventh = daily_row(player, day + datetime.timedelta(days=6))
    services.achievements_recompute(user=player)
    assert held(player)[rules.DAILY_STREAK_7][0] == seventh.pk


def test_rules_hundredth_win_and_thirty_days() -> None:
    win_ = rules.Win(variant="wasp", undo_count=2, difficulty="", streak_day=None)
    assert rules.earned_by(win_, held={rules.FIRST_WIN}, wins=100, streak=30) == [
        "win_wasp",
        rules.WINS_100,
        rules.DAILY_STREAK_7,
        rules.DAILY_STREAK_30,
    ]
    day = datetime.date(2026, 5, 10)
    days = {day + datetime.timedelta(days=n) for n in range(-3, 4)}
    assert rules.run_through(day, days) == 7
    assert rules.run_through(day - datetime.timedelta(days=5), days) == 0


def test_a_daily_asked_for_just_before_midnight_is_the_daily_of_the_day_it_begins(
    clock: Clock,
) -> None:
    """A game "begun on its day" is one created on it (the leaderboard, the streak days): a
    request that reads the date at 23:59:59 and creates the game after midnight (its deal
    certified on the spot takes seconds) makes the new day's daily, not a ranked attempt of
    the old day that could never rank nor be a streak day."""
    player = make_user("hal")
    eve = datetime.datetime(2026, 3, 14, 23, 59, 59, 900_000, tzinfo=datetime.UTC)
    day, next_day = eve.date(), eve.date() + datetime.timedelta(days=1)
    ensure_daily_deal(day, WON[0])
    ensure_daily_deal(next_day, WON[1])
    clock.set(eve)
    certify = services_creation.daily_deal_ensure

    def slow_certification(*, day: datetime.date) -> DailyDeal:
        deal = certify(day=day)
        clock.set(eve + datetime.timedelta(seconds=3))  # past midnight by now
        return deal

    with mock.patch.object(services_creation, "daily_deal_ensure", slow_certification):
        game = game_create(owner=player, choice=DealChoice(mode="daily"))
    assert game.ranked is True
    assert (game.daily_date, game.created_at.date()) == (next_day, next_day)
    win(game)
    assert services.streak_days(user_id=player.pk) == {next_day}
    assert daily_leaderboard(day=next_day, page=1, page_size=20, user=player).me is not None
    assert not RankedDailyClaim.objects.filter(day=day).exists()  # the old day's is still free
