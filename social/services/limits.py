"""The per-player limits on what a player makes for others (THROTTLE_CHALLENGE, _FOLLOW,
_INVITE), and the errors the social services raise (the API answers each as a problem)."""

from __future__ import annotations

import math
import time
from typing import cast

from django.conf import settings
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy

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

    def __init__(self, scope: str, wait: float) -> None:
        self.wait = wait
        super().__init__(str(_TOO_MANY[scope]) % {"seconds": math.ceil(wait)})


# What each limit's refusal says, whole sentences so that a language may word them its way.
_TOO_MANY = {
    "challenge": gettext_lazy(
        "you have made as many challenges as is allowed for now; retry in %(seconds)d seconds"
    ),
    "follow": gettext_lazy(
        "you have made as many friend requests as is allowed for now; retry in %(seconds)d seconds"
    ),
    "invite": gettext_lazy(
        "you have made as many invites as is allowed for now; retry in %(seconds)d seconds"
    ),
}


def limit_take(*, user: User, scope: str) -> None:
    """Count one thing made by the player against the ``scope`` rate, or SocialLimitError.
    Counted before the write: a refused or failed request still counts, as for the API's
    own throttles."""
    rates = cast(dict[str, str], settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    wait = throttles.take(f"{scope}:{user.pk}", rates[scope], now=time.time())
    if wait is not None:
        raise SocialLimitError(scope, wait)


def signed_up_required(*, user: User, refusal: str) -> None:
    """Friends and challenges are made by signed-up players: a guest has no name to be found
    by or shown under ("Guest" on every board), and may lose its account when idle.
    ``refusal``: what a guest is told, translated."""
    if Profile.objects.filter(user=user, guest=True).exists():
        raise GuestNotAllowedError(refusal)
