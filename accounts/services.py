"""Writes of a player's own data: erase their games and results, or the whole account."""

from __future__ import annotations

from collections import Counter
from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.db import transaction

from games.models import Game
from stats.models import PlayerStats

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


def account_data_delete(*, user: User) -> dict[str, int]:
    """Remove the player's games (their events go with them) and statistics,
    keeping the account. One transaction: all of it goes, or nothing."""
    with transaction.atomic():
        _, games = Game.objects.filter(owner=user).delete()
        # After the games, so that a game finishing meanwhile (which locks the game row the
        # DELETE above waited for) cannot leave statistics of games that are gone.
        _, stats = PlayerStats.objects.filter(user=user).delete()
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
    (Django's deletion collector follows every foreign key). One transaction."""
    with transaction.atomic():
        session_keys = user_session_keys(user_id=user.pk)
        store_class = _session_store_class()
        for key in session_keys:
            store_class(session_key=key).delete()
        _, per_model = user.delete()
    counts = _tally(per_model, ACCOUNT_KEYS)
    counts["sessions"] = len(session_keys)
    return counts
