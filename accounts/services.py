"""Writes of a player's own data: erase their games and results, or the whole account."""

from __future__ import annotations

import re
from collections import Counter
from functools import partial
from importlib import import_module
from uuid import UUID

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.db import transaction

from accounts.models import Profile
from games.broadcast import publish
from games.models import Game
from stats.models import PlayerStats

# A display name: letters (any script), digits, and single inner spaces, dots, dashes or
# underscores; it starts and ends with a letter or digit. No "@" (no e-mail addresses), no "*"
# or "#" (it cannot pass for a masked name and its tag).
_NAME = r"[^\W_](?:[^\W_]|[ ._-](?=[^\W_])){0,29}"
DISPLAY_NAME = re.compile(rf"^(?:{_NAME})?$")  # empty: the masked e-mail is shown again
# The same without the empty name, for the API field: it takes "" through allow_blank, and a
# pattern matching "" too would make the two branches of its OpenAPI oneOf overlap (a
# schema-valid client could not tell which applies, and schemathesis reports "" as invalid data
# accepted).
NON_EMPTY_DISPLAY_NAME = re.compile(rf"^{_NAME}$")
RESERVED_NAMES = {"guest", "staff", "admin", "scorpion"}


class GuestCannotNameError(PermissionError):
    """A guest has no name of its own on leaderboards: it signs up first."""


def display_name_set(*, user: User, name: str) -> Profile:
    """Set (or clear, with "") the name leaderboards show. Names are not unique: leaderboards
    show them with the player's tag, so two players of one name stay apart."""
    name = name.strip()
    if name.casefold() in RESERVED_NAMES:
        raise ValueError(f"{name!r} is reserved")
    profile, _ = Profile.objects.get_or_create(user=user)
    if profile.guest:
        raise GuestCannotNameError("sign up to choose a name for the leaderboards")
    profile.display_name = name
    profile.save(update_fields=["display_name"])
    return profile


# Model labels (as Django's deletion collector reports them) -> the names the API answers with.
_NAMES = {
    "auth.User": "account",
    "account.EmailAddress": "email_addresses",
    "games.Game": "games",
    "games.GameEvent": "events",
    "stats.PlayerStats": "stats",
}
DATA_KEYS = ("games", "events", "stats")
ACCOUNT_KEYS = ("account", "email_addresses", "sessions", *DATA_KEYS, "other")


def _tally(per_model: dict[str, int], keys: tuple[str, ...]) -> dict[str, int]:
    counts: Counter[str] = Counter(dict.fromkeys(keys, 0))
    for label, count in per_model.items():
        name = _NAMES.get(label, "other")
        counts[name if name in keys else "other"] += count
    return {key: counts[key] for key in keys}


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


def _lock_games(*, user_id: int) -> list[UUID]:
    """Lock the player's games (in one order: by id) until the transaction ends.

    A command holds its game's row from its compare-and-set to its commit (games.services):
    waiting for every game row here lets the commands in flight finish first, with their events
    and statistics, which the deletion then sees and removes; a command that comes later finds
    its game gone (404). Without it, an event committed after the deletion listed the game's
    events left the deletion with a foreign-key violation: a 500.
    """
    games = Game.objects.select_for_update().filter(owner_id=user_id).order_by("pk")
    return list(games.values_list("pk", flat=True))


def account_data_delete(*, user: User) -> dict[str, int]:
    """Remove the player's games (their events go with them) and statistics,
    keeping the account. One transaction: all of it goes, or nothing. Safe to run while the
    player plays on (``account_lock``, ``_lock_games``): what they do lands before or after."""
    with transaction.atomic():
        if not account_lock(user_id=user.pk):
            return _tally({}, DATA_KEYS)  # closed meanwhile: nothing of it is left
        game_ids = _lock_games(user_id=user.pk)
        _, games = Game.objects.filter(owner=user).delete()
        # After the games, so that a game finishing meanwhile (which locks the game row the
        # DELETE above waited for) cannot leave statistics of games that are gone.
        _, stats = PlayerStats.objects.filter(user=user).delete()
        transaction.on_commit(
            partial(publish.games_deleted_committed, user.pk, game_ids), robust=True
        )
    return _tally({**games, **stats}, DATA_KEYS)


def _session_store_class() -> type:
    store_class: type = import_module(settings.SESSION_ENGINE).SessionStore
    return store_class


def user_session_keys(*, user_id: int) -> list[str]:
    """Keys of the stored sessions signed in as the user (browser sessions and the app
    client's session tokens alike). Session data is encoded, so this decodes every stored
    session: a full scan, acceptable for something as rare as closing an account. Engines
    that keep no sessions in the database (cache, signed cookies) have none to find."""
    store_class = _session_store_class()
    get_model_class = getattr(store_class, "get_model_class", None)
    if get_model_class is None:
        return []
    decoder = store_class()
    wanted = str(user_id)
    keys = []
    rows = get_model_class().objects.values_list("session_key", "session_data")
    for key, data in rows.iterator(chunk_size=2000):
        if str(decoder.decode(data).get(SESSION_KEY)) == wanted:
            keys.append(key)
    return keys


def account_delete(*, user: User) -> dict[str, int]:
    """Remove the account and everything of it: e-mail addresses, sessions (so every session
    token dies), games with their events, statistics, and whatever else refers to the user
    (Django's deletion collector follows every foreign key). One transaction, safe to run
    while the player plays on, as ``account_data_delete``."""
    with transaction.atomic():
        if not account_lock(user_id=user.pk):
            return _tally({}, ACCOUNT_KEYS) | {"sessions": 0}  # closed meanwhile
        _lock_games(user_id=user.pk)
        session_keys = user_session_keys(user_id=user.pk)
        store_class = _session_store_class()
        for key in session_keys:
            store_class(session_key=key).delete()
        _, per_model = user.delete()
    counts = _tally(per_model, ACCOUNT_KEYS)
    counts["sessions"] = len(session_keys)
    return counts
