"""Celery beat's scheduler, with two additions: it says when it last ticked, and it sends the
work that cannot wait an interval as soon as it starts.

A fresh beat would otherwise first send an hourly entry an hour after it starts: a new
deployment would have no certified daily deal for up to an hour. Likewise the heartbeats: for
their first 30 s the web processes would see no live worker, compute the winning chances in
the requests themselves and answer 503 on /healthz/workers/.
"""

from __future__ import annotations

import logging
from typing import Any

from celery.beat import PersistentScheduler
from django.conf import settings

from infrastructure import liveness

logger = logging.getLogger(__name__)

# Entries of CELERY_BEAT_SCHEDULE sent once at start, then on their schedule. All are
# idempotent, so a restart of beat costs at most one cheap run of each.
RUN_AT_START = ("heartbeat", "heartbeat-hints", "ensure-daily-deals", "top-up-winnable-pool")


class RecordingScheduler(PersistentScheduler):
    _started_entries_sent = False

    def tick(self, *args: Any, **kwargs: Any) -> float:
        if not self._started_entries_sent:
            self._started_entries_sent = True
            for name in RUN_AT_START:
                entry = self.schedule.get(name)
                if entry is not None:
                    logger.info("beat: sending %s at start", name)
                    self.apply_entry(entry, producer=self.producer)
        try:
            liveness.record(key=liveness.BEAT_KEY, redis_url=settings.REDIS_URL)
        except Exception as exc:  # a Redis hiccup must not stop the schedule
            logger.warning("beat: could not record its tick: %s", exc)
        next_tick: float = super().tick(*args, **kwargs)
        # Tick at least as often as the heartbeat, so the recorded time stays fresh.
        return min(next_tick, float(liveness.HEARTBEAT_SECONDS))
