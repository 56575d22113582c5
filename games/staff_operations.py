"""Staff operations on certified deals, shared by the admin and the dashboard.

Both call the services in ``games.services`` (or enqueue the task that does); they only decide
what may run in a web request: past and current days are never regenerated, and without a
broker only a small top-up is certified inline, since the solver runs in the request.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.conf import settings

from games import services, tasks
from games.models import WinnableDeal

# Certifying a deal can take seconds (several random deals may be tried), so a request
# without a broker adds this many; a worker adds tasks.POOL_BATCH per task.
INLINE_TOP_UP = 1
# How many days one admin action may regenerate (each runs the solver in the request).
MAX_REGENERATE = 7


@dataclass(frozen=True, slots=True)
class TopUpResult:
    queued: bool  # a task was sent to the broker
    added: int  # deals certified inline
    requested: int
    error: str | None = None


def pool_top_up(*, batch: int = tasks.POOL_BATCH, inline: int = INLINE_TOP_UP) -> TopUpResult:
    """Grow the winnable pool: by a task of ``batch`` deals when a broker is configured,
    otherwise by ``inline`` deals certified now. (The service's target is per difficulty
    band: the pool's whole size plus the batch is above every band's count, so exactly the
    batch is added.)"""
    size = WinnableDeal.objects.count()
    if settings.REDIS_URL:
        sent = tasks.enqueue(tasks.top_up_winnable_pool, size + batch, batch)
        return TopUpResult(
            queued=sent,
            added=0,
            requested=batch,
            error=None if sent else "the broker could not be reached; nothing was queued",
        )
    try:
        added = services.winnable_pool_top_up(target=size + inline, max_new=inline)
    except services.CertificationError as exc:
        return TopUpResult(queued=False, added=0, requested=inline, error=str(exc))
    return TopUpResult(queued=False, added=added, requested=inline)


@dataclass(frozen=True, slots=True)
class RegenerateResult:
    regenerated: list[datetime.date] = field(default_factory=list)
    refused: list[datetime.date] = field(default_factory=list)  # today or earlier
    skipped: list[datetime.date] = field(default_factory=list)  # beyond MAX_REGENERATE
    failed: list[tuple[datetime.date, str]] = field(default_factory=list)


def daily_deals_regenerate(
    *, days: Iterable[datetime.date], today: datetime.date
) -> RegenerateResult:
    """Regenerate the future ones among ``days`` (at most MAX_REGENERATE of them)."""
    result = RegenerateResult()
    for day in sorted(set(days)):
        if day <= today:
            result.refused.append(day)
        elif len(result.regenerated) + len(result.failed) >= MAX_REGENERATE:
            result.skipped.append(day)
        else:
            try:
                services.daily_deal_regenerate(day=day, today=today)
            except services.CertificationError as exc:
                result.failed.append((day, str(exc)))
            else:
                result.regenerated.append(day)
    return result
