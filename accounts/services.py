"""Writes of an account of its own: its display name, and the sessions signed in as it (deleted
when the account is closed: ``players.services.account_delete``, which spans the other apps)."""

from __future__ import annotations

import re
from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils.translation import gettext, gettext_lazy

from accounts.models import Deck, Profile
from accounts.names import normalised, skeleton

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
NAME_SHAPE = gettext_lazy(
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
            gettext("The name “%(name)s” is reserved, or reads as a reserved name: choose another.")
            % {"name": name}
        )
    profile, _ = Profile.objects.get_or_create(user=user)
    if profile.guest:
        raise GuestCannotNameError(gettext("Sign up to choose a name for the leaderboards."))
    taken = gettext(
        "The name “%(name)s” is taken: another player has it, or one that reads the same."
    ) % {"name": name}
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


def language_set(*, user: User, language: str) -> Profile:
    """Set the language the account reads the site in (accounts/language.py), or "" to follow
    the browser's. A guest may choose one too: it is no public name."""
    profile, _ = Profile.objects.get_or_create(user=user)
    profile.language = language
    profile.save(update_fields=["language"])
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


def user_sessions_delete(*, user_id: int) -> int:
    """Delete every stored session signed in as the user (so every session token dies); how
    many there were. A full scan (``user_session_keys``): for closing an account."""
    session_keys = user_session_keys(user_id=user_id)
    store_class = _session_store_class()
    for key in session_keys:
        store_class(session_key=key).delete()
    return len(session_keys)
