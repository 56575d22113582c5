"""Writes of a player's own data: erase their games and results, or the whole account."""

from __future__ import annotations

import re
from collections import Counter
from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from accounts.locks import account_lock
from accounts.models import Deck, Profile
from accounts.names import normalised, skeleton
from games import services as game_services
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
_RESERVED_SKELETONS = frozenset(skeleton(reserved) for reserved in RESERVED_NAMES)
NAME_SHAPE = (
    "A display name has 1 to 30 letters or digits, with single spaces, dots, dashes or "
    "underscores between them."
)


class GuestCannotNameError(PermissionError):
    """A guest has no name of its own on leaderboards: it signs up first."""


class DisplayNameRefusedError(ValueError):
    """A name that is malformed, reserved or another player's (by its look): a sentence."""


def display_name_set(*, user: User, name: str) -> Profile:
    """Set (or clear, with "") the name leaderboards show, NFKC-normalised. A name that reads
    as a reserved one or as another player's (the same skeleton, accounts/names.py) is
    refused; leaderboards also show the player's tag beside it."""
    name = normalised(name)
    shape = skeleton(name) if name else ""
    if len(name) > 30 or not DISPLAY_NAME.match(name):
        raise DisplayNameRefusedError(NAME_SHAPE)
    if shape in _RESERVED_SKELETONS:
        raise DisplayNameRefusedError(
            f"The name “{name}” is reserved, or reads as a reserved name: choose another."
        )
    profile, _ = Profile.objects.get_or_create(user=user)
    if profile.guest:
        raise GuestCannotNameError("sign up to choose a name for the leaderboards")
    taken = f"The name “{name}” is taken: another player has it, or one that reads the same."
    if shape and Profile.objects.filter(name_skeleton=shape).exclude(pk=profile.pk).exists():
        raise DisplayNameRefusedError(taken)
    profile.display_name, profile.name_skeleton = name, shape
    try:
        # The unique skeleton decides between two players asking for it at once.
        with transaction.atomic():
            profile.save(update_fields=["display_name", "name_skeleton"])
    except IntegrityError:
        raise DisplayNameRefusedError(taken) from None
    return profile


def deck_set(*, user: User, deck: str) -> Profile:
    """Choose the card faces the web client draws for this account (``Deck``); a guest may too
    (it is a setting of the table, not of the leaderboards)."""
    if deck not in Deck.values:
        raise ValueError(f"unknown deck {deck!r}")
    profile, _ = Profile.objects.get_or_create(user=user)
    if profile.deck != deck:
        profile.deck = deck
        profile.save(update_fields=["deck"])
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


def account_data_delete(*, user: User) -> dict[str, int]:
    """Remove the player's games (their events go with them) and statistics,
    keeping the account. One transaction: all of it goes, or nothing. Safe to run while the
    player plays on (``account_lock``, ``games.services.owner_games_lock``): what they do
    lands before or after."""
    with transaction.atomic():
        if not account_lock(user_id=user.pk):
            return _tally({}, DATA_KEYS)  # closed meanwhile: nothing of it is left
        games = game_services.owner_games_delete(user_id=user.pk)
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
    (Django's deletion collector follows every foreign key). One transaction, safe to run
    while the player plays on, as ``account_data_delete``."""
    with transaction.atomic():
        if not account_lock(user_id=user.pk):
            return _tally({}, ACCOUNT_KEYS) | {"sessions": 0}  # closed meanwhile
        game_services.owner_games_lock(user_id=user.pk)
        session_keys = user_session_keys(user_id=user.pk)
        store_class = _session_store_class()
        for key in session_keys:
            store_class(session_key=key).delete()
        _, per_model = user.delete()
    counts = _tally(per_model, ACCOUNT_KEYS)
    counts["sessions"] = len(session_keys)
    return counts
