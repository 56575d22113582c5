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
from django.db import transaction

from games import services, tasks
from games.models import WinnableDeal
from infrastructure.audit import staff_action_record

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


def pool_top_up(
    *,
    actor_id: int,
    reason: str = "",
    batch: int = tasks.POOL_BATCH,
    inline: int = INLINE_TOP_UP,
) -> TopUpResult:
    """Grow the winnable pool: by a task of ``batch`` deals when a broker is configured,
    otherwise by ``inline`` deals certified now. (The service's target is per difficulty
    band: the pool's whole size plus the batch is above every band's count, so exactly the
    batch is added.) Recorded in the audit log, whatever the outcome."""
    result = _pool_top_up(batch=batch, inline=inline)
    outcome = (
        f"failed: {result.error}"
        if result.error
        else f"queued {result.requested}"
        if result.queued
        else f"certified {result.added} inline"
    )
    staff_action_record(
        actor_id=actor_id,
        target=WinnableDeal,
        action=f"topped up the winnable pool ({outcome})",
        reason=reason,
    )
    return result


def _pool_top_up(*, batch: int, inline: int) -> TopUpResult:
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


def daily_deals_regenerate_plan(
    *, days: Iterable[datetime.date], today: datetime.date
) -> RegenerateResult:
    """What regenerating ``days`` would do, without doing it (the confirmation's preview):
    the future days that would change (at most MAX_REGENERATE), those refused (today and the
    past, which players have played) and those skipped (beyond the limit)."""
    result = RegenerateResult()
    for day in sorted(set(days)):
        if day <= today:
            result.refused.append(day)
        elif len(result.regenerated) >= MAX_REGENERATE:
            result.skipped.append(day)
        else:
            result.regenerated.append(day)
    return result


def daily_deals_regenerate(
    *, days: Iterable[datetime.date], today: datetime.date, actor_id: int, reason: str
) -> RegenerateResult:
    """Regenerate the future ones among ``days`` (at most MAX_REGENERATE of them), each
    recorded in the audit log with the staff member and their reason."""
    plan = daily_deals_regenerate_plan(days=days, today=today)
    result = RegenerateResult(refused=plan.refused, skipped=plan.skipped)
    for day in plan.regenerated:
        try:
            with transaction.atomic():
                deal = services.daily_deal_regenerate(day=day, today=today)
                staff_action_record(
                    actor_id=actor_id,
                    target=deal,
                    action=f"regenerated the daily deal (generation {deal.generation})",
                    reason=reason,
                )
        except services.CertificationError as exc:
            result.failed.append((day, str(exc)))
        else:
            result.regenerated.append(day)
    return result
