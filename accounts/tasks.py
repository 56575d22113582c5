"""Background work for accounts: thin tasks calling one service, idempotent."""

from __future__ import annotations

import datetime

from celery import shared_task
from django.conf import settings

from accounts import guests
from accounts.oauth import services
from infrastructure.background import RELIABLE

BATCH = 1000


@shared_task(**RELIABLE, soft_time_limit=120, time_limit=150)
def purge_expired_tokens() -> None:
    """Idempotent: a second run finds nothing more to delete."""
    services.tokens_purge_expired()


@shared_task(**RELIABLE, soft_time_limit=240, time_limit=300)
def delete_idle_guests() -> int:
    """Delete guests that have not played for ``GUEST_IDLE_DAYS`` days (a batch per run; the
    next run takes the rest)."""
    idle = datetime.timedelta(days=settings.GUEST_IDLE_DAYS)
    return guests.guests_delete_idle(idle=idle, limit=BATCH)
