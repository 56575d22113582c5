"""The cap on a player's open streams (``games.streams.slots``) against a Redis of the test's
own, restarted (it keeps nothing: ``--save ""``) and stopped: the cap holds through both."""

from __future__ import annotations

import asyncio
import shutil
from typing import Any

import pytest
import redis

from games.streams.slots import RedisSlots, slot_ttl
from tests.api.conftest import Player
from tests.conftest import require_service
from tests.streams.conftest import Streams
from tests.workers.harness import free_port, private_redis

USER = 7


@pytest.fixture
def cap_of_two(settings: Any) -> None:
    settings.STREAM_MAX_PER_USER = 2
    settings.STREAM_HEARTBEAT_SECONDS = 1


@pytest.fixture
def redis_port() -> int:
    require_service("redis-server", shutil.which("redis-server") is not None)
    return free_port()


def heartbeat(slots: RedisSlots, held: list[str]) -> None:
    """What every open stream does at each heartbeat: renew its slot."""

    async def renew() -> None:
        for slot in held:
            await slots.renew(USER, slot)

    asyncio.run(renew())


def taken(slots: RedisSlots, count: int) -> list[str]:
    held = [slots.acquire(USER) for _ in range(count)]
    assert None not in held
    return [slot for slot in held if slot is not None]


def open_in_redis(port: int) -> int:
    return int(redis.Redis(port=port).zcard(f"scorpion:streams:open:{USER}"))


@pytest.mark.usefixtures("cap_of_two")
def test_the_cap_holds_after_redis_restarts(redis_port: int) -> None:
    url = f"redis://127.0.0.1:{redis_port}/0"
    here, elsewhere = RedisSlots(url), RedisSlots(url)  # two stream processes
    with private_redis(redis_port) as server:
        held = taken(here, 2)
        assert elsewhere.acquire(USER) is None
        server.kill()
    with private_redis(redis_port):  # back, empty
        assert open_in_redis(redis_port) == 0
        # The process that holds the streams registers them again as it takes a slot...
        assert here.acquire(USER) is None
        assert open_in_redis(redis_port) == 2
    with private_redis(redis_port):  # and at its streams' next heartbeat
        heartbeat(here, held)
        assert open_in_redis(redis_port) == 2
        assert elsewhere.acquire(USER) is None
        # A stream that ends frees its slot.
        asyncio.run(here.release(USER, held[0]))
        heartbeat(here, held[1:])
        assert open_in_redis(redis_port) == 1
        assert elsewhere.acquire(USER) is not None


@pytest.mark.usefixtures("cap_of_two")
def test_the_cap_holds_per_process_while_redis_is_down(redis_port: int) -> None:
    url = f"redis://127.0.0.1:{redis_port}/0"
    slots = RedisSlots(url)
    with private_redis(redis_port) as server:
        held = taken(slots, 1)
        server.kill()
    # Redis is down: the streams this process holds count, the ones it may open are capped.
    held += taken(slots, 1)
    assert slots.acquire(USER) is None
    asyncio.run(slots.release(USER, held.pop(0)))
    held += taken(slots, 1)
    assert slots.acquire(USER) is None
    with private_redis(redis_port):  # back: the streams opened meanwhile count there too
        heartbeat(slots, held)
        assert RedisSlots(url).acquire(USER) is None


@pytest.mark.usefixtures("cap_of_two")
def test_a_redis_that_never_answers_still_caps_each_process(redis_port: int) -> None:
    slots = RedisSlots(f"redis://127.0.0.1:{redis_port}/0")  # nothing listens there
    taken(slots, 2)
    assert slots.acquire(USER) is None


@pytest.mark.usefixtures("cap_of_two")
def test_a_player_s_slots_outlive_the_first_expiry_while_their_streams_beat(
    redis_port: int,
) -> None:
    # The set's own expiry was set when a slot was taken and never pushed back by the
    # heartbeats: a player whose streams all stayed open lost the whole set (and the cap)
    # a slot's lifetime after opening the last one.
    slots = RedisSlots(f"redis://127.0.0.1:{redis_port}/0")
    with private_redis(redis_port):
        held = taken(slots, 2)
        client = redis.Redis(port=redis_port)
        client.pexpire(f"scorpion:streams:open:{USER}", 500)  # the lifetime nearly over
        heartbeat(slots, held)
        assert client.pttl(f"scorpion:streams:open:{USER}") > (slot_ttl() - 1) * 1000


@pytest.mark.usefixtures("cap_of_two")
def test_with_redis_down_a_third_stream_of_a_player_is_429(
    streams: Streams, player: Player, settings: Any, redis_port: int
) -> None:
    settings.REDIS_URL = f"redis://127.0.0.1:{redis_port}/0"  # the streams' Redis: down
    game = player.new_game()
    path = f"/api/v1/games/{game['id']}/stream/"
    opened = [streams.connect(path, player.token) for _ in range(3)]
    assert [response.status_code for response, _ in opened] == [200, 200, 429]
    for _, reader in opened[:2]:
        assert reader.event().event == "resync"  # from the log, as always
