"""Sending work to the Celery workers, by task name.

A service that hands work to a worker names the task (``infrastructure.queues``) instead of
importing the module that defines it: the tasks module imports the services it calls, so an
import the other way would close a cycle. Celery routes a task sent by name exactly as one
sent from its function (CELERY_TASK_ROUTES is keyed by name).
"""

from __future__ import annotations

import logging
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import InterfaceError, OperationalError

logger = logging.getLogger(__name__)

# Transient failures worth retrying with backoff: the database restarting or failing over.
TRANSIENT = (OperationalError, InterfaceError)

# Every task: redelivered if its worker dies (acks_late), retried with backoff on transient
# database errors, result ignored (the services write their results to the database).
RELIABLE: dict[str, Any] = {
    "acks_late": True,
    "autoretry_for": TRANSIENT,
    "retry_backoff": True,
    "retry_backoff_max": 60,
    "max_retries": 5,
    "ignore_result": True,
}


def enqueue(task_name: str, *args: Any) -> bool:
    """Publish a task, never letting a broker outage fail the caller.

    Without a broker (the embedded default) nothing is published: everything a task would
    prepare is also computed on demand. With Redis down, publishing fails fast; the periodic
    tasks make good whatever was missed once Redis is back.
    """
    if not settings.REDIS_URL:
        return False
    try:
        current_app.send_task(task_name, args=args, retry=False)
    except Exception as exc:  # kombu and redis raise many types; any of them means "not sent"
        logger.warning("could not enqueue %s%r: %s", task_name, args, exc)
        return False
    return True
