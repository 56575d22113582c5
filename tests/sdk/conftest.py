"""SDK tests: the real server (pytest-django's ``live_server``, the test database) and real
HTTP. Transports are wrapped only to drop a connection at a chosen moment."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from scorpion_client import Scorpion

from tests.data import DEALS

WON_DEAL: dict[str, Any] = DEALS["won"][0]
PASSWORD = "correct horse battery staple"

_emails = itertools.count()

# Django's test server and a kept-alive connection meet the 40 ms delayed-ACK stall on every
# request (headers and body go out in separate writes); a connection per request avoids it.
# Real servers (gunicorn behind a proxy) do not have it; this only keeps the suite fast.
NO_KEEP_ALIVE = httpx.Limits(max_keepalive_connections=0)


def fast_transport() -> httpx.HTTPTransport:
    return httpx.HTTPTransport(limits=NO_KEEP_ALIVE)


def fast_async_transport() -> httpx.AsyncHTTPTransport:
    return httpx.AsyncHTTPTransport(limits=NO_KEEP_ALIVE)


def new_email() -> str:
    return f"sdk-player{next(_emails)}@example.com"


@pytest.fixture
def server_url(live_server: Any) -> str:
    return str(live_server.url)


@pytest.fixture
def make_client(server_url: str) -> Iterator[Callable[..., Scorpion]]:
    """Clients on the live server; signed up as a new player unless ``signed_up=False``."""
    clients: list[Scorpion] = []

    def make(*, signed_up: bool = True, **kwargs: Any) -> Scorpion:
        kwargs.setdefault("transport", fast_transport())
        client = Scorpion(server_url, **kwargs)
        clients.append(client)
        if signed_up:
            client.auth.signup(new_email(), PASSWORD)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def client(make_client: Callable[..., Scorpion]) -> Scorpion:
    return make_client()


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Retries wait no real time; the waits asked for are recorded."""
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def async_sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("scorpion_client._sync._sleep", sleep)
    monkeypatch.setattr("scorpion_client._async._sleep", async_sleep)
    return waits


def is_command(request: httpx.Request) -> bool:
    return request.method == "POST" and request.url.path.endswith("/commands/")


class DropFirstResponse(httpx.BaseTransport):
    """Forwards every request to the server, but loses the answer to the first one that
    ``match`` selects (the server has acted on it), as a dropped connection would."""

    def __init__(self, match: Callable[[httpx.Request], bool] = is_command) -> None:
        self.inner = fast_transport()
        self.match = match
        self.sent: list[httpx.Request] = []
        self.dropped = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        response = self.inner.handle_request(request)
        if self.dropped == 0 and self.match(request):
            response.read()
            response.close()
            self.dropped += 1
            raise httpx.ReadError("connection dropped before the answer", request=request)
        return response

    def close(self) -> None:
        self.inner.close()


class AsyncDropFirstResponse(httpx.AsyncBaseTransport):
    def __init__(self, match: Callable[[httpx.Request], bool] = is_command) -> None:
        self.inner = fast_async_transport()
        self.match = match
        self.sent: list[httpx.Request] = []
        self.dropped = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        response = await self.inner.handle_async_request(request)
        if self.dropped == 0 and self.match(request):
            await response.aread()
            await response.aclose()
            self.dropped += 1
            raise httpx.ReadError("connection dropped before the answer", request=request)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
