"""Background work on a player's data as a whole: thin tasks calling one service, idempotent."""

from __future__ import annotations

import datetime

from celery import shared_task
from django.conf import settings

from infrastructure.background import RELIABLE
from players import guests

BATCH = 1000


@shared_task(**RELIABLE, soft_time_limit=240, time_limit=300)
def delete_idle_guests() -> int:
    """Delete guests that have not played for ``GUEST_IDLE_DAYS`` days (a batch per run; the
    next run takes the rest)."""
    idle = datetime.timedelta(days=settings.GUEST_IDLE_DAYS)
    return guests.guests_delete_idle(idle=idle, limit=BATCH)
