"""Writes of the social layer: challenges, friends and blocks, their limits, the feed's
notices, and their share of a player's data deletion."""

from social.services.challenges import challenge_close, challenge_create, challenge_play
from social.services.data import player_social_delete
from social.services.friends import (
    INVITE_LIFETIME,
    MAX_OPEN_INVITES,
    block_player,
    block_remove,
    friend_accept,
    friend_remove,
    friend_request,
    invite_accept,
    invite_create,
    invite_revoke,
)
from social.services.limits import (
    ChallengeClosedError,
    GuestNotAllowedError,
    NotChallengeableError,
    OwnChallengeError,
    SocialError,
    SocialLimitError,
)

__all__ = [
    "INVITE_LIFETIME",
    "MAX_OPEN_INVITES",
    "ChallengeClosedError",
    "GuestNotAllowedError",
    "NotChallengeableError",
    "OwnChallengeError",
    "SocialError",
    "SocialLimitError",
    "block_player",
    "block_remove",
    "challenge_close",
    "challenge_create",
    "challenge_play",
    "friend_accept",
    "friend_remove",
    "friend_request",
    "invite_accept",
    "invite_create",
    "invite_revoke",
    "player_social_delete",
]
