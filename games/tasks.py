"""Background work for games. Each task takes ids, re-fetches, calls one service, and is
idempotent, so a retry, a duplicate delivery or a stale message does no harm."""

from __future__ import annotations

import datetime
import logging
import uuid
from typing import Any

from celery import Task, shared_task
from django.conf import settings
from django.utils import timezone

from games import services
from infrastructure import background
from infrastructure.background import RELIABLE

logger = logging.getLogger(__name__)

DAYS_AHEAD = 7
# Deals per difficulty band (easy, medium, hard) the winnable pool keeps.
POOL_TARGET = 30
POOL_BATCH = 5


def enqueue(task: Task[Any, Any], *args: Any) -> bool:
    """Publish ``task`` (infrastructure.background.enqueue, by its name)."""
    return background.enqueue(task.name, *args)


@shared_task(**RELIABLE, soft_time_limit=50, time_limit=60)
def flush_hint_counts() -> None:
    """Write the hints counted in Redis to their games (games.services.game_hints_request)."""
    services.hint_counts_flush()


@shared_task(**RELIABLE, soft_time_limit=600, time_limit=660)
def ensure_daily_deals(days_ahead: int = DAYS_AHEAD) -> None:
    """Keep today's deal and the next ``days_ahead`` days' certified; forget the ranked
    attempts' claims of days that can no longer rank (games.models.RankedDailyClaim)."""
    today = timezone.now().date()
    services.daily_deals_ensure_ahead(today=today, days_ahead=days_ahead)
    services.daily_deals_rate_backlog(today=today)
    services.ranked_claims_purge(today=today)


@shared_task(**RELIABLE, soft_time_limit=300, time_limit=360)
def certify_daily_deal(day: str) -> None:
    services.daily_deal_ensure(day=datetime.date.fromisoformat(day))


@shared_task(**RELIABLE, soft_time_limit=300, time_limit=360)
def top_up_winnable_pool(target: int = POOL_TARGET, batch: int = POOL_BATCH) -> None:
    """Rate the pool's unrated deals and certify a few more whenever a difficulty band holds
    fewer than ``target`` deals (at most ``batch`` per run: a rating costs about 0.1 s of CPU,
    a certification a few solver runs)."""
    services.winnable_pool_top_up(target=target, max_new=batch)


@shared_task(**RELIABLE, soft_time_limit=300, time_limit=360)
def analyse_game(game_id: str) -> None:
    """Analyse a finished game (games.analysis); nothing to do if it is stored already, gone or
    not finished."""
    services.game_analysis_ensure(game_id=uuid.UUID(game_id))


@shared_task(**RELIABLE, soft_time_limit=120, time_limit=150)
def compute_chances(game_id: str, version: int) -> None:
    """The winning chances of a game's version (games.services.game_chances_request); nothing to
    do if stored already, or if the game is gone, over, or has moved past ``version``."""
    services.game_chances_task(game_id=uuid.UUID(game_id), version=version)


@shared_task(**RELIABLE, soft_time_limit=540, time_limit=600)
def archive_finished_games() -> None:
    """Move the logs of games finished more than ``ARCHIVE_AFTER_DAYS`` days ago to the archive,
    at most ``ARCHIVE_BATCH`` games a run (games.services.game_logs_archive); nothing when the
    setting is 0. Idempotent: a game archived already is not taken again."""
    days = settings.ARCHIVE_AFTER_DAYS
    if not days:
        return
    run = services.game_logs_archive(
        finished_before=timezone.now() - datetime.timedelta(days=days),
        limit=settings.ARCHIVE_BATCH,
    )
    logger.info("archived %d games (%d events, %d bytes)", run.archived, run.events, run.bytes)
