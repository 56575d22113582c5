"""The synchronous client, on ``httpx.Client``."""

from __future__ import annotations

import builtins
import time
from collections.abc import Iterator, Mapping
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

__all__ = ["GameHandle", "Scorpion"]

# How the client waits between retries (a module attribute, so tests can make it instant).
_sleep = time.sleep


class Scorpion(BaseClient):
    """The Scorpion API client.

    >>> client = Scorpion("http://127.0.0.1:8000")
    >>> client.auth.login("me@example.com", "a long password 42")   # keeps the token
    >>> game = client.games.create(seed=42)
    >>> game.move("8H")

    ``token``: an existing session token (``X-Session-Token``). ``timeout``: seconds, or an
    ``httpx.Timeout``. ``max_retries``: re-sends after connection errors, timeouts, 429 and
    5xx (see ``RetryPolicy``; pass ``retry=`` for full control). ``transport`` or
    ``http_client``: a custom httpx transport or client (proxies, tests).
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
        transport: httpx.BaseTransport | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        super().__init__(
            base_url, token, timeout=timeout, max_retries=max_retries, retry=retry, headers=headers
        )
        self._http = http_client or httpx.Client(
            base_url=self.base_url,
            timeout=timeout,
            transport=transport,
            headers=self.default_headers,
        )
        self.auth = AuthResource(self)
        self.games = GamesResource(self)
        self.daily = DailyResource(self)
        self.stats = StatsResource(self)
        self.me = MeResource(self)

    def request(self, spec: Spec[T]) -> T:
        """Send one call, re-sending it as the retry policy allows, and read its answer."""
        attempt = 0
        while True:
            request = self._build(self._http, spec)
            try:
                response = self._http.send(request)
            except httpx.RequestError as exc:
                delay = self._delay_after_error(spec, attempt, exc)
                if delay is None:
                    raise transport_error(exc, request) from exc
                self._log_retry(request, type(exc).__name__, delay, attempt)
            else:
                delay = self._delay_after_response(spec, attempt, response)
                if delay is None:
                    return self._finish(spec, response)
                response.close()
                self._log_retry(request, f"HTTP {response.status_code}", delay, attempt)
            _sleep(delay)
            attempt += 1

    def iter_pages(self, spec: Spec[P]) -> Iterator[P]:
        """Every page of a paginated list, following ``next`` links."""
        while True:
            page = self.request(spec)
            yield page
            if not page.next:
                return
            spec = spec.follow(page.next, self.base_url)

    def follow(
        self,
        spec: StreamSpec[T],
        *,
        last_event_id: str | None = None,
        options: StreamOptions | None = None,
    ) -> Iterator[T]:
        """The events of a stream, opening it again whenever it drops (with the last event id
        seen, so that nothing is missed or repeated), until the server ends it."""
        follower = StreamFollower(spec, options or StreamOptions(), last_event_id)
        while True:
            request = follower.request(self, self._http)
            error: Exception | None = None
            try:
                response = self._http.send(request, stream=True)
            except httpx.TransportError as exc:
                error = exc
            else:
                try:
                    if response.status_code != 200:
                        response.read()
                        delay = follower.delay_after_answer(response)
                        if delay is None:
                            raise error_from_response(response)
                        _sleep(delay)
                        continue
                    for line in response.iter_lines():
                        item = follower.line(line)
                        if item is not None:
                            yield item
                        if follower.ended:
                            return
                except httpx.TransportError as exc:
                    error = exc
                finally:
                    response.close()
            delay = follower.delay_after_close(error)
            if delay is None:
                if follower.ended:
                    return
                if isinstance(error, httpx.RequestError):
                    raise transport_error(error, request) from error
                raise TransportError(f"GET {request.url}: the stream keeps closing")
            if delay:
                _sleep(delay)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Scorpion:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AuthResource:
    """Sign-up, log-in and log-out (allauth headless, ``app`` client)."""

    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def signup(self, email: str, password: str) -> Session:
        """Create an account and sign in: the client keeps the session token."""
        session = self._client.request(Ops.signup(email, password))
        self._client.token = session.token
        return session

    def login(self, email: str, password: str) -> Session:
        """Log in: the client keeps the session token."""
        session = self._client.request(Ops.login(email, password))
        self._client.token = session.token
        return session

    def logout(self) -> None:
        """End the session on the server and forget the token."""
        if self._client.token:
            self._client.request(Ops.logout())
        self._client.token = None


class GamesResource:
    """The caller's games: create, list, read, play (commands), hints, history, replay."""

    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def create(
        self,
        *,
        mode: str | None = None,
        seed: int | None = None,
        code: str | None = None,
        pysol_number: int | None = None,
    ) -> GameHandle:
        """A new game: random (no argument, or ``mode="random"``), the deal of a ``seed``, a
        deal ``code`` (104 characters), a PySolFC ``pysol_number``, ``mode="daily"`` (today's
        challenge) or ``mode="winnable"`` (a deal the solver proved winnable)."""
        spec = Ops.games_create(mode=mode, seed=seed, code=code, pysol_number=pysol_number)
        return self.handle(self._client.request(spec))

    def list(
        self,
        *,
        status: str | None = None,
        mode: str | None = None,
        page: int | None = None,
        page_size: int | None = None,
    ) -> Page[Game]:
        """One page of the caller's games, newest first."""
        spec = Ops.games_list(status=status, mode=mode, page=page, page_size=page_size)
        return self._client.request(spec)

    def iter_all(
        self, *, status: str | None = None, mode: str | None = None, page_size: int = 100
    ) -> Iterator[Game]:
        """Every game of the caller, newest first, fetching page after page as needed."""
        spec = Ops.games_list(status=status, mode=mode, page_size=page_size)
        for page in self._client.iter_pages(spec):
            yield from page.results

    def get(self, game: GameRef) -> GameHandle:
        return self.handle(self._client.request(Ops.games_get(game)))

    def handle(self, game: Game) -> GameHandle:
        """A handle on a game already fetched (e.g. from ``list``), without a request."""
        return GameHandle(self, game)

    def command(
        self,
        game: GameRef,
        command: Mapping[str, Any],
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CommandResult:
        """Send a command (``{"type": "move", "card": "8H"}``, ``{"type": "deal"}``, ...).

        ``expected_version``: apply only if the game is still at that version, else
        ``VersionConflict``. ``idempotency_key``: defaults to a new UUID, reused by every retry
        of this call, so that the command is applied once.
        """
        spec = Ops.games_command(
            game, command, expected_version=expected_version, idempotency_key=idempotency_key
        )
        return self._client.request(spec)

    def move(
        self,
        game: GameRef,
        card: str,
        to: int | None = None,
        *,
        expected_version: int | None = None,
    ) -> CommandResult:
        """Move ``card`` (and everything on it). ``to`` (0-6) picks the empty column for a
        King; otherwise the destination is found by the server."""
        return self.command(game, Ops.move_command(card, to), expected_version=expected_version)

    def deal(self, game: GameRef, *, expected_version: int | None = None) -> CommandResult:
        return self.command(game, {"type": "deal"}, expected_version=expected_version)

    def undo(self, game: GameRef, *, expected_version: int | None = None) -> CommandResult:
        return self.command(game, {"type": "undo"}, expected_version=expected_version)

    def redo(self, game: GameRef, *, expected_version: int | None = None) -> CommandResult:
        return self.command(game, {"type": "redo"}, expected_version=expected_version)

    def resign(self, game: GameRef, *, expected_version: int | None = None) -> CommandResult:
        return self.command(game, {"type": "resign"}, expected_version=expected_version)

    def hints(self, game: GameRef) -> Hints:
        return self._client.request(Ops.games_hints(game))

    def events(self, game: GameRef) -> builtins.list[Event]:
        """The whole history, oldest first, undos and redos included (page after page)."""
        return builtins.list(self.iter_events(game))

    def iter_events(
        self, game: GameRef, *, after: int = 0, page_size: int = 100
    ) -> Iterator[Event]:
        """The events after seq ``after``, oldest first, fetching page after page (a cursor
        by seq) as the iteration goes."""
        spec = Ops.games_events(game, after=after or None, limit=page_size)
        for page in self._client.iter_pages(spec):
            yield from page.results

    def export_events(self, game: GameRef) -> builtins.list[Event]:
        """The whole history in one request (the server's streamed export)."""
        return self._client.request(Ops.games_events_export(game))

    def state(self, game: GameRef, version: int) -> Game:
        """The game as it stood after ``version`` events (0: the deal)."""
        return self._client.request(Ops.games_state(game, version))

    def replay(
        self, game: GameRef, *, start: int = 0, stop: int | None = None, page_size: int = 50
    ) -> Iterator[Game]:
        """The positions of versions ``start`` to ``stop`` (default: the game's last
        version), fetched a page of ``page_size`` states at a time as the iteration goes."""
        spec = Ops.games_states(game, start=start, limit=page_size)
        for page in self._client.iter_pages(spec):
            for state in page.results:
                if stop is not None and state.version > stop:
                    return
                yield state

    def restart(self, game: GameRef) -> GameHandle:
        """A new game with the same deal."""
        return self.handle(self._client.request(Ops.games_restart(game)))

    def stream(
        self,
        game: GameRef,
        *,
        since: int | None = None,
        last_event_id: str | None = None,
        options: StreamOptions | None = None,
    ) -> Iterator[GameStreamEvent]:
        """Follow a game live: a ``GameUpdate`` for every command accepted from now on, from
        any device (after version ``since``; without it, first a ``GameResync`` with the whole
        game). A dropped connection is opened again and resumes after the last version seen,
        so each version comes exactly once. Ends when the game is won or resigned."""
        return self._client.follow(
            Ops.game_stream(game, since), last_event_id=last_event_id, options=options
        )


class GameHandle(Game):
    """A game bound to the client: its fields are the latest state the client knows, and its
    methods play it, updating those fields from each answer.

    Commands send the known ``version`` as ``expected_version`` (``check_version=True``), so a
    move chosen on a stale picture (another device played meanwhile) is refused with
    ``VersionConflict`` rather than applied; the handle then holds the current game.
    """

    last_event: Event | None

    def __init__(self, games: GamesResource, game: Game) -> None:
        self._games = games
        self.last_event = None
        self._update(game)

    def _update(self, game: Game) -> None:
        for f in fields(Game):
            setattr(self, f.name, getattr(game, f.name))

    def _command(self, command: Mapping[str, Any], check_version: bool) -> Event:
        try:
            result = self._games.command(
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

    def move(self, card: str, to: int | None = None, *, check_version: bool = True) -> Event:
        """Move ``card`` (``"8H"``, any case). ``to`` (0-6): the empty column for a King."""
        return self._command(Ops.move_command(card, to), check_version)

    def deal(self, *, check_version: bool = True) -> Event:
        return self._command({"type": "deal"}, check_version)

    def undo(self, *, check_version: bool = True) -> Event:
        return self._command({"type": "undo"}, check_version)

    def redo(self, *, check_version: bool = True) -> Event:
        return self._command({"type": "redo"}, check_version)

    def resign(self, *, check_version: bool = True) -> Event:
        return self._command({"type": "resign"}, check_version)

    def hints(self) -> Hints:
        return self._games.hints(self.id)

    def events(self) -> builtins.list[Event]:
        return self._games.events(self.id)

    def state_at(self, version: int) -> Game:
        return self._games.state(self.id, version)

    def replay(self) -> Iterator[Game]:
        """The positions after 0, 1, ... ``version`` events: the whole game, step by step."""
        return self._games.replay(self.id, stop=self.version)

    def refresh(self) -> GameHandle:
        """Fetch the game again (a conditional GET: nothing is sent back if unchanged)."""
        current = self._games._client.request(Ops.games_get_if_changed(self.id, self.version))
        if current is not None:
            self._update(current)
        return self

    def restart(self) -> GameHandle:
        """A new game with the same deal (this handle stays on the old game)."""
        return self._games.restart(self.id)

    def stream(self, *, options: StreamOptions | None = None) -> Iterator[GameStreamEvent]:
        """Follow this game live, from the version this handle holds: each event (a
        ``GameUpdate``, or a ``GameResync`` after a long absence) also brings the handle up to
        date, so a move made on another device is in its fields at once. Resumes by itself
        after a dropped connection; ends when the game is over.

        >>> for update in game.stream():
        ...     print(update.version, update.game.status)
        """
        for item in self._games.stream(self.id, since=self.version, options=options):
            if item.version >= self.version:
                self._update(item.game)
                if isinstance(item, GameUpdate):
                    self.last_event = item.event
            yield item


class DailyResource:
    """The daily challenge: one deal a day (UTC), the same for every player."""

    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def today(self) -> Daily:
        """The caller's standing on today's challenge."""
        return self._client.request(Ops.daily_today())

    def play(self) -> GameHandle:
        """A new attempt at today's challenge: the first of the day ranks, any later one is
        practice (``GameHandle.ranked`` says which)."""
        return self._client.games.create(mode="daily")

    def leaderboard(
        self, date: str | None = None, *, page: int | None = None, page_size: int | None = None
    ) -> Leaderboard:
        """One page of a day's wins, fastest first (``date``: ``YYYY-MM-DD``, default today)."""
        day = date or self.today().date.isoformat()
        return self._client.request(Ops.daily_leaderboard(day, page=page, page_size=page_size))

    def iter_leaderboard(
        self, date: str | None = None, *, page_size: int | None = None
    ) -> Iterator[LeaderboardEntry]:
        day = date or self.today().date.isoformat()
        for result in self._client.iter_pages(Ops.daily_leaderboard(day, page_size=page_size)):
            yield from result.results


class StatsResource:
    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def get(self) -> Stats:
        """The caller's statistics."""
        return self._client.request(Ops.stats())


class MeResource:
    """The signed-in account and the data stored about it."""

    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def get(self) -> Me:
        return self._client.request(Ops.me())

    def stream(
        self, *, last_event_id: str | None = None, options: StreamOptions | None = None
    ) -> Iterator[FeedEvent]:
        """The player's feed, live: ``GameCreated``, ``GameFinished`` and ``DailyResult`` as
        they happen on any device (``FeedResync``: too much was missed, read your lists
        again). Resumes by itself after a dropped connection; never ends by itself."""
        return self._client.follow(Ops.me_stream(), last_event_id=last_event_id, options=options)

    def export(self) -> dict[str, Any]:
        """Everything stored about the caller, as the server's JSON."""
        return self._client.request(Ops.me_export())

    def delete_data(self) -> dict[str, int]:
        """Remove the caller's games and statistics; the account stays. Returns how many
        rows of each kind were removed (``{"games": 3, "events": 40, ...}``)."""
        return self._client.request(Ops.me_delete_data())

    def delete_account(self) -> dict[str, int]:
        """Close the account (every session ends, all data goes); the client forgets its
        token. Returns how many rows of each kind were removed."""
        deleted = self._client.request(Ops.me_delete())
        self._client.token = None
        return deleted
