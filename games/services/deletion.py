"""A player's games deleted all at once (their data deleted, or their account closed), safely
beside the commands still in flight on another device; the streams open on them hear "gone"."""

from __future__ import annotations

from functools import partial
from uuid import UUID

from django.db import transaction

from games.broadcast import publish
from games.models import Game


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
    counts per model label."""
    game_ids = owner_games_lock(user_id=user_id)
    _, counts = Game.objects.filter(owner_id=user_id).delete()
    transaction.on_commit(partial(publish.games_deleted_committed, user_id, game_ids), robust=True)
    return counts
