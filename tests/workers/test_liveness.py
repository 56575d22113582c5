"""Beat and each queue's worker say they are alive; beat sends the daily-deal work as soon as
it starts."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.utils import timezone

from games.models import DailyDeal
from infrastructure import liveness
from scorpion_site.celery import app as celery_app
from tests.conftest import require_service
from tests.workers.harness import compose_commands, process_env, running, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


@pytest.fixture(autouse=True)
def _services() -> None:
    require_service("PostgreSQL", connection.vendor == "postgresql")
    require_service("Redis", bool(settings.REDIS_URL))
    celery_app.control.purge()


def workers_health() -> tuple[int, dict[str, object]]:
    response = Client().get("/healthz/workers/")
    return response.status_code, json.loads(response.content)


def test_workers_health_is_down_before_any_worker_or_beat_ran() -> None:
    status_code, body = workers_health()
    assert status_code == 503
    assert body["worker"] == {"ok": False, "last_seen": None}
    assert body["hints_worker"] == {"ok": False, "last_seen": None}
    assert body["beat"] == {"ok": False, "last_tick": None}


def test_a_stale_heartbeat_is_reported_as_down() -> None:
    long_ago = timezone.now() - datetime.timedelta(seconds=liveness.STALE_AFTER_SECONDS + 5)
    liveness.record(key=liveness.WORKER_KEY, redis_url=settings.REDIS_URL, now=long_ago.timestamp())
    liveness.record(key=liveness.BEAT_KEY, redis_url=settings.REDIS_URL)
    status_code, body = workers_health()
    assert status_code == 503
    assert body["worker"]["ok"] is False  # type: ignore[index]
    assert body["beat"]["ok"] is True  # type: ignore[index]


def test_a_silent_hints_worker_alone_makes_the_workers_check_fail() -> None:
    """The default worker and beat are fresh; play goes on (chances inline), but a process
    of the deployment is down and whoever watches the workers must hear of it."""
    liveness.record(key=liveness.WORKER_KEY, redis_url=settings.REDIS_URL)
    liveness.record(key=liveness.BEAT_KEY, redis_url=settings.REDIS_URL)
    status_code, body = workers_health()
    assert status_code == 503
    assert body["worker"]["ok"] is True  # type: ignore[index]
    assert body["hints_worker"]["ok"] is False  # type: ignore[index]
    liveness.record(key=liveness.HINTS_WORKER_KEY, redis_url=settings.REDIS_URL)
    assert workers_health()[0] == 200
    web = Client().get("/healthz/")
    assert web.status_code == 200
    assert json.loads(web.content)["background"]["hints_worker"]["ok"] is True


def test_fresh_beat_certifies_today_at_once_and_all_report_alive(tmp_path: Path) -> None:
    """The compose commands of both workers and beat, natively: today's deal does not wait an
    hour for beat's first hourly run, and the health check sees every process (beat sends a
    heartbeat to each queue)."""
    commands = compose_commands()
    env = process_env(str(settings.REDIS_URL))
    beat_command = [
        part.replace("/tmp/celerybeat-schedule", str(tmp_path / "beat-schedule"))
        for part in commands["beat"]
    ]
    today = timezone.now().astimezone(datetime.UTC).date()
    assert not DailyDeal.objects.filter(date=today).exists()
    with (
        running("worker", commands["worker"], env) as worker,
        running("worker-hints", commands["worker-hints"], env) as hints_worker,
        running("beat", beat_command, env) as beat,
    ):
        wait_until(
            lambda: DailyDeal.objects.filter(date=today).exists(),
            180,
            lambda: (
                f"today's deal never certified:\n{beat.output[-2000:]}\n{worker.output[-3000:]}"
            ),
        )
        wait_until(
            lambda: workers_health()[0] == 200,
            90,
            lambda: (
                f"workers never reported alive: {workers_health()}\n{worker.output[-2000:]}\n"
                f"{hints_worker.output[-2000:]}"
            ),
        )
    assert "games.tasks.compute_chances[" not in worker.output
    assert "scorpion_site.heartbeat[" in hints_worker.output
    assert "games.tasks.ensure_daily_deals[" not in hints_worker.output
    _, body = workers_health()
    assert body["worker"]["ok"] is True  # type: ignore[index]
    assert body["hints_worker"]["ok"] is True  # type: ignore[index]
    assert body["beat"]["ok"] is True  # type: ignore[index]
    health = json.loads(Client().get("/healthz/").content)
    assert health["background"]["worker"]["ok"] is True


def beat_health_command(redis_url: str) -> subprocess.CompletedProcess[str]:
    """docker-compose.yml's health check of beat, run as compose runs it."""
    from tests.ops.compose import service

    test = service("beat")["healthcheck"]["test"]
    assert test[0] == "CMD"
    env = {**os.environ, "REDIS_URL": redis_url}
    return subprocess.run(
        [sys.executable if part == "python" else part for part in test[1:]],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_the_beat_health_check_fails_until_beat_ticks_and_again_when_it_stops() -> None:
    redis_url = str(settings.REDIS_URL)
    unseen = beat_health_command(redis_url)
    assert unseen.returncode == 1
    assert "beat has not been seen" in unseen.stderr
    long_ago = timezone.now() - datetime.timedelta(seconds=liveness.STALE_AFTER_SECONDS + 5)
    liveness.record(key=liveness.BEAT_KEY, redis_url=redis_url, now=long_ago.timestamp())
    assert beat_health_command(redis_url).returncode == 1
    liveness.record(key=liveness.BEAT_KEY, redis_url=redis_url)
    ticked = beat_health_command(redis_url)
    assert ticked.returncode == 0, ticked.stderr


def test_the_beat_health_check_fails_while_redis_is_unreachable() -> None:
    dead = beat_health_command("redis://127.0.0.1:1/0")
    assert dead.returncode == 1
    assert "Redis cannot be read" in dead.stderr
