"""The account's row lock: what serialises a player's data deletion with every write that adds a
row of theirs no game row lock covers (a new game, a recomputation of the statistics). Its own
module, below the services of every app, since games and stats take it too."""

from __future__ import annotations

from django.contrib.auth.models import User


def account_lock(*, user_id: int) -> bool:
    """Lock the account's row until the transaction ends; False if the account is gone.

    Concurrency (the player may keep playing on another device while their data goes):
    every deletion of a player's data, and every write that adds a row of theirs that no game
    row lock covers (a new game, a recomputation of the statistics), takes this lock first, so
    they run one after the other. ``FOR NO KEY UPDATE``, not ``FOR UPDATE``: a command finishing
    a game inserts statistics rows, whose foreign-key check takes ``FOR KEY SHARE`` on this same
    row, and must not wait for a deletion that is itself waiting for that command's game row.
    On SQLite, which has no row locks, every write transaction already runs alone.
    """
    locked = User.objects.select_for_update(no_key=True).filter(pk=user_id)
    return bool(list(locked.values_list("pk", flat=True)))
