"""The asynchronous client, on ``httpx.AsyncClient``: the same surface as ``Scorpion``, with
``await`` (and ``async for`` for the iterators). Requests are built and answers read by the
same code as the sync client's (``_core``)."""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator, Mapping
from dataclasses import fields
from types import TracebackType
from typing import Any, TypeVar

import httpx

from scorpion_client._core import (
    DEFAULT_BASE_URL,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    BaseClient,
    GameRef,
    Ops,
    RetryPolicy,
    Spec,
    StreamFollower,
    StreamOptions,
    StreamSpec,
    error_from_response,
    transport_error,
)
from scorpion_client.errors import TransportError, VersionConflict
from scorpion_client.models import (
    CommandResult,
    Daily,
    Event,
    FeedEvent,
    Game,
    GameStreamEvent,
    GameUpdate,
    Hints,
    Leaderboard,
    LeaderboardEntry,
    Me,
    Page,
    Session,
    Stats,
)

T = TypeVar("T")
P = TypeVar("P", bound=Page[Any])

__all__ = ["AsyncGameHandle", "AsyncScorpion"]

# How the client waits between retries (a module attribute, so tests can make it instant).
_sleep = asyncio.sleep


class AsyncScorpion(BaseClient):
    """The Scorpion API client for asyncio; see ``Scorpion`` for the parameters.

    >>> async with AsyncScorpion("http://127.0.0.1:8000", token=token) as client:
    ...     game = await client.games.create(seed=42)
    ...     await game.move("8H")
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        token: str | None = None,
        *,
        timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(
            base_url, token, timeout=timeout, max_retries=max_retries, retry=retry, headers=headers
        )
        self._http = http_client or httpx.AsyncClient(
            base_url=self.base_url,
            timeout=timeout,
            transport=transport,
            headers=self.default_headers,
        )
        self.auth = AsyncAuthResource(self)
        self.games = AsyncGamesResource(self)
        self.daily = AsyncDailyResource(self)
        self.stats = AsyncStatsResource(self)
        self.me = AsyncMeResource(self)

    async def request(self, spec: Spec[T]) -> T:
        """Send one call, re-sending it as the retry policy allows, and read its answer."""
        attempt = 0
        while True:
            request = self._build(self._http, spec)
            try:
                response = await self._http.send(request)
            except httpx.RequestError as exc:
                delay = self._delay_after_error(spec, attempt, exc)
                if delay is None:
                    raise transport_error(exc, request) from exc
                self._log_retry(request, type(exc).__name__, delay, attempt)
            else:
                delay = self._delay_after_response(spec, attempt, response)
                if delay is None:
                    return self._finish(spec, response)
                await response.aclose()
                self._log_retry(request, f"HTTP {response.status_code}", delay, attempt)
            await _sleep(delay)
            attempt += 1

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
        while True:
            request = follower.request(self, self._http)
            error: Exception | None = None
            try:
                response = await self._http.send(request, stream=True)
            except httpx.TransportError as exc:
                error = exc
            else:
                try:
                    if response.status_code != 200:
                        await response.aread()
                        delay = follower.delay_after_answer(response)
                        if delay is None:
                            raise error_from_response(response)
                        await _sleep(delay)
                        continue
                    async for line in response.aiter_lines():
                        item = follower.line(line)
                        if item is not None:
                            yield item
                        if follower.ended:
                            return
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

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncScorpion:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class AsyncAuthResource:
    def __init__(self, client: AsyncScorpion) -> None:
        self._client = client

    async def signup(self, email: str, password: str) -> Session:
        session = await self._client.request(Ops.signup(email, password))
        self._client.token = session.token
        return session

    async def login(self, email: str, password: str) -> Session:
        session = await self._client.request(Ops.login(email, password))
        self._client.token = session.token
        return session

    async def logout(self) -> None:
        if self._client.token:
            await self._client.request(Ops.logout())
        self._client.token = None


class AsyncGamesResource:
    def __init__(self, client: AsyncScorpion) -> None:
        self._client = client

    async def create(
        self,
        *,
        mode: str | None = None,
        seed: int | None = None,
        code: str | None = None,
        pysol_number: int | None = None,
    ) -> AsyncGameHandle:
        spec = Ops.games_create(mode=mode, seed=seed, code=code, pysol_number=pysol_number)
        return self.handle(await self._client.request(spec))

    async def list(
        self,
        *,
        status: str | None = None,
        mode: str | None = None,
        page: int | None = None,
        page_size: int | None = None,
    ) -> Page[Game]:
        spec = Ops.games_list(status=status, mode=mode, page=page, page_size=page_size)
        return await self._client.request(spec)

    async def iter_all(
        self, *, status: str | None = None, mode: str | None = None, page_size: int = 100
    ) -> AsyncIterator[Game]:
        spec = Ops.games_list(status=status, mode=mode, page_size=page_size)
        async for page in self._client.iter_pages(spec):
            for game in page.results:
                yield game

    async def get(self, game: GameRef) -> AsyncGameHandle:
        return self.handle(await self._client.request(Ops.games_get(game)))

    def handle(self, game: Game) -> AsyncGameHandle:
        return AsyncGameHandle(self, game)

    async def command(
        self,
        game: GameRef,
        command: Mapping[str, Any],
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CommandResult:
        spec = Ops.games_command(
            game, command, expected_version=expected_version, idempotency_key=idempotency_key
        )
        return await self._client.request(spec)

    async def move(
        self,
        game: GameRef,
        card: str,
        to: int | None = None,
        *,
        expected_version: int | None = None,
    ) -> CommandResult:
        command = Ops.move_command(card, to)
        return await self.command(game, command, expected_version=expected_version)

    async def deal(self, game: GameRef, *, expected_version: int | None = None) -> CommandResult:
        return await self.command(game, {"type": "deal"}, expected_version=expected_version)

    async def undo(self, game: GameRef, *, expected_version: int | None = None) -> CommandResult:
        return await self.command(game, {"type": "undo"}, expected_version=expected_version)

    async def redo(self, game: GameRef, *, expected_version: int | None = None) -> CommandResult:
        return await self.command(game, {"type": "redo"}, expected_version=expected_version)

    async def resign(self, game: GameRef, *, expected_version: int | None = None) -> CommandResult:
        return await self.command(game, {"type": "resign"}, expected_version=expected_version)

    async def hints(self, game: GameRef) -> Hints:
        return await self._client.request(Ops.games_hints(game))

    async def events(self, game: GameRef) -> builtins.list[Event]:
        return [event async for event in self.iter_events(game)]

    async def iter_events(
        self, game: GameRef, *, after: int = 0, page_size: int = 100
    ) -> AsyncIterator[Event]:
        spec = Ops.games_events(game, after=after or None, limit=page_size)
        async for page in self._client.iter_pages(spec):
            for event in page.results:
                yield event

    async def export_events(self, game: GameRef) -> builtins.list[Event]:
        return await self._client.request(Ops.games_events_export(game))

    async def state(self, game: GameRef, version: int) -> Game:
        return await self._client.request(Ops.games_state(game, version))

    async def replay(
        self, game: GameRef, *, start: int = 0, stop: int | None = None, page_size: int = 50
    ) -> AsyncIterator[Game]:
        spec = Ops.games_states(game, start=start, limit=page_size)
        async for page in self._client.iter_pages(spec):
            for state in page.results:
                if stop is not None and state.version > stop:
                    return
                yield state

    async def restart(self, game: GameRef) -> AsyncGameHandle:
        return self.handle(await self._client.request(Ops.games_restart(game)))

    def stream(
        self,
        game: GameRef,
        *,
        since: int | None = None,
        last_event_id: str | None = None,
        options: StreamOptions | None = None,
    ) -> AsyncIterator[GameStreamEvent]:
        """Follow a game live (``async for``); see ``Scorpion.games.stream``."""
        return self._client.follow(
            Ops.game_stream(game, since), last_event_id=last_event_id, options=options
        )


class AsyncGameHandle(Game):
    """``GameHandle`` for the async client: the same methods, to be awaited."""

    last_event: Event | None

    def __init__(self, games: AsyncGamesResource, game: Game) -> None:
        self._games = games
        self.last_event = None
        self._update(game)

    def _update(self, game: Game) -> None:
        for f in fields(Game):
            setattr(self, f.name, getattr(game, f.name))

    async def _command(self, command: Mapping[str, Any], check_version: bool) -> Event:
        try:
            result = await self._games.command(
                self.id, command, expected_version=self.version if check_version else None
            )
        except VersionConflict as conflict:
            current = conflict.current_game
            if current is not None:
                self._update(current)
            raise
        self._update(result.game)
        self.last_event = result.event
        return result.event

    async def move(self, card: str, to: int | None = None, *, check_version: bool = True) -> Event:
        return await self._command(Ops.move_command(card, to), check_version)

    async def deal(self, *, check_version: bool = True) -> Event:
        return await self._command({"type": "deal"}, check_version)

    async def undo(self, *, check_version: bool = True) -> Event:
        return await self._command({"type": "undo"}, check_version)

    async def redo(self, *, check_version: bool = True) -> Event:
        return await self._command({"type": "redo"}, check_version)

    async def resign(self, *, check_version: bool = True) -> Event:
        return await self._command({"type": "resign"}, check_version)

    async def hints(self) -> Hints:
        return await self._games.hints(self.id)

    async def events(self) -> builtins.list[Event]:
        return await self._games.events(self.id)

    async def state_at(self, version: int) -> Game:
        return await self._games.state(self.id, version)

    def replay(self) -> AsyncIterator[Game]:
        return self._games.replay(self.id, stop=self.version)

    async def refresh(self) -> AsyncGameHandle:
        spec = Ops.games_get_if_changed(self.id, self.version)
        current = await self._games._client.request(spec)
        if current is not None:
            self._update(current)
        return self

    async def restart(self) -> AsyncGameHandle:
        return await self._games.restart(self.id)

    async def stream(
        self, *, options: StreamOptions | None = None
    ) -> AsyncIterator[GameStreamEvent]:
        """Follow this game live from the version this handle holds (``async for``); each
        event also brings the handle up to date. See ``GameHandle.stream``."""
        async for item in self._games.stream(self.id, since=self.version, options=options):
            if item.version >= self.version:
                self._update(item.game)
                if isinstance(item, GameUpdate):
                    self.last_event = item.event
            yield item


class AsyncDailyResource:
    def __init__(self, client: AsyncScorpion) -> None:
        self._client = client

    async def today(self) -> Daily:
        return await self._client.request(Ops.daily_today())

    async def play(self) -> AsyncGameHandle:
        return await self._client.games.create(mode="daily")

    async def leaderboard(
        self, date: str | None = None, *, page: int | None = None, page_size: int | None = None
    ) -> Leaderboard:
        day = date or (await self.today()).date.isoformat()
        spec = Ops.daily_leaderboard(day, page=page, page_size=page_size)
        return await self._client.request(spec)

    async def iter_leaderboard(
        self, date: str | None = None, *, page_size: int | None = None
    ) -> AsyncIterator[LeaderboardEntry]:
        day = date or (await self.today()).date.isoformat()
        async for result in self._client.iter_pages(
            Ops.daily_leaderboard(day, page_size=page_size)
        ):
            for entry in result.results:
                yield entry


class AsyncStatsResource:
    def __init__(self, client: AsyncScorpion) -> None:
        self._client = client

    async def get(self) -> Stats:
        return await self._client.request(Ops.stats())


class AsyncMeResource:
    def __init__(self, client: AsyncScorpion) -> None:
        self._client = client

    async def get(self) -> Me:
        return await self._client.request(Ops.me())

    def stream(
        self, *, last_event_id: str | None = None, options: StreamOptions | None = None
    ) -> AsyncIterator[FeedEvent]:
        """The player's feed, live (``async for``); see ``Scorpion.me.stream``."""
        return self._client.follow(Ops.me_stream(), last_event_id=last_event_id, options=options)

    async def export(self) -> dict[str, Any]:
        return await self._client.request(Ops.me_export())

    async def delete_data(self) -> dict[str, int]:
        return await self._client.request(Ops.me_delete_data())

    async def delete_account(self) -> dict[str, int]:
        deleted = await self._client.request(Ops.me_delete())
        self._client.token = None
        return deleted
