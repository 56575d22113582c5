"""The asynchronous client, on ``httpx.AsyncClient``.

Requests are built and answers read by the shared code of ``_core``; this module only sends
them and waits. The resources it holds (``auth``, ``oauth``, ``games``, ``daily``, ``stats``,
``me``) are in modules of their own: ``_async_auth``, ``_async_games``, ``_async_daily`` and
``_async_account``.

This file is the source of ``_sync.py``, which ``scripts/unasync.py`` writes from it
(``await`` dropped, the ``Async`` prefix of names dropped, ...); ``make test`` fails when the
two differ.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import replace
from types import TracebackType
from typing import Any, TypeVar

import httpx

from scorpion_client._async_account import AsyncMeResource, AsyncStatsResource
from scorpion_client._async_auth import AsyncAuthResource, AsyncOAuthResource
from scorpion_client._async_daily import AsyncDailyResource
from scorpion_client._async_games import AsyncGameHandle, AsyncGamesResource
from scorpion_client._async_social import AsyncSocialResource
from scorpion_client._core import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    NOT_GIVEN,
    BaseClient,
    NotGiven,
    Ops,
    RetryPolicy,
    Spec,
    StreamFollower,
    StreamOptions,
    StreamSpec,
    error_from_response,
    resolve_base_url,
    transport_error,
)
from scorpion_client.errors import TransportError
from scorpion_client.models import Page, VariantInfo
from scorpion_client.oauth import OAuthToken, TokenType

T = TypeVar("T")
P = TypeVar("P", bound=Page[Any])

__all__ = ["AsyncGameHandle", "AsyncScorpion"]

# How the client waits between retries (a module attribute, so tests can make it instant).
_sleep = asyncio.sleep

Timeout = float | httpx.Timeout | None


class AsyncScorpion(BaseClient):
    """The Scorpion API client.

    >>> async with AsyncScorpion("http://127.0.0.1:8000") as client:
    ...     await client.auth.login("me@example.com", "a long password 42")  # keeps the token
    ...     game = await client.games.create(seed=42)
    ...     await game.move("8H")

    ``base_url``: the server (default: ``$SCORPION_URL``, else http://127.0.0.1:8000).
    ``token``: a token to send (default: ``$SCORPION_TOKEN``): a session token of the
    account's own sessions (``token_type="session"``, the default: ``X-Session-Token``), or an
    OAuth access token of a third-party app (``token_type="bearer"``: ``Authorization:
    Bearer``; an ``OAuthToken`` is always one). With ``refresh_token`` and ``client_id`` (and
    ``client_secret`` for a confidential app), an expired bearer token is refreshed by itself
    and ``on_token_refresh`` is told each new ``OAuthToken`` (store its refresh token: each
    refresh spends the old one). ``timeout``: seconds, or an ``httpx.Timeout``, for every
    request (``with_options(timeout=...)`` for some calls). ``max_retries``: re-sends after
    connection errors, timeouts, 429 and 5xx (see ``RetryPolicy``; ``retry=`` for full
    control). ``transport`` or ``http_client``: a custom httpx transport or client (proxies,
    tests); the SDK still sends its own User-Agent, Accept and timeout through it, and closes
    only a client it made.
    """

    def __init__(
        self,
        base_url: str | None = None,
        token: str | OAuthToken | None = None,
        *,
        token_type: TokenType | None = None,
        refresh_token: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        on_token_refresh: Callable[[OAuthToken], None] | None = None,
        timeout: Timeout = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(
            resolve_base_url(base_url, http_client),
            token,
            token_type=token_type,
            refresh_token=refresh_token,
            client_id=client_id,
            client_secret=client_secret,
            on_token_refresh=on_token_refresh,
            timeout=timeout,
            max_retries=max_retries,
            retry=retry,
            headers=headers,
        )
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout, transport=transport)
        self._refresh_lock = asyncio.Lock()
        self._bind()

    def _bind(self) -> None:
        self.auth = AsyncAuthResource(self)
        self.oauth = AsyncOAuthResource(self)
        self.games = AsyncGamesResource(self)
        self.daily = AsyncDailyResource(self)
        self.stats = AsyncStatsResource(self)
        self.me = AsyncMeResource(self)
        self.social = AsyncSocialResource(self)

    def with_options(
        self, *, timeout: Timeout | NotGiven = NOT_GIVEN, max_retries: int | None = None
    ) -> AsyncScorpion:
        """A view of this client with another timeout or number of retries, for some calls:
        ``await client.with_options(timeout=2).games.get(game_id)``. It shares the
        connections and the token (a refresh made by one is seen by the other); close the
        original, not the view."""
        view = copy.copy(self)
        if not isinstance(timeout, NotGiven):
            view.timeout = timeout
        if max_retries is not None:
            view.retry = replace(self.retry, max_retries=max_retries)
        view._owns_http = False
        view._bind()
        return view

    async def request(self, spec: Spec[T], *, timeout: Timeout | NotGiven = NOT_GIVEN) -> T:
        """Send one call, re-sending it as the retry policy allows, and read its answer. A
        bearer token that expired (or is refused with 401) is refreshed once, if it can be."""
        seconds = self.timeout if isinstance(timeout, NotGiven) else timeout
        if self._should_refresh(spec):
            await self._refresh(self.token)
        attempt = 0
        refreshed = False
        while True:
            pause = self._pace_delay()
            if pause:
                await _sleep(pause)
            sent_token = self.token
            request = self._build(self._http, spec, seconds)
            try:
                response = await self._http.send(request)
                self._note_rate_limit(response)
            except httpx.RequestError as exc:
                delay = self._delay_after_error(spec, attempt, exc)
                if delay is None:
                    raise transport_error(exc, request) from exc
                self._log_retry(request, type(exc).__name__, delay, attempt)
            else:
                if self._refresh_after(spec, response, refreshed):
                    await response.aclose()
                    await self._refresh(sent_token)
                    refreshed = True
                    continue
                delay = self._delay_after_response(spec, attempt, response)
                if delay is None:
                    return self._finish(spec, response)
                await response.aclose()
                self._log_retry(request, f"HTTP {response.status_code}", delay, attempt)
            await _sleep(delay)
            attempt += 1

    async def _refresh(self, stale_token: str | None) -> None:
        """Trade the refresh token for new tokens, unless another call already did since
        ``stale_token`` was sent (a refresh token serves once)."""
        async with self._refresh_lock:
            if self.token != stale_token:
                return
            token = await self.request(Ops.oauth_token(self.credentials.refresh_form()))
            self.credentials.use(token)

    async def _wait(self, seconds: float) -> None:
        """A wait of one of the resources (a device-code poll, an analysis not ready yet):
        through this module's ``_sleep``, as the client's own waits, so that replacing that one
        function (as the tests do) makes every wait instant."""
        await _sleep(seconds)

    async def iter_pages(self, spec: Spec[P]) -> AsyncIterator[P]:
        """Every page of a paginated list, following ``next`` links."""
        while True:
            page = await self.request(spec)
            yield page
            if not page.next:
                return
            spec = spec.follow(page.next, self.base_url)

    async def follow(
        self,
        spec: StreamSpec[T],
        *,
        last_event_id: str | None = None,
        options: StreamOptions | None = None,
    ) -> AsyncIterator[T]:
        """The events of a stream, opening it again whenever it drops (with the last event id
        seen, so that nothing is missed or repeated), until the server ends it."""
        follower = StreamFollower(spec, options or StreamOptions(), last_event_id)
        refreshed = False
        while True:
            sent_token = self.token
            request = follower.request(self, self._http)
            error: Exception | None = None
            try:
                response = await self._http.send(request, stream=True)
            except httpx.TransportError as exc:
                error = exc
            else:
                try:
                    if (
                        response.status_code == 401
                        and not refreshed
                        and self.credentials.can_refresh
                    ):
                        # The access token expired while the stream was open: refresh, resume.
                        await response.aread()
                        await self._refresh(sent_token)
                        refreshed = True
                        continue
                    if response.status_code != 200:
                        await response.aread()
                        delay = follower.delay_after_answer(response)
                        if delay is None:
                            raise error_from_response(response)
                        await _sleep(delay)
                        continue
                    refreshed = False
                    async for line in response.aiter_lines():
                        item = follower.line(line)
                        if item is not None:
                            yield item
                        if follower.ended:
                            return
                        if follower.reopen:
                            break
                except httpx.TransportError as exc:
                    error = exc
                finally:
                    await response.aclose()
            delay = follower.delay_after_close(error)
            if delay is None:
                if follower.ended:
                    return
                if isinstance(error, httpx.RequestError):
                    raise transport_error(error, request) from error
                raise TransportError(f"GET {request.url}: the stream keeps closing")
            if delay:
                await _sleep(delay)

    async def variants(self) -> list[VariantInfo]:
        """The games of the Scorpion family a game may be (``games.create(variant=...)``),
        Scorpion first, each with its layout and its rules in brief."""
        return await self.request(Ops.variants())

    async def aclose(self) -> None:
        """Close the connections (of the HTTP client the SDK made; one passed as
        ``http_client`` stays open, its owner closes it)."""
        if self._owns_http:
            await self._http.aclose()

    async def close(self) -> None:  # unasync: remove
        """The same as ``aclose()``."""  # unasync: remove
        await self.aclose()  # unasync: remove

    async def __aenter__(self) -> AsyncScorpion:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
