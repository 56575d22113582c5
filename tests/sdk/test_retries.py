"""Safe retries against the live server: a dropped answer, a refused connection, 429."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

import httpx
import pytest
from rest_framework.throttling import SimpleRateThrottle
from scorpion_client import RateLimited, RetryPolicy, Scorpion, TransportError

from tests.sdk.conftest import WON_DEAL, DropFirstResponse, is_command

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_command_whose_answer_was_lost_is_resent_and_applied_once(
    make_client: Callable[..., Scorpion], sleeps: list[float]
) -> None:
    transport = DropFirstResponse()
    client = make_client(transport=transport)
    game = client.games.create(code=WON_DEAL["code"])
    first = WON_DEAL["line"][0]

    result = client.games.move(game.id, first["card"])

    commands = [request for request in transport.sent if is_command(request)]
    assert transport.dropped == 1
    assert len(commands) == 2
    keys = {request.headers["Idempotency-Key"] for request in commands}
    assert len(keys) == 1  # one logical call, one key, on every attempt
    assert len(sleeps) == 1  # one backoff wait before the retry
    assert result.replayed  # the server answered from its record of the first attempt
    assert result.game.version == 1
    assert result.event.seq == 1
    assert client.games.get(game.id).version == 1  # applied once, not twice
    assert [event.type for event in client.games.events(game.id)] == ["move"]


def test_each_command_gets_its_own_key(make_client: Callable[..., Scorpion]) -> None:
    transport = DropFirstResponse(match=lambda request: False)
    client = make_client(transport=transport)
    game = client.games.create(code=WON_DEAL["code"])
    game.deal()
    game.undo()
    keys = [r.headers["Idempotency-Key"] for r in transport.sent if is_command(r)]
    assert len(keys) == 2
    assert keys[0] != keys[1]


def is_create(request: httpx.Request) -> bool:
    return request.method == "POST" and request.url.path == "/api/v1/games/"


def is_restart(request: httpx.Request) -> bool:
    return request.method == "POST" and request.url.path.endswith("/restart/")


def test_a_create_whose_answer_was_lost_is_resent_with_its_key_and_made_once(
    make_client: Callable[..., Scorpion], sleeps: list[float]
) -> None:
    transport = DropFirstResponse(match=is_create)
    client = make_client(transport=transport)

    game = client.games.create(seed=7)

    creates = [r for r in transport.sent if is_create(r)]
    assert transport.dropped == 1
    assert len(creates) == 2
    assert len({r.headers["Idempotency-Key"] for r in creates}) == 1
    assert len(sleeps) == 1
    page = client.games.list()
    assert page.count == 1  # the server made one game, and answered the retry with it
    assert page.results[0].id == game.id


def test_a_restart_whose_answer_was_lost_is_resent_with_its_key_and_made_once(
    make_client: Callable[..., Scorpion], sleeps: list[float]
) -> None:
    transport = DropFirstResponse(match=is_restart)
    client = make_client(transport=transport)
    game = client.games.create(seed=7)

    again = game.restart()

    restarts = [r for r in transport.sent if is_restart(r)]
    assert len(restarts) == 2
    assert len({r.headers["Idempotency-Key"] for r in restarts}) == 1
    assert again.id != game.id
    assert again.restarted_from == game.id
    assert client.games.list().count == 2  # the first game and one restart, not two


def test_connection_refused_is_retried_with_backoff_then_raised(sleeps: list[float]) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    policy = RetryPolicy(max_retries=3, backoff_base=0.5, backoff_max=1.0)
    client = Scorpion(f"http://127.0.0.1:{port}", token="t", retry=policy)
    with client, pytest.raises(TransportError) as caught:
        client.games.create()  # even a create: the request never left
    assert len(sleeps) == 3
    assert all(0 <= wait <= bound for wait, bound in zip(sleeps, [0.5, 1.0, 1.0], strict=True))
    assert str(port) in str(caught.value)


@pytest.fixture
def low_rates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        SimpleRateThrottle, "THROTTLE_RATES", {"anon": "100/min", "user": "3/min", "ip": "100/min"}
    )


@pytest.mark.usefixtures("low_rates")
def test_429_is_rate_limited_with_retry_after(make_client: Callable[..., Scorpion]) -> None:
    # Not paced (tests/sdk/test_rate_limit.py): the fourth request goes and meets the 429.
    client = make_client(retry=RetryPolicy(max_retries=0, pace=False))
    for _ in range(3):
        client.me.get()
    with pytest.raises(RateLimited) as caught:
        client.me.get()
    error = caught.value
    assert (error.status, error.code) == (429, "throttled")
    assert error.retry_after is not None
    assert 1 <= error.retry_after <= 60
    assert error.detail
    assert error.detail in str(error)


@pytest.mark.usefixtures("low_rates")
def test_429_is_retried_after_the_time_the_server_asks(
    make_client: Callable[..., Scorpion], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server's throttles and the client's waits share one fake clock, so that honouring
    # a Retry-After of up to a minute takes no real time.
    now = [time.time()]
    monkeypatch.setattr(SimpleRateThrottle, "timer", staticmethod(lambda: now[0]))
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    monkeypatch.setattr("scorpion_client._sync._sleep", sleep)
    client = make_client(retry=RetryPolicy(max_retries=2, pace=False))
    for _ in range(4):
        assert client.me.get().email
    assert len(waits) == 1
    assert 1 <= waits[0] <= 60


@pytest.mark.usefixtures("low_rates")
def test_a_retry_after_longer_than_the_policy_allows_is_not_waited_for(
    make_client: Callable[..., Scorpion], sleeps: list[float]
) -> None:
    client = make_client(retry=RetryPolicy(max_retries=5, max_retry_after=0.5))
    for _ in range(3):
        client.me.get()
    with pytest.raises(RateLimited):
        client.me.get()
    assert sleeps == []
