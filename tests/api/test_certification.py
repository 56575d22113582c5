"""Certified deals: the daily challenge and the winnable pool, as services (no worker)."""

from __future__ import annotations

import datetime
import hashlib
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test import override_settings

from games import services
from games.engine.actions import Deal
from games.engine.cards import parse_card, parse_deal_code
from games.engine.deals import SEED_LIMIT, daily_seed, deal_code_for_seed
from games.engine.legal import status
from games.engine.position import initial_position
from games.engine.resolve import resolve_move
from games.engine.solver import solve
from games.engine.transitions import play
from games.models import DailyDeal, WinnableDeal
from games.services import CertificationError, DealChoice
from tests.api.conftest import DEALS
from tests.api.test_event_store import race
from tests.conftest import require_service

pytestmark = pytest.mark.django_db

DAY = datetime.date(2031, 3, 14)


def assert_certificate_wins(deal_code: str, line: list[dict[str, Any]]) -> None:
    position = initial_position(parse_deal_code(deal_code))
    for step in line:
        if step["type"] == "deal":
            position, _ = play(position, Deal())
        else:
            position, _ = play(
                position, resolve_move(position, parse_card(step["card"]), step.get("to"))
            )
    assert status(position) == "won"


def secret() -> bytes:
    return str(settings.DAILY_DEAL_SECRET).encode()


def test_daily_deal_is_the_first_candidate_of_the_date_the_solver_proves_winnable() -> None:
    deal = services.daily_deal_ensure(day=DAY)
    assert deal.generation == 0
    assert deal.seed == daily_seed(DAY, deal.candidate, secret=secret())
    assert deal.deal_code == deal_code_for_seed(deal.seed)
    assert_certificate_wins(deal.deal_code, deal.certificate)
    for earlier in range(deal.candidate):
        code = deal_code_for_seed(daily_seed(DAY, earlier, secret=secret()))
        verdict = solve(
            parse_deal_code(code), node_budget=services.DAILY_NODE_BUDGET, time_budget=None
        ).verdict
        assert verdict != "won"


def test_the_daily_deal_depends_on_the_secret_and_not_on_the_date_alone() -> None:
    # Before: a public SHA-256 of the date, which anyone could compute for any day ahead.
    public = {
        deal_code_for_seed(
            int.from_bytes(hashlib.sha256(f"scorpion-daily:{DAY}:{n}".encode()).digest()[:8], "big")
            & (SEED_LIMIT - 1)
        )
        for n in range(50)
    }
    deal = services.daily_deal_ensure(day=DAY)
    assert deal.deal_code not in public
    wrong = b"a wrong daily-deal secret, as an attacker would guess"
    guesses = {
        deal_code_for_seed(daily_seed(DAY, n, secret=wrong, generation=g))
        for g in range(3)
        for n in range(50)
    }
    assert deal.deal_code not in guesses


def test_another_secret_derives_another_daily_deal() -> None:
    ours = services.daily_deal_ensure(day=DAY)
    DailyDeal.objects.all().delete()
    with override_settings(DAILY_DEAL_SECRET="another deployment's daily secret, 32+ chars"):
        theirs = services.daily_deal_ensure(day=DAY)
    assert theirs.deal_code != ours.deal_code
    assert theirs.seed != ours.seed


def test_daily_deal_ensure_is_idempotent() -> None:
    first = services.daily_deal_ensure(day=DAY)
    again = services.daily_deal_ensure(day=DAY)
    assert again.pk == first.pk
    assert DailyDeal.objects.count() == 1


def test_deals_are_certified_for_today_and_the_days_ahead() -> None:
    deals = services.daily_deals_ensure_ahead(today=DAY, days_ahead=7)
    assert [d.date for d in deals] == [DAY + datetime.timedelta(days=i) for i in range(8)]
    assert DailyDeal.objects.count() == 8


def test_only_future_daily_deals_can_be_regenerated() -> None:
    services.daily_deal_ensure(day=DAY)
    with pytest.raises(CertificationError):
        services.daily_deal_regenerate(day=DAY, today=DAY)
    tomorrow = DAY + datetime.timedelta(days=1)
    services.daily_deal_ensure(day=tomorrow)
    regenerated = services.daily_deal_regenerate(day=tomorrow, today=DAY)
    assert regenerated.date == tomorrow
    assert_certificate_wins(regenerated.deal_code, regenerated.certificate)


