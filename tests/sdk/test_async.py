"""The async client: the same surface, against the live server."""

from __future__ import annotations

import asyncio

import pytest
from scorpion_client import (
    AsyncGameHandle,
    AsyncScorpion,
    AuthenticationError,
    IllegalMove,
    VersionConflict,
)

from tests.sdk.conftest import (
    PASSWORD,
    WON_DEAL,
    AsyncDropFirstResponse,
    fast_async_transport,
    is_command,
    new_email,
)

pytestmark = pytest.mark.django_db(transaction=True)


def test_async_client_plays_undoes_and_lists(server_url: str) -> None:
    async def scenario() -> None:
        async with AsyncScorpion(server_url, transport=fast_async_transport()) as client:
            with pytest.raises(AuthenticationError):
                await client.games.list()
            await client.auth.signup(new_email(), PASSWORD)
            game = await client.games.create(code=WON_DEAL["code"])
            assert isinstance(game, AsyncGameHandle)
            for command in WON_DEAL["line"][:5]:
                await game.move(command["card"], to=command["to"])
            assert game.version == 5
            undo = await game.undo()
            assert undo.undone is not None
            assert game.moves == 4
            await game.redo()
            with pytest.raises(IllegalMove):
                await game.move("AS")
            hints = await game.hints()
            assert hints.version == 7
            positions = [position async for position in game.replay()]
            assert [p.version for p in positions] == list(range(8))
            assert len(await game.events()) == 7

            await client.games.create()  # random: a seeded one would leave `game` behind
            page = await client.games.list(page_size=1)
            assert page.count == 2
            assert page.next
            ids = [g.id async for g in client.games.iter_all(page_size=1)]
            assert len(ids) == 2
            assert ids[1] == game.id

            other = await client.games.get(game.id)
            await other.deal()
            with pytest.raises(VersionConflict):
                await game.deal()
            assert game.version == 8
            assert game.stock == 0
            assert (await game.refresh()).version == 8

            again = await game.restart()
            assert again.restarted_from == game.id
            assert (await client.me.get()).email
            assert (await client.daily.today()).attempts == 0
            await client.auth.logout()
            assert client.token is None

    asyncio.run(scenario())


def test_async_retry_after_a_dropped_answer_applies_once(
    server_url: str, sleeps: list[float]
) -> None:
    async def scenario() -> None:
        transport = AsyncDropFirstResponse()
        async with AsyncScorpion(server_url, transport=transport) as client:
            await client.auth.signup(new_email(), PASSWORD)
            game = await client.games.create(code=WON_DEAL["code"])
            result = await client.games.deal(game.id)
            assert result.replayed
            assert result.game.version == 1
            commands = [r for r in transport.sent if is_command(r)]
            assert len(commands) == 2
            assert commands[0].headers["Idempotency-Key"] == commands[1].headers["Idempotency-Key"]
            assert len(await client.games.events(game.id)) == 1

    asyncio.run(scenario())
    assert len(sleeps) == 1
