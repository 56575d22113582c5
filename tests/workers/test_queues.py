"""The two queues on real Celery workers against real Redis and PostgreSQL (no eager mode):
the winning chances and the analyses go to ``hints`` and only its worker (docker-compose.yml
``worker-hints``) takes them; the default worker (``worker``) takes everything else; each
compose health check pings its own worker; each queue's worker records its own heartbeat, and
``workers_services.worker_available`` asks about the right one."""

from __future__ import annotations

import json
import subprocess
from contextlib import ExitStack
from typing import Any

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from games import services, tasks
from games.history import Command
from games.models import Game, GameAnalysis, GameChances
from games.services import chances as chances_services
from games.services import workers as workers_services
from infrastructure import liveness
from infrastructure.queues import DEFAULT_QUEUE, HINTS_QUEUE
from scorpion_site.celery import heartbeat
from tests.api.conftest import WON_DEAL
from tests.ops.compose import operator_shell, service_healthcheck
from tests.workers.harness import (
    ROOT,
    Process,
    compose_commands,
    process_env,
    running,
    wait_until,
)
from tests.workers.test_chances import START, new_game, play

# The same services, and a purged broker, as the liveness tests (autouse: used by its name).
from tests.workers.test_liveness import _services  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def broker() -> redis.Redis:
    return redis.Redis.from_url(str(settings.REDIS_URL))


def waiting(queue: str) -> int:
    return int(broker().llen(queue))


def ran(worker: Process, task: str, state: str = "succeeded") -> int:
    return sum(1 for line in worker.lines if f"{task}[" in line and state in line)


def start(stack: ExitStack, service: str) -> Process:
    command = compose_commands()[service]
    process: Process = stack.enter_context(
        running(service, command, process_env(str(settings.REDIS_URL)))
    )
    process.wait_for_output("ready.")
    return process


def passes_healthcheck(service: str) -> bool:
    """The service's compose health check, run here as the container's shell would."""
    check = service_healthcheck(service, operator_shell())
    env = process_env(str(settings.REDIS_URL))
    done = subprocess.run(check, shell=True, env=env, cwd=ROOT, capture_output=True, check=False)
    return done.returncode == 0


def send_heartbeats() -> None:
    """What beat sends every 30 s: each heartbeat entry of the schedule, as it is routed."""
    entries = [
        entry for entry in settings.CELERY_BEAT_SCHEDULE.values() if entry["task"] == heartbeat.name
    ]
    assert len(entries) == 2
    for entry in entries:
        heartbeat.apply_async(args=entry.get("args", ()), **entry.get("options", {}))


def workers_health() -> tuple[int, dict[str, Any]]:
    response = Client().get("/healthz/workers/")
    return response.status_code, json.loads(response.content)


def finished_game(name: str) -> tuple[User, Game]:
    """A game resigned after a few moves: ending it sends its analysis task, on commit."""
    owner, game = new_game(name)
    services.game_execute_command(owner=owner, game_id=game.pk, command=Command("resign"))
    return owner, game


