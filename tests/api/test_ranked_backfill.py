"""Migration 0005 marks each player's first daily game of a day as the ranked attempt, so the
leaderboards of days played before it keep the games they counted."""

from __future__ import annotations

import datetime
import importlib

import pytest
from django.apps import apps
from django.contrib.auth.models import User

from games.models import Game
from tests.api.conftest import WON_DEAL

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 3, 14)
migration = importlib.import_module("games.migrations.0005_daily_secrecy")


def daily(owner: User, created: datetime.datetime, day: datetime.date = DAY) -> Game:
    game = Game.objects.create(
        owner=owner, mode="daily", daily_date=day, deal_code=WON_DEAL["code"], state={}
    )
    Game.objects.filter(pk=game.pk).update(created_at=created)
    return game


def at(day: datetime.date, hour: int) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time(hour), tzinfo=datetime.UTC)


def test_the_first_daily_game_begun_on_its_day_becomes_the_ranked_attempt() -> None:
    a = User.objects.create_user("a", "a@example.com", "pw")
    b = User.objects.create_user("b", "b@example.com", "pw")
    later_day = DAY + datetime.timedelta(days=1)
    a_first = daily(a, at(DAY, 9))
    a_second = daily(a, at(DAY, 10))
    a_next_day = daily(a, at(later_day, 8), later_day)
    b_restart_later = daily(b, at(later_day, 9))  # DAY's deal begun the next day: no rank
    other = Game.objects.create(owner=a, mode="random", deal_code=WON_DEAL["code"], state={})

    migration.mark_first_attempts_ranked(apps, None)

    ranked = set(Game.objects.filter(ranked=True).values_list("pk", flat=True))
    assert ranked == {a_first.pk, a_next_day.pk}
    assert not {a_second.pk, b_restart_later.pk, other.pk} & ranked
