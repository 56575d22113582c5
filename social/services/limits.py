"""The per-player limits on what a player makes for others (THROTTLE_CHALLENGE, _FOLLOW,
_INVITE), and the errors the social services raise (the API answers each as a problem)."""

from __future__ import annotations

import math
import time
from typing import cast

from django.conf import settings
from django.contrib.auth.models import User

from accounts.models import Profile
from infrastructure import throttles


class SocialError(Exception):
    """A refusal the API answers with the problem ``code``, ``detail`` being the message."""

    code = "validation_error"


class GuestNotAllowedError(SocialError):
    code = "permission_denied"


class ChallengeClosedError(SocialError):
    code = "challenge_closed"


class OwnChallengeError(SocialError):
    code = "own_challenge"


class NotChallengeableError(SocialError):
    code = "not_challengeable"


class SocialLimitError(SocialError):
    """The player has made as many of something as its limit allows for now (429)."""

    code = "throttled"

    def __init__(self, what: str, wait: float) -> None:
        self.wait = wait
        super().__init__(
            f"you have made as many {what} as is allowed for now; retry in {math.ceil(wait)} "
            "seconds"
        )


def limit_take(*, user: User, scope: str, what: str) -> None:
    """Count one thing made by the player against the ``scope`` rate, or SocialLimitError.
    Counted before the write: a refused or failed request still counts, as for the API's
    own throttles."""
    rates = cast(dict[str, str], settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    wait = throttles.take(f"{scope}:{user.pk}", rates[scope], now=time.time())
    if wait is not None:
        raise SocialLimitError(what, wait)


def signed_up_required(*, user: User, doing: str) -> None:
    """Friends and challenges are made by signed-up players: a guest has no name to be found
    by or shown under ("Guest" on every board), and may lose its account when idle."""
    if Profile.objects.filter(user=user, guest=True).exists():
        raise GuestNotAllowedError(f"sign up to {doing}: a guest plays challenges only")
