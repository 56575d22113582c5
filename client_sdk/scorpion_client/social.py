"""The request specs of the social endpoints (challenges, friends, invites, blocks), shared by
the sync and the async client (``client.social``). Answers are the server's JSON as dicts
(docs/api.md, "Playing together"), but a challenge's game, which is a ``Game``."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from scorpion_client import endpoints as ep
from scorpion_client._operations import _nothing, _parsed, _raw_json
from scorpion_client._request_spec import Spec
from scorpion_client.models import Game

__all__ = ["SocialOps", "challenge_id_of"]


def challenge_id_of(challenge: str | UUID | dict[str, Any]) -> str:
    """A challenge's id from its id, its link (``.../challenges/<id>/``) or its answer."""
    if isinstance(challenge, dict):
        return str(challenge["id"])
    text = str(challenge).rstrip("/")
    return text.rsplit("/", 1)[-1]


class SocialOps:
    @staticmethod
    def challenges() -> Spec[dict[str, Any]]:
        return Spec(ep.CHALLENGES.method, ep.CHALLENGES.path(), _raw_json)

    @staticmethod
    def challenge_create(game_id: str) -> Spec[dict[str, Any]]:
        # Not re-sent: a second create would make a second challenge.
        return Spec(
            ep.CHALLENGE_CREATE.method,
            ep.CHALLENGE_CREATE.path(),
            _raw_json,
            json={"game": game_id},
            replay_safe=False,
        )

    @staticmethod
    def challenge(challenge_id: str) -> Spec[dict[str, Any]]:
        return Spec(ep.CHALLENGE.method, ep.CHALLENGE.path(challenge_id=challenge_id), _raw_json)

    @staticmethod
    def challenge_play(challenge_id: str) -> Spec[Game]:
        # Safe to re-send: the server answers with the game the first one made.
        path = ep.CHALLENGE_PLAY.path(challenge_id=challenge_id)
        return Spec(ep.CHALLENGE_PLAY.method, path, _parsed(Game.from_json))

    @staticmethod
    def challenge_close(challenge_id: str) -> Spec[dict[str, Any]]:
        path = ep.CHALLENGE_CLOSE.path(challenge_id=challenge_id)
        return Spec(ep.CHALLENGE_CLOSE.method, path, _raw_json)

    @staticmethod
    def friends() -> Spec[dict[str, Any]]:
        return Spec(ep.FRIENDS.method, ep.FRIENDS.path(), _raw_json)

    @staticmethod
    def friend_request(
        *, player: str | None = None, invite: str | None = None
    ) -> Spec[dict[str, Any]]:
        body = {"player": player} if player is not None else {"invite": invite}
        return Spec(ep.FRIEND_REQUEST.method, ep.FRIEND_REQUEST.path(), _raw_json, json=body)

    @staticmethod
    def friend_accept(friendship_id: int) -> Spec[dict[str, Any]]:
        path = ep.FRIEND_ACCEPT.path(friendship_id=friendship_id)
        return Spec(ep.FRIEND_ACCEPT.method, path, _raw_json)

    @staticmethod
    def friend_remove(friendship_id: int) -> Spec[None]:
        path = ep.FRIEND_REMOVE.path(friendship_id=friendship_id)
        return Spec(ep.FRIEND_REMOVE.method, path, _nothing)

    @staticmethod
    def invite_create() -> Spec[dict[str, Any]]:
        path = ep.INVITE_CREATE.path()
        return Spec(ep.INVITE_CREATE.method, path, _raw_json, replay_safe=False)

    @staticmethod
    def invite_revoke(invite_id: str) -> Spec[None]:
        path = ep.INVITE_REVOKE.path(invite_id=invite_id)
        return Spec(ep.INVITE_REVOKE.method, path, _nothing)

    @staticmethod
    def block(*, player: str | None = None, friendship: int | None = None) -> Spec[dict[str, Any]]:
        body: dict[str, Any] = (
            {"player": player} if player is not None else {"friendship": friendship}
        )
        return Spec(ep.BLOCK_CREATE.method, ep.BLOCK_CREATE.path(), _raw_json, json=body)

    @staticmethod
    def unblock(block_id: int) -> Spec[None]:
        return Spec(ep.BLOCK_REMOVE.method, ep.BLOCK_REMOVE.path(block_id=block_id), _nothing)

    @staticmethod
    def friends_leaderboard(date: str) -> Spec[dict[str, Any]]:
        path = ep.FRIENDS_LEADERBOARD.path(date=date)
        return Spec(ep.FRIENDS_LEADERBOARD.method, path, _raw_json)