def test_regenerating_really_gives_the_day_another_deal_every_time() -> None:
    # Before: the row was deleted and the day derived again from the date alone, which gave
    # the very same deal back.
    tomorrow = DAY + datetime.timedelta(days=1)
    seen = [services.daily_deal_ensure(day=tomorrow)]
    for generation in (1, 2):
        deal = services.daily_deal_regenerate(day=tomorrow, today=DAY)
        assert deal.generation == generation
        assert deal.seed == daily_seed(
            tomorrow, deal.candidate, secret=secret(), generation=generation
        )
        assert deal.deal_code not in {earlier.deal_code for earlier in seen}
        assert_certificate_wins(deal.deal_code, deal.certificate)
        seen.append(deal)
    stored = DailyDeal.objects.get(date=tomorrow)
    assert (stored.generation, stored.deal_code) == (2, seen[-1].deal_code)
    # Every process derives the regenerated deal from the stored generation: ensure keeps it.
    assert services.daily_deal_ensure(day=tomorrow).deal_code == seen[-1].deal_code


def test_daily_game_created_on_demand_when_no_worker_prepared_it() -> None:
    owner = User.objects.create_user("early", "early@example.com", "pw")
    assert not DailyDeal.objects.exists()
    game = services.game_create(owner=owner, choice=DealChoice(mode="daily"))
    deal = DailyDeal.objects.get()
    assert game.deal_code == deal.deal_code
    assert game.daily_date == deal.date


def test_pool_top_up_adds_certified_deals_up_to_the_target() -> None:
    # The target is per difficulty band (tests/api/test_difficulty.py): at most max_new a call.
    added = services.winnable_pool_top_up(target=2, max_new=3)
    assert added == 3
    assert WinnableDeal.objects.count() == 3
    for deal in WinnableDeal.objects.all():
        assert_certificate_wins(deal.deal_code, deal.certificate)
    services.winnable_pool_top_up(target=2, max_new=100)
    assert services.winnable_pool_top_up(target=2, max_new=5) == 0


def test_winnable_mode_never_runs_dry() -> None:
    owner = User.objects.create_user("keen", "keen@example.com", "pw")
    WinnableDeal.objects.create(
        seed=1, deal_code=DEALS["won"][0]["code"], certificate=DEALS["won"][0]["line"]
    )
    first = services.game_create(owner=owner, choice=DealChoice(mode="winnable"))
    second = services.game_create(owner=owner, choice=DealChoice(mode="winnable"))
    assert first.deal_code != second.deal_code
    assert WinnableDeal.objects.count() == 2  # the second was certified on the spot
    fresh = WinnableDeal.objects.get(deal_code=second.deal_code)
    assert_certificate_wins(fresh.deal_code, fresh.certificate)


def pool_of(count: int) -> list[str]:
    codes = []
    for seed in range(count):
        code = deal_code_for_seed(seed)
        WinnableDeal.objects.create(seed=seed, deal_code=code, certificate=[])
        codes.append(code)
    return codes


def test_winnable_deals_are_not_drawn_in_the_same_order_for_every_account() -> None:
    # Before: every account drew the pool in id order, so one account's first deal (shown
    # once its game ended) was every other account's first deal too.
    pool = pool_of(10)
    firsts = set()
    for n in range(12):
        owner = User.objects.create_user(f"p{n}", f"p{n}@example.com", "pw")
        firsts.add(services.winnable_deal_draw(owner=owner).deal_code)
    # All 12 the same by chance: probability 10**-11.
    assert len(firsts) > 1
    assert firsts <= set(pool)


def test_a_player_draws_every_pool_deal_once_before_any_is_certified_for_them() -> None:
    pool = pool_of(6)
    owner = User.objects.create_user("all", "all@example.com", "pw")
    drawn = [
        services.game_create(owner=owner, choice=DealChoice(mode="winnable")).deal_code
        for _ in range(6)
    ]
    assert sorted(drawn) == sorted(pool)
    assert WinnableDeal.objects.count() == 6


@pytest.mark.django_db(transaction=True)
def test_racing_processes_agree_on_the_daily_deal() -> None:
    require_service("PostgreSQL", connection.vendor == "postgresql")
    results = race([lambda: services.daily_deal_ensure(day=DAY) for _ in range(3)])
    assert all(isinstance(r, DailyDeal) for r in results), results
    assert len({r.pk for r in results}) == 1
    assert DailyDeal.objects.count() == 1