def test_the_chances_and_analyses_go_to_the_hints_worker_and_nothing_else_does() -> None:
    _owner, game = new_game("router")
    with ExitStack() as stack:
        # Only the default worker runs: a chances task, and the analysis sent when a game
        # ended, sent before a default task stay queued while the default task, behind them
        # in time, is done.
        default = start(stack, "worker")
        # Each health check pings its own node: the default worker's answer is not the hints
        # worker's (a plain `inspect ping` would pass for both).
        assert passes_healthcheck("worker")
        assert not passes_healthcheck("worker-hints")
        assert tasks.enqueue(tasks.compute_chances, str(game.pk), START - 1)
        _resigner, finished = finished_game("resigner")
        assert tasks.enqueue(tasks.flush_hint_counts)
        wait_until(
            lambda: ran(default, "games.tasks.flush_hint_counts"),
            60,
            lambda: f"the default task did not run:\n{default.output[-3000:]}",
        )
        assert waiting(HINTS_QUEUE) == 2
        assert ran(default, "games.tasks.compute_chances", "received") == 0
        assert ran(default, "games.tasks.analyse_game", "received") == 0
        assert not GameAnalysis.objects.filter(game=finished).exists()

        # The hints worker takes them, and only it: a default task sent meanwhile is left to
        # the default worker.
        hints = start(stack, "worker-hints")
        assert passes_healthcheck("worker-hints")
        wait_until(
            lambda: (
                ran(hints, "games.tasks.compute_chances") and ran(hints, "games.tasks.analyse_game")
            ),
            120,
            lambda: f"the hints tasks did not run:\n{hints.output[-3000:]}",
        )
        assert GameAnalysis.objects.filter(game=finished).exists()
        assert waiting(HINTS_QUEUE) == 0
        assert tasks.enqueue(tasks.flush_hint_counts)
        wait_until(lambda: ran(default, "games.tasks.flush_hint_counts") == 2, 60)
        assert ran(hints, "games.tasks.flush_hint_counts", "received") == 0
        assert ran(default, "games.tasks.compute_chances", "received") == 0
        assert ran(default, "games.tasks.analyse_game", "received") == 0


def test_each_queue_s_worker_records_its_own_heartbeat_and_is_asked_about_its_own_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every version's chances to the worker once it is there: with the compiled solver, the
    # request's own 100 ms (CHANCES_REQUEST_MS) answers this position before any task is sent.
    monkeypatch.setattr(settings, "CHANCES_REQUEST_MS", 0)
    owner, game = new_game("waiter")
    liveness.record(key=liveness.BEAT_KEY, redis_url=settings.REDIS_URL)
    with ExitStack() as stack:
        start(stack, "worker")
        send_heartbeats()
        wait_until(lambda: broker().get(liveness.WORKER_KEY), 60, "no default heartbeat")
        assert waiting(HINTS_QUEUE) == 1  # the hints heartbeat waits for a worker of its own
        assert broker().get(liveness.HINTS_WORKER_KEY) is None
        assert workers_services.worker_available(DEFAULT_QUEUE)
        assert not workers_services.worker_available(HINTS_QUEUE)
        status_code, body = workers_health()
        assert status_code == 503
        assert body["worker"]["ok"] is True
        assert body["hints_worker"] == {"ok": False, "last_seen": None}
        # With no worker on hints, the chances are computed here and now, not queued.
        inline = services.game_chances_request(owner=owner, game_id=game.pk, show=True)
        assert inline.chances is not None
        assert inline.chances.samples == chances_services.INLINE_CHANCE_SAMPLES
        assert waiting(HINTS_QUEUE) == 1
        # Likewise an analysis (it goes on hints too): the task sent when the game ended waits
        # there, and the player's request does not answer "pending" for it but computes it.
        finisher, finished = finished_game("finisher")
        assert waiting(HINTS_QUEUE) == 2
        analysed = services.game_analysis_request(owner=finisher, game_id=finished.pk)
        assert analysed.analysis is not None

        start(stack, "worker-hints")
        send_heartbeats()
        wait_until(lambda: broker().get(liveness.HINTS_WORKER_KEY), 60, "no hints heartbeat")
        assert workers_services.worker_available(HINTS_QUEUE)
        status_code, body = workers_health()
        assert status_code == 200, body
        assert body["hints_worker"]["ok"] is True
        # Now the next version's chances are sent to the hints worker: pending, then stored.
        play(owner, game, WON_DEAL["line"][START])
        pending = services.game_chances_request(owner=owner, game_id=game.pk, show=True)
        assert pending.chances is None
        stored = wait_until(
            lambda: GameChances.objects.filter(game=game, version=START + 1).first(), 120
        )
        assert stored.samples == chances_services.CHANCE_SAMPLES
