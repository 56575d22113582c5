"""The purge of idle guests: a guest that has not played for ``GUEST_IDLE_DAYS`` days goes with
its games and statistics (accounts/guests.py says what a guest is)."""

from __future__ import annotations

import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from accounts.locks import account_lock
from games import services as game_services
from games.models import Game


def idle_guests(*, now: datetime.datetime, idle: datetime.timedelta) -> QuerySet[User]:
    """Guests created before ``now - idle`` with no game touched since then."""
    cutoff = now - idle
    recent_play = Game.objects.filter(owner=OuterRef("pk"), updated_at__gte=cutoff)
    return User.objects.filter(profile__guest=True, date_joined__lt=cutoff).exclude(
        Exists(recent_play)
    )


def guest_delete_if_idle(*, user_id: int, now: datetime.datetime, idle: datetime.timedelta) -> bool:
    """Delete one guest with its games and statistics if it is still an idle guest, judged
    again under the account's lock (it may have played, or signed up, since it was listed).
    Its sessions are not searched for (a full scan of the sessions per guest): a session of a
    deleted user is simply signed out on its next request, and expires in its time."""
    with transaction.atomic():
        if not account_lock(user_id=user_id):
            return False
        game_services.owner_games_lock(user_id=user_id)
        if not idle_guests(now=now, idle=idle).filter(pk=user_id).exists():
            return False
        game_services.owner_archives_delete_on_commit(user_id=user_id)
        User.objects.filter(pk=user_id).delete()
    return True


def guests_delete_idle(*, idle: datetime.timedelta, limit: int = 1000) -> int:
    """Delete up to ``limit`` idle guests, one short transaction each; returns how many."""
    now = timezone.now()
    ids = list(idle_guests(now=now, idle=idle).order_by("pk").values_list("pk", flat=True)[:limit])
    return sum(guest_delete_if_idle(user_id=user_id, now=now, idle=idle) for user_id in ids)
