"""Winning chances on a real Celery worker against real Redis and PostgreSQL (no eager mode):
computed in the background by the hints queue's worker (docker-compose.yml ``worker-hints``),
coalesced per game (one task queued, the latest version wins), served once ready and counted
as one hint."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection

from games import services, tasks
from games.engine.cards import parse_card
from games.history import Command
from games.models import Game, GameChances, GameMode
from games.services import chances as chances_services
from games.services import workers as workers_services
from infrastructure.queues import HINTS_QUEUE
from scorpion_site.celery import app as celery_app
from tests.api.conftest import WON_DEAL
from tests.conftest import require_service
from tests.workers.harness import Process, compose_commands, process_env, running, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]

# Ten moves along the winning line: a position whose 200 samples take a fraction of a second.
START = 10


@pytest.fixture(autouse=True)
def _services(monkeypatch: pytest.MonkeyPatch) -> None:
    require_service("PostgreSQL", connection.vendor == "postgresql")
    require_service("Redis", bool(settings.REDIS_URL))
    celery_app.control.purge()
    cache.clear()
    # No beat runs here to report the worker alive; the hints worker below is (chances ask
    # about the hints queue only: asked about another, this says no and they run inline).
    monkeypatch.setattr(workers_services, "worker_available", lambda queue: queue == HINTS_QUEUE)
    # These positions are cheap, so a request would answer them itself (tests/api/
    # test_chances.py); here the request gives up at once and the worker computes them.
    monkeypatch.setattr(settings, "CHANCES_REQUEST_MS", 0)


@pytest.fixture
def worker() -> Iterator[Process]:
    command = compose_commands()["worker-hints"]
    with running("worker-hints", command, process_env(str(settings.REDIS_URL))) as process:
        process.wait_for_output("ready.")
        yield process


def new_game(name: str, moves: int = START) -> tuple[User, Game]:
    owner = User.objects.create_user(name, f"{name}@example.com", "a long password 42")
    game = services.game_create(
        owner=owner, choice=services.DealChoice(mode=GameMode.SEEDED, code=WON_DEAL["code"])
    )
    for step in WON_DEAL["line"][:moves]:
        play(owner, game, step)
    return owner, game


def play(owner: User, game: Game, step: dict[str, object]) -> None:
    command = (
        Command("deal")
        if step["type"] == "deal"
        else Command("move", parse_card(step["card"]), step["to"])  # type: ignore[arg-type]
    )
    services.game_execute_command(owner=owner, game_id=game.pk, command=command)


def ran(worker: Process) -> int:
    return sum(
        1 for line in worker.lines if "games.tasks.compute_chances[" in line and "received" in line
    )


def test_chances_are_pending_then_served_by_the_worker_and_counted_once(worker: Process) -> None:
    owner, game = new_game("chancer")
    first = services.game_chances_request(owner=owner, game_id=game.pk, show=True)
    assert first.chances is None  # pending: the worker is on it
    stored = wait_until(
        lambda: GameChances.objects.filter(game=game, version=START).first(),
        120,
        lambda: f"no chances; worker said:\n{worker.output[-3000:]}",
    )
    assert stored.samples == chances_services.CHANCE_SAMPLES
    assert all(entry["samples"] == chances_services.CHANCE_SAMPLES for entry in stored.actions)
    assert Game.objects.get(pk=game.pk).hint_count == 0  # pending answers count nothing
    for _ in range(3):
        served = services.game_chances_request(owner=owner, game_id=game.pk, show=True)
        assert served.chances is not None
        assert served.chances.actions == stored.actions
    assert Game.objects.get(pk=game.pk).hint_count == 1
    assert ran(worker) == 1


def test_requests_at_successive_versions_coalesce_and_the_latest_wins() -> None:
    # The player pauses at four versions in a row before any worker takes a task: one task
    # is queued, not four; it finds its version stale, exits, and sends one for the latest.
    owner, game = new_game("pauser")
    for step in WON_DEAL["line"][START : START + 3]:
        answer = services.game_chances_request(owner=owner, game_id=game.pk, show=False)
        assert answer.chances is None
        play(owner, game, step)
    latest = START + 3
    assert services.game_chances_request(owner=owner, game_id=game.pk, show=False).chances is None
    command = compose_commands()["worker-hints"]
    with running("worker-hints", command, process_env(str(settings.REDIS_URL))) as worker:
        wait_until(
            lambda: GameChances.objects.filter(game=game, version=latest).exists(),
            120,
            lambda: f"the latest version was not computed; worker said:\n{worker.output[-3000:]}",
        )
        assert ran(worker) == 2
    assert list(GameChances.objects.filter(game=game).values_list("version", flat=True)) == [latest]


def test_a_task_for_an_older_version_exits_without_computing(worker: Process) -> None:
    _owner, game = new_game("mover")
    assert tasks.enqueue(tasks.compute_chances, str(game.pk), START - 1)
    wait_until(
        lambda: any(
            "games.tasks.compute_chances[" in line and "succeeded" in line for line in worker.lines
        ),
        60,
        lambda: f"the task did not run; worker said:\n{worker.output[-3000:]}",
    )
    assert not GameChances.objects.filter(game=game).exists()
