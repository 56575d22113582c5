"""Celery on a real worker process against real Redis and PostgreSQL; no eager mode.

Also the process commands of docker-compose.yml (web, worker, beat), run natively, and the
faults: Redis stopped while playing, a worker killed in the middle of a task. And beat's archive
task, which moves an old finished game's log to the directory the worker was given.
"""

from __future__ import annotations

import datetime
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from games import selectors, services, tasks
from games.engine.actions import Deal as DealAction
from games.engine.cards import parse_card, parse_deal_code
from games.engine.legal import status
from games.engine.position import initial_position
from games.engine.resolve import resolve_move
from games.engine.transitions import play
from games.history import Command
from games.models import DailyDeal, Game, GameAnalysis, GameEvent, GameMode, WinnableDeal
from scorpion_site.celery import app as celery_app
from tests.api.conftest import WON_DEAL
from tests.conftest import require_service
from tests.workers.harness import (
    Process,
    compose_commands,
    free_port,
    private_redis,
    process_env,
    running,
    wait_for_http,
    wait_until,
    web_command,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


@pytest.fixture(autouse=True)
def _services() -> None:
    require_service("PostgreSQL", connection.vendor == "postgresql")
    require_service("Redis", bool(settings.REDIS_URL))
    # Tasks enqueued by earlier tests (no worker ran them) refer to rows that are gone.
    celery_app.control.purge()


def assert_certificate_wins(deal_code: str, line: list[dict[str, Any]]) -> None:
    position = initial_position(parse_deal_code(deal_code))
    for step in line:
        if step["type"] == "deal":
            position, _ = play(position, DealAction())
        else:
            move = resolve_move(position, parse_card(step["card"]), step.get("to"))
            position, _ = play(position, move)
    assert status(position) == "won"


def started(service: str) -> Iterator[Process]:
    """A worker service of docker-compose.yml, running and ready."""
    command = compose_commands()[service]
    with running(service, command, process_env(str(settings.REDIS_URL))) as process:
        process.wait_for_output("ready.")
        yield process


@pytest.fixture
def worker() -> Iterator[Process]:
    yield from started("worker")


@pytest.fixture
def hints_worker() -> Iterator[Process]:
    """The hints queue's worker: the analyses go there (infrastructure/queues.py)."""
    yield from started("worker-hints")


def test_worker_certifies_a_daily_deal(worker: Process) -> None:
    day = datetime.date(2030, 1, 1)
    assert tasks.enqueue(tasks.certify_daily_deal, day.isoformat())
    deal = wait_until(
        lambda: DailyDeal.objects.filter(date=day).first(),
        120,
        lambda: f"no daily deal; worker said:\n{worker.output[-3000:]}",
    )
    assert_certificate_wins(deal.deal_code, deal.certificate)


def test_a_game_that_ends_is_analysed_by_the_worker_once(hints_worker: Process) -> None:
    owner = User.objects.create_user("analysed", "analysed@example.com", "a long password 42")
    game = services.game_create(
        owner=owner, choice=services.DealChoice(mode=GameMode.SEEDED, code=WON_DEAL["code"])
    )
    # No eager mode and no test transaction: each command commits, and the one that ends the
    # game publishes the task on commit, to the real broker.
    for step in WON_DEAL["line"][:3]:
        services.game_execute_command(
            owner=owner,
            game_id=game.pk,
            command=Command("move", parse_card(step["card"]), step["to"]),
        )
    assert not GameAnalysis.objects.exists()
    services.game_execute_command(owner=owner, game_id=game.pk, command=Command("resign"))

    analysis = wait_until(
        lambda: GameAnalysis.objects.filter(game=game).first(),
        120,
        lambda: f"no analysis; hints worker said:\n{hints_worker.output[-3000:]}",
    )
    assert (analysis.deal_verdict, analysis.outcome) == ("won", "ended_winnable")
    assert analysis.last_winnable_version == analysis.version == 4
    game.refresh_from_db()
    position = selectors.game_state_at(game=game, version=4).position
    assert_line_wins_from(position, analysis.line)

    # A duplicate delivery (or a request that enqueued it again) changes nothing.
    assert tasks.enqueue(tasks.analyse_game, str(game.pk))
    wait_until(  # 2 received, 2 succeeded
        lambda: hints_worker.output.count("games.tasks.analyse_game") >= 4,
        60,
        lambda: f"the second task did not run; hints worker said:\n{hints_worker.output[-3000:]}",
    )
    assert GameAnalysis.objects.filter(game=game).count() == 1
    assert GameAnalysis.objects.get(game=game).created_at == analysis.created_at


def assert_line_wins_from(position: Any, line: list[dict[str, Any]]) -> None:
    for step in line:
        if step["type"] == "deal":
            position, _ = play(position, DealAction())
        else:
            position, _ = play(
                position, resolve_move(position, parse_card(step["card"]), step["to"])
            )
    assert status(position) == "won"


def test_compose_processes_serve_play_and_run_tasks(tmp_path: Path) -> None:
    """web, worker and beat exactly as docker-compose.yml starts them."""
    commands = compose_commands()
    env = process_env(str(settings.REDIS_URL))
    port = free_port()
    beat_command = [
        part.replace("/tmp/celerybeat-schedule", str(tmp_path / "beat-schedule"))
        for part in commands["beat"]
    ]
    with (
        running("web", web_command(port), env) as web,
        running("worker", commands["worker"], env) as worker,
        running("beat", beat_command, env) as beat,
    ):
        base = f"http://127.0.0.1:{port}"
        health = wait_for_http(f"{base}/healthz/").json()
        assert health["status"] == "ok"
        assert health["database"]["ok"] is True
        assert health["redis"] == {"ok": True, "configured": True, "ms": health["redis"]["ms"]}
        worker.wait_for_output("ready.")
        beat.wait_for_output("beat: Starting")

        client = httpx.Client(base_url=base, timeout=30)
        signup = client.post(
            "/_allauth/app/v1/auth/signup",
            json={"email": "compose@example.com", "password": "a long password 77"},
        )
        assert signup.status_code == 200, signup.text
        client.headers["X-Session-Token"] = signup.json()["meta"]["session_token"]
        game = client.post("/api/v1/games/", json={"code": WON_DEAL["code"]}).json()
        moved = client.post(f"/api/v1/games/{game['id']}/commands/", json=WON_DEAL["line"][0])
        assert moved.status_code == 200, moved.text

        hints = client.get(f"/api/v1/games/{game['id']}/hints/").json()
        assert hints["version"] == 1
        assert hints["moves"]

        # Beat sends the pool top-up as it starts; the worker runs it.
        deal = wait_until(
            lambda: WinnableDeal.objects.first(),
            120,
            lambda: (
                f"no pool deal; worker said:\n{worker.output[-3000:]}\n"
                f"beat said:\n{beat.output[-3000:]}"
            ),
        )
        assert_certificate_wins(deal.deal_code, deal.certificate)
        assert web.popen.poll() is None
        assert beat.popen.poll() is None


def test_play_goes_on_with_redis_down() -> None:
    port = free_port()
    redis_url = f"redis://127.0.0.1:{port}/0"
    env = process_env(redis_url)
    web_port = free_port()
    base = f"http://127.0.0.1:{web_port}"
    with private_redis(port) as redis_server, running("web", web_command(web_port), env):
        wait_for_http(f"{base}/healthz/")
        client = httpx.Client(base_url=base, timeout=30)
        signup = client.post(
            "/_allauth/app/v1/auth/signup",
            json={"email": "outage@example.com", "password": "a long password 78"},
        )
        client.headers["X-Session-Token"] = signup.json()["meta"]["session_token"]

        redis_server.kill()
        assert client.get("/healthz/").json()["status"] == "degraded"
        # Play: create, commands, hints all answer, correctly, without Redis.
        game = client.post("/api/v1/games/", json={"code": WON_DEAL["code"]})
        assert game.status_code == 201, game.text
        game_id = game.json()["id"]
        for step in WON_DEAL["line"][:3]:
            response = client.post(f"/api/v1/games/{game_id}/commands/", json=step)
            assert response.status_code == 200, response.text
        undo = client.post(f"/api/v1/games/{game_id}/commands/", json={"type": "undo"})
        assert undo.status_code == 200
        hints = client.get(f"/api/v1/games/{game_id}/hints/").json()
        assert hints["version"] == 4
        assert hints["moves"]

        # Redis comes back: the web process uses it again without a restart.
        with private_redis(port):
            wait_until(lambda: client.get("/healthz/").json()["status"] == "ok", 30)


def pool_processes(worker: Process) -> list[int]:
    """The prefork pool's child processes of a worker (they run the tasks)."""
    tasks_dir = Path(f"/proc/{worker.popen.pid}/task")
    return [
        int(pid) for task in tasks_dir.iterdir() for pid in (task / "children").read_text().split()
    ]


def test_task_killed_mid_run_leaves_only_whole_deals_and_is_redone(worker: Process) -> None:
    """The process running a task is SIGKILLed (as the OOM killer or a hard time limit
    would): no clean-up code runs. Every deal written so far is whole, and the task, which
    was never acknowledged, is delivered again and finishes the job."""
    target = 60
    assert tasks.enqueue(tasks.top_up_winnable_pool, target, target)
    wait_until(lambda: WinnableDeal.objects.exists(), 60, lambda: worker.output[-3000:])
    for pid in pool_processes(worker):
        os.kill(pid, signal.SIGKILL)
    for deal in WinnableDeal.objects.all():
        assert_certificate_wins(deal.deal_code, deal.certificate)
    wait_until(
        lambda: WinnableDeal.objects.count() >= target,
        180,
        lambda: f"the task was not redone; worker said:\n{worker.output[-3000:]}",
    )
    assert "WorkerLostError" in worker.output  # the kill did hit the running task
    for deal in WinnableDeal.objects.all():
        assert_certificate_wins(deal.deal_code, deal.certificate)
    assert Game.objects.count() == 0


@pytest.fixture
def archive_worker(archive_dir: Path) -> Iterator[Process]:
    """The default queue's worker, archiving into the test's directory (ARCHIVE_DIR)."""
    env = process_env(str(settings.REDIS_URL), ARCHIVE_DIR=str(archive_dir))
    with running("worker", compose_commands()["worker"], env) as process:
        process.wait_for_output("ready.")
        yield process


def finished_game(owner: User, *, days_ago: int) -> Game:
    game = services.game_create(
        owner=owner, choice=services.DealChoice(mode=GameMode.SEEDED, code=WON_DEAL["code"])
    )
    for step in WON_DEAL["line"][:5]:
        services.game_execute_command(
            owner=owner,
            game_id=game.pk,
            command=Command("move", parse_card(step["card"]), step["to"]),
        )
    services.game_execute_command(owner=owner, game_id=game.pk, command=Command("resign"))
    Game.objects.filter(pk=game.pk).update(
        finished_at=timezone.now() - datetime.timedelta(days=days_ago)
    )
    return Game.objects.get(pk=game.pk)


def test_the_worker_archives_old_finished_games_and_they_read_as_before(
    archive_worker: Process, archive_dir: Path
) -> None:
    owner = User.objects.create_user("archived", "archived@example.com", "a long password 42")
    old = finished_game(owner, days_ago=settings.ARCHIVE_AFTER_DAYS + 1)
    recent = finished_game(owner, days_ago=1)
    before = [
        (state.to_dict(), event.pk if event else None)
        for _, state, event in selectors.game_states(game=old, start=0, stop=old.version)
    ]

    assert tasks.enqueue(tasks.archive_finished_games)

    archived = wait_until(
        lambda: Game.objects.filter(pk=old.pk, archived_at__isnull=False).first(),
        120,
        lambda: f"not archived; worker said:\n{archive_worker.output[-3000:]}",
    )
    assert (archive_dir / archived.archive_name).is_file()
    assert not GameEvent.objects.filter(game=old).exists()
    after = [
        (state.to_dict(), event.pk if event else None)
        for _, state, event in selectors.game_states(game=archived, start=0, stop=old.version)
    ]
    assert after == before
    assert Game.objects.get(pk=recent.pk).archived_at is None
    assert GameEvent.objects.filter(game=recent).count() == recent.version
