"""The Celery queues, and which work goes on which.

``hints`` carries the winning chances (``games.tasks.compute_chances``: up to two minutes of
solver CPU each, sent whenever a player pauses or asks); ``celery`` (Celery's default name, so
that messages queued before the split are still consumed) carries everything else: the
heartbeat, the hint-count flush, the analyses, the daily deals, the pool, the purges. Each has
a worker service of its own (docker-compose.yml ``worker`` and ``worker-hints``), so a busy hint
load can take every slot of the hints worker and still never delays the short and scheduled
work, nor makes the default worker look dead to the health check.
"""

from __future__ import annotations

DEFAULT_QUEUE = "celery"
HINTS_QUEUE = "hints"
QUEUES = (DEFAULT_QUEUE, HINTS_QUEUE)
# Task name -> queue, for the tasks that do not go on the default queue (CELERY_TASK_ROUTES).
ROUTED = {"games.tasks.compute_chances": HINTS_QUEUE}
