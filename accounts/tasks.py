"""Background work for accounts: thin tasks calling one service, idempotent."""

from __future__ import annotations

from celery import shared_task

from accounts.oauth import services
from infrastructure.background import RELIABLE


@shared_task(**RELIABLE, soft_time_limit=120, time_limit=150)
def purge_expired_tokens() -> None:
    """Idempotent: a second run finds nothing more to delete."""
    services.tokens_purge_expired()
