"""Playing together (``client.social``): challenges on a deal you finished, friends,
invites, blocks and the friends' daily board.

This module is the source of ``_sync_social.py``, which ``scripts/unasync.py`` writes from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scorpion_client._async_games import AsyncGameHandle
from scorpion_client._core import GameRef, game_id_of
from scorpion_client.social import SocialOps, challenge_id_of

if TYPE_CHECKING:
    from scorpion_client._async import AsyncScorpion


class AsyncSocialResource:
    """Playing together (docs/api.md): challenges on a deal you finished, friends, invites,
    blocks and the friends' daily board. Answers are the server's JSON as dicts."""

    def __init__(self, client: AsyncScorpion) -> None:
        self._client = client

    async def challenges(self) -> dict[str, Any]:
        """``{"made": [...], "played": [...]}``: your challenges, newest first."""
        return await self._client.request(SocialOps.challenges())

    async def challenge(self, game: GameRef) -> dict[str, Any]:
        """A challenge on the deal of one of your finished games; its ``url`` is the link."""
        return await self._client.request(SocialOps.challenge_create(game_id_of(game)))

    async def get_challenge(self, challenge: str | dict[str, Any]) -> dict[str, Any]:
        """A challenge by id or link; its ``board`` is None until your game of it is over."""
        return await self._client.request(SocialOps.challenge(challenge_id_of(challenge)))

    async def play_challenge(self, challenge: str | dict[str, Any]) -> AsyncGameHandle:
        """Your game of a challenge (id or link): a new one the first time, the same after."""
        spec = SocialOps.challenge_play(challenge_id_of(challenge))
        return self._client.games.handle(await self._client.request(spec))

    async def close_challenge(self, challenge: str | dict[str, Any]) -> dict[str, Any]:
        return await self._client.request(SocialOps.challenge_close(challenge_id_of(challenge)))

    async def friends(self) -> dict[str, Any]:
        """Friends, requests both ways, open invites and blocks."""
        return await self._client.request(SocialOps.friends())

    async def follow(self, player: str) -> dict[str, Any]:
        """Ask the player shown as ``player`` (``Ann#3f9c``; accepts if they asked first)."""
        return await self._client.request(SocialOps.friend_request(player=player))

    async def accept_invite(self, invite: str) -> dict[str, Any]:
        """Accept an invite by id or link: you are friends at once."""
        return await self._client.request(SocialOps.friend_request(invite=challenge_id_of(invite)))

    async def accept(self, friendship_id: int) -> dict[str, Any]:
        return await self._client.request(SocialOps.friend_accept(friendship_id))

    async def remove(self, friendship_id: int) -> None:
        """Refuse a request, withdraw yours, or end a friendship."""
        await self._client.request(SocialOps.friend_remove(friendship_id))

    async def invite(self) -> dict[str, Any]:
        """A single-use invite link (7 days)."""
        return await self._client.request(SocialOps.invite_create())

    async def revoke_invite(self, invite_id: str) -> None:
        await self._client.request(SocialOps.invite_revoke(invite_id))

    async def block(
        self, player: str | None = None, *, friendship: int | None = None
    ) -> dict[str, Any]:
        return await self._client.request(SocialOps.block(player=player, friendship=friendship))

    async def unblock(self, block_id: int) -> None:
        await self._client.request(SocialOps.unblock(block_id))

    async def leaderboard(self, date: str | None = None) -> dict[str, Any]:
        """A day's daily board among you and your friends (default today)."""
        day = date or (await self._client.daily.today()).date.isoformat()
        return await self._client.request(SocialOps.friends_leaderboard(day))
