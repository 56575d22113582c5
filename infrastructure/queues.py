"""The Celery queues, and which work goes on which.

``hints`` carries the long solver work players start: the winning chances
(``games.tasks.compute_chances``: up to two minutes of solver CPU each, sent whenever a player
pauses or asks) and the post-game analyses (``games.tasks.analyse_game``: one for every
finished game, in every variant; a Double Scorpion analysis takes about 7 s of CPU, a Scorpion
one up to its budget, about a minute). ``celery`` (Celery's default name, so that messages
queued before the split are still consumed) carries the short and scheduled work: the
heartbeat, the hint-count flush, the daily deals, the pool, the purges. Each has a worker
service of its own (docker-compose.yml ``worker`` and ``worker-hints``), so a busy solver load
can take every slot of the hints worker and still never delays the short and scheduled work,
nor makes the default worker look dead to the health check. Whether to send work to a worker
or do it in the request asks about the queue the work goes on, found here (``queue_for``), so
that moving a task to another queue is one line of ``ROUTED``.
"""

from __future__ import annotations

DEFAULT_QUEUE = "celery"
HINTS_QUEUE = "hints"
QUEUES = (DEFAULT_QUEUE, HINTS_QUEUE)
CHANCES_TASK = "games.tasks.compute_chances"
ANALYSIS_TASK = "games.tasks.analyse_game"
POOL_TOP_UP_TASK = "games.tasks.top_up_winnable_pool"
# Task name -> queue, for the tasks that do not go on the default queue (CELERY_TASK_ROUTES).
ROUTED = {
    CHANCES_TASK: HINTS_QUEUE,
    ANALYSIS_TASK: HINTS_QUEUE,
}


def queue_for(task_name: str) -> str:
    """The queue the task goes on, as CELERY_TASK_ROUTES sends it."""
    return ROUTED.get(task_name, DEFAULT_QUEUE)
