"""Whether a worker is there to take work: a broker configured, and a live worker on the queue
a task goes to."""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone

from infrastructure.queues import queue_for


def broker_configured() -> bool:
    return bool(settings.REDIS_URL)


def worker_for(task_name: str) -> bool:
    """A live worker consumes the queue the task is routed to (infrastructure/queues.py)."""
    return worker_available(queue_for(task_name))


def worker_available(queue: str) -> bool:
    """A broker is configured and a worker consuming ``queue`` ran its heartbeat lately
    (infrastructure.liveness)."""
    if not settings.REDIS_URL:
        return False
    from infrastructure import liveness

    return liveness.read(redis_url=settings.REDIS_URL, now=timezone.now()).queue_ok(queue)
