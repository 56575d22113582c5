"""Guests: a visitor plays at once, on an account of their own made on first play.

A guest is an ordinary Django user with a ``Profile(guest=True)``, no e-mail address and no
usable password, kept by the browser's session (``POST /api/v1/guest/`` logs it in). Everything
else treats it as any player: its games, statistics, throttles and live streams are the same.

- **Sign-up converts it.** allauth's sign-up, called from a guest's session, fills the guest's
  own row (``accounts.adapter``: ``new_user`` hands allauth the guest instead of a new user),
  so the account keeps its id, and with it its games and statistics. A guest can only become
  a *new* account: allauth's checks (unique e-mail, password validators, rate limits) apply as
  to any sign-up, and logging in to an existing account from a guest session only switches the
  session to it (the guest's games stay with the guest): nothing of a guest is ever merged
  into an account that already exists, so a guest cannot reach another player's data. The
  layers above hear of it in the same transaction (``settings.GUEST_SIGNED_UP_HOOKS``: the
  daily's ranked attempts claimed under the new address).
- **Logging in elsewhere loses nothing.** allauth's log-in, called from a guest's session,
  runs as from a signed-out one (``accounts.middleware``) instead of answering 409: the guest
  stays signed in until the log-in succeeds, then Django's ``login`` replaces the session. A
  guest has no password: had the client logged it out first, a failed log-in would have lost
  it and its games.
- **Limits.** Creating a guest is throttled per address (``THROTTLE_GUEST``, a fixed-window
  counter: ``infrastructure.throttles.GuestRateThrottle``) besides the API's usual limits.
- **Clean-up.** A guest that has not played for ``GUEST_IDLE_DAYS`` days is deleted with its
  games and statistics by a periodic task (``players.tasks.delete_idle_guests``: the purge spans
  the apps, ``players.guests``).
- **Leaderboards** show a guest as "Guest" (``stats.selectors.display_name``).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.contrib.auth.models import User
from django.db import transaction

from accounts.models import Profile
from infrastructure.wiring import wired_functions

GUEST_USERNAME_PREFIX = "guest-"


def is_guest(user: object) -> bool:
    """Whether ``user`` is a signed-in guest (one query at most, cached on the user)."""
    if not isinstance(user, User) or not user.is_authenticated:
        return False
    try:
        return bool(user.profile.guest)
    except Profile.DoesNotExist:
        return False


def guest_create() -> User:
    """A new guest account: no e-mail, no usable password, a random username nobody chose."""
    with transaction.atomic():
        user = User(username=GUEST_USERNAME_PREFIX + secrets.token_hex(12), email="")
        user.set_unusable_password()
        user.save()
        Profile.objects.create(user=user, guest=True)
    return user


def guest_convert(*, user: User, save: Callable[[], object]) -> bool:
    """Fill a guest's own row with its sign-up (``save`` writes the e-mail and password) and
    mark it a full account, under the row's lock. False, with ``save`` not called, if it is no
    guest (any more).

    Two sign-ups racing from one guest session both hold the guest's row from ``new_user``;
    the lock makes the second wait until the first has committed, and it then finds no guest:
    it never overwrites the first one's e-mail and password (the adapter makes it a new
    account instead).
    """
    with transaction.atomic():
        profile = Profile.objects.select_for_update().filter(user=user).first()
        if profile is None or not profile.guest:
            return False
        save()
        profile.guest = False
        profile.save(update_fields=["guest"])
        # The layers above (the daily's ranked attempts, claimed under the new address) hear
        # of it in the same transaction, by dotted path: accounts imports none of them.
        for hook in wired_functions("GUEST_SIGNED_UP_HOOKS"):
            hook(user=user)
    return True
