"""A player's games deleted all at once (their data deleted, or their account closed), safely
beside the commands still in flight on another device; the streams open on them hear "gone"."""

from __future__ import annotations

from uuid import UUID

from django.contrib.auth import get_user_model
from django.utils import timezone

from games.broadcast import publish
from games.models import Game, GameEvent, GameMode, RankedDailyClaim
from games.selectors import ranked_identities
from games.services.archiving import owner_archives_delete_on_commit
from games.services.creation import RANKED_CLAIM_KEPT
from infrastructure.transactions import on_commit_robust


def owner_games_lock(*, user_id: int) -> list[UUID]:
    """Lock the player's games (in one order: by id) until the transaction ends.

    A command holds its game's row from its compare-and-set to its commit (games.services.commands):
    waiting for every game row here lets the commands in flight finish first, with their events
    and statistics, which the deletion then sees and removes; a command that comes later finds
    its game gone (404). Without it, an event committed after the deletion listed the game's
    events left the deletion with a foreign-key violation: a 500.
    """
    games = Game.objects.select_for_update().filter(owner_id=user_id).order_by("pk")
    return list(games.values_list("pk", flat=True))


def owner_games_delete(*, user_id: int) -> dict[str, int]:
    """Delete every game of the player, their events with them, in the caller's transaction
    (which holds the account's lock: accounts.locks.account_lock): the games are locked first
    (``owner_games_lock``), and once it commits the streams still open on them end ("gone")
    and the player's feed tells the lists to read themselves again. Answers Django's deletion
    counts per model label. Their archived logs' files go once it commits."""
    game_ids = owner_games_lock(user_id=user_id)
    archived_events = owner_archives_delete_on_commit(user_id=user_id)
    owner_ranked_days_claim(user_id=user_id)
    _, counts = Game.objects.filter(owner_id=user_id).delete()
    on_commit_robust(publish.games_deleted_committed, user_id, game_ids)
    return with_archived_events(counts, archived_events)


def with_archived_events(counts: dict[str, int], archived_events: int) -> dict[str, int]:
    """Django's deletion counts, with the events of the archived logs deleted with them: a
    deletion answers the same counts whether a game's log was archived or not."""
    label = GameEvent._meta.label
    return {**counts, label: counts.get(label, 0) + archived_events}


def owner_ranked_days_claim(*, user_id: int) -> None:
    """Before a player's ranked daily games go (their data deleted, or their account), claim
    each day that can still rank for every identity the player has *now*.

    A ranked attempt claims the identities the player had when it began: a guest has no
    e-mail, so its claim is its account alone. Once that guest has signed up with an address,
    deleting the account and signing up again with the same address would find no claim of
    that address, and rank a second time on a deal already seen. Claiming again here, with
    the addresses the account holds at its deletion, closes that way round."""
    owner = get_user_model().objects.filter(pk=user_id).first()
    if owner is None:
        return
    earliest = timezone.now().date() - RANKED_CLAIM_KEPT  # the daily's days are UTC
    days = set(
        Game.objects.filter(
            owner_id=user_id, mode=GameMode.DAILY, ranked=True, daily_date__gte=earliest
        ).values_list("daily_date", flat=True)
    )
    if not days:
        return
    identities = ranked_identities(owner=owner)
    # ignore_conflicts: the identities that claimed the day when the attempt began are there.
    RankedDailyClaim.objects.bulk_create(
        [
            RankedDailyClaim(identity=identity, day=day)
            for day in days
            if day is not None
            for identity in identities
        ],
        ignore_conflicts=True,
    )
