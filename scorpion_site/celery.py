"""The Celery app: Redis as the broker, configuration from Django settings (CELERY_*)."""

from __future__ import annotations

import os

from celery import Celery

from infrastructure.queues import DEFAULT_QUEUE

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_site.settings")

app = Celery("scorpion")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(
    name="scorpion_site.heartbeat",
    ignore_result=True,
    soft_time_limit=5,
    time_limit=10,
    # A heartbeat that waited longer than its interval says nothing new: drop it.
    expires=30,
)
def heartbeat(queue: str = DEFAULT_QUEUE) -> None:
    """Sent by beat to each queue every few seconds (``queue`` names the one it was sent to);
    running it is how the worker consuming that queue says it is alive."""
    from django.conf import settings

    from infrastructure import liveness

    liveness.record(key=liveness.worker_key(queue), redis_url=settings.REDIS_URL)
