"""Helpers for the staff-side tests: players, games played through the services, a fixed clock
and certified deals from tests/data/deals.json (so no test runs the solver)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games import services
from games.engine.cards import parse_card
from games.history import Command
from games.models import DailyDeal, Game, WinnableDeal
from games.services import DealChoice
from games.services import certification as certification_services
from tests.data import DEALS

WON: list[dict[str, Any]] = DEALS["won"]

# A fixed "now" in the past: sessions created before the clock is patched stay valid.
NOW = datetime.datetime(2024, 6, 15, 12, 0, tzinfo=datetime.UTC)
TODAY = NOW.date()


def as_command(step: dict[str, Any]) -> Command:
    if step["type"] == "move":
        return Command("move", parse_card(step["card"]), step.get("to"))
    return Command(step["type"])


def make_user(email: str, *, staff: bool = False) -> User:
    return User.objects.create_user(
        username=email, email=email, password="pw", is_staff=staff, is_superuser=staff
    )


def play(owner: User, game: Game, steps: list[dict[str, Any]]) -> Game:
    for step in steps:
        services.game_execute_command(owner=owner, game_id=game.pk, command=as_command(step))
    game.refresh_from_db()
    return game


def new_game(owner: User, *, mode: str = "seeded", code: str | None = None) -> Game:
    if mode in ("seeded",):
        return services.game_create(owner=owner, choice=DealChoice(mode=mode, code=code))
    return services.game_create(owner=owner, choice=DealChoice(mode=mode))


def won_game(owner: User, deal: dict[str, Any], *, mode: str = "seeded") -> Game:
    """A game won by ``deal``'s line; in winnable mode the pool deal is drawn at random, so the
    game is won by the certificate of whichever deal it got."""
    game = new_game(owner, mode=mode, code=deal["code"] if mode == "seeded" else None)
    line = deal["line"]
    if mode == "winnable":
        line = WinnableDeal.objects.get(deal_code=game.deal_code).certificate
    game = play(owner, game, line)
    assert game.status == "won", game.status
    return game


def move_to(game: Game, when: datetime.datetime, **extra: Any) -> None:
    """Pretend the game was created (and, if over, finished) at ``when``."""
    changes: dict[str, Any] = {"created_at": when, "updated_at": when, **extra}
    if game.started_at is not None:
        changes["started_at"] = when
    if game.finished_at is not None:
        changes["finished_at"] = when
    Game.objects.filter(pk=game.pk).update(**changes)
    game.refresh_from_db()


def daily_deal(day: datetime.date, deal: dict[str, Any], seed: int = 1) -> DailyDeal:
    return DailyDeal.objects.create(
        date=day, seed=seed, candidate=0, deal_code=deal["code"], certificate=deal["line"]
    )


def winnable_deal(deal: dict[str, Any], seed: int) -> WinnableDeal:
    return WinnableDeal.objects.create(seed=seed, deal_code=deal["code"], certificate=deal["line"])


@dataclass
class Clock:
    now: datetime.datetime


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Freeze ``django.utils.timezone.now`` (services, auto_now fields and views all use it)."""
    from django.utils import timezone

    current = Clock(NOW)
    monkeypatch.setattr(timezone, "now", lambda: current.now)
    return current


@pytest.fixture
def player_client(db: None) -> Client:
    client = Client()
    client.force_login(make_user("plain@example.com"))
    return client


@dataclass
class FakeSolution:
    line: list[dict[str, Any]]
    nodes: int = 123
    seconds: float = 0.5
    verdict: str = "won"

    @property
    def won(self) -> bool:  # as games.engine.solver.Solution (the difficulty rating reads it)
        return self.verdict == "won"


@pytest.fixture
def fake_solver(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """Every deal is certified at once, with a recognisable line."""

    def certify(deal_code: str, *, node_budget: int) -> FakeSolution:
        return FakeSolution(line=[{"type": "deal"}])

    monkeypatch.setattr(certification_services, "_certify", certify)
    return certify


@pytest.fixture(autouse=True)
def _plain_static_storage(settings: Any) -> None:
    """The admin's templates use {% static %}; tests do not run collectstatic, so the
    manifest storage of production settings has no manifest to read."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
