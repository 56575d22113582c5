"""The synchronous client, on ``httpx.Client``.

Requests are built and answers read by the shared code of ``_core``; this module only sends
them and waits.

This file is generated from ``_async.py`` by ``scripts/unasync.py``.
"""

# Generated from _async.py by client_sdk/scripts/unasync.py: do not edit, edit _async.py
# and run `make unasync` (`make test` checks that the two agree).

from __future__ import annotations

import threading
import time
import builtins
import copy
import datetime as dt
import time
from collections.abc import Iterator, Callable, Iterable, Mapping, Sequence
from dataclasses import fields, replace
from types import TracebackType
from typing import Any, TypeVar

import httpx

from scorpion_client._core import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    NOT_GIVEN,
    BaseClient,
    GameRef,
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
from scorpion_client.errors import DeviceCodeExpired, OAuthError, TransportError, VersionConflict
from scorpion_client.models import (
    Analysis,
    Chances,
    Command,
    CommandResult,
    Copy,
    CreateMode,
    Daily,
    Difficulty,
    Event,
    FeedEvent,
    Game,
    GameMode,
    GameStatus,
    GameStreamEvent,
    GameUpdate,
    Hints,
    Leaderboard,
    LeaderboardEntry,
    Me,
    Page,
    Session,
    Stats,
    Variant,
    VariantInfo,
)
from scorpion_client.oauth import (
    DEVICE_CODE_GRANT,
    DeviceAuthorization,
    DevicePoll,
    OAuthToken,
    TokenType,
    authorization_url,
)
from scorpion_client.progress import Achievements, Calendar

T = TypeVar("T")
P = TypeVar("P", bound=Page[Any])

__all__ = ["GameHandle", "Scorpion"]

# How the client waits between retries (a module attribute, so tests can make it instant).
_sleep = time.sleep

Timeout = float | httpx.Timeout | None


class Scorpion(BaseClient):
    """The Scorpion API client.

    >>> with Scorpion("http://127.0.0.1:8000") as client:
    ...     client.auth.login("me@example.com", "a long password 42")  # keeps the token
    ...     game = client.games.create(seed=42)
    ...     game.move("8H")

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
        transport: httpx.BaseTransport | None = None,
        http_client: httpx.Client | None = None,
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
        self._http = http_client or httpx.Client(timeout=timeout, transport=transport)
        self._refresh_lock = threading.Lock()
        self._bind()

    def _bind(self) -> None:
        self.auth = AuthResource(self)
        self.oauth = OAuthResource(self)
        self.games = GamesResource(self)
        self.daily = DailyResource(self)
        self.stats = StatsResource(self)
        self.me = MeResource(self)

    def with_options(
        self, *, timeout: Timeout | NotGiven = NOT_GIVEN, max_retries: int | None = None
    ) -> Scorpion:
        """A view of this client with another timeout or number of retries, for some calls:
        ``client.with_options(timeout=2).games.get(game_id)``. It shares the
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

    def request(self, spec: Spec[T], *, timeout: Timeout | NotGiven = NOT_GIVEN) -> T:
        """Send one call, re-sending it as the retry policy allows, and read its answer. A
        bearer token that expired (or is refused with 401) is refreshed once, if it can be."""
        seconds = self.timeout if isinstance(timeout, NotGiven) else timeout
        if self._should_refresh(spec):
            self._refresh(self.token)
        attempt = 0
        refreshed = False
        while True:
            pause = self._pace_delay()
            if pause:
                _sleep(pause)
            sent_token = self.token
            request = self._build(self._http, spec, seconds)
            try:
                response = self._http.send(request)
                self._note_rate_limit(response)
            except httpx.RequestError as exc:
                delay = self._delay_after_error(spec, attempt, exc)
                if delay is None:
                    raise transport_error(exc, request) from exc
                self._log_retry(request, type(exc).__name__, delay, attempt)
            else:
                if self._refresh_after(spec, response, refreshed):
                    response.close()
                    self._refresh(sent_token)
                    refreshed = True
                    continue
                delay = self._delay_after_response(spec, attempt, response)
                if delay is None:
                    return self._finish(spec, response)
                response.close()
                self._log_retry(request, f"HTTP {response.status_code}", delay, attempt)
            _sleep(delay)
            attempt += 1

    def _refresh(self, stale_token: str | None) -> None:
        """Trade the refresh token for new tokens, unless another call already did since
        ``stale_token`` was sent (a refresh token serves once)."""
        with self._refresh_lock:
            if self.token != stale_token:
                return
            token = self.request(Ops.oauth_token(self.credentials.refresh_form()))
            self.credentials.use(token)

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
        refreshed = False
        while True:
            sent_token = self.token
            request = follower.request(self, self._http)
            error: Exception | None = None
            try:
                response = self._http.send(request, stream=True)
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
                        response.read()
                        self._refresh(sent_token)
                        refreshed = True
                        continue
                    if response.status_code != 200:
                        response.read()
                        delay = follower.delay_after_answer(response)
                        if delay is None:
                            raise error_from_response(response)
                        _sleep(delay)
                        continue
                    refreshed = False
                    for line in response.iter_lines():
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

    def variants(self) -> list[VariantInfo]:
        """The games of the Scorpion family a game may be (``games.create(variant=...)``),
        Scorpion first, each with its layout and its rules in brief."""
        return self.request(Ops.variants())

    def close(self) -> None:
        """Close the connections (of the HTTP client the SDK made; one passed as
        ``http_client`` stays open, its owner closes it)."""
        if self._owns_http:
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
    """Sign-up, log-in and log-out (allauth headless, ``app`` client): the account's own
    sessions, for first-party programs. Third-party apps use ``oauth`` instead."""

    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def signup(self, email: str, password: str) -> Session:
        """Create an account and sign in: the client keeps the session token."""
        session = self._client.request(Ops.signup(email, password))
        self._use_session(session)
        return session

    def login(self, email: str, password: str) -> Session:
        """Log in: the client keeps the session token. A wrong e-mail address or password
        raises ``AuthenticationError``."""
        session = self._client.request(Ops.login(email, password))
        self._use_session(session)
        return session

    def _use_session(self, session: Session) -> None:
        credentials = self._client.credentials
        credentials.token = session.token
        credentials.token_type = "session"
        credentials.refresh_token = None
        credentials.expires_at = None

    def logout(self) -> None:
        """End the session on the server and forget the token."""
        if self._client.token:
            self._client.request(Ops.logout())
        self._client.token = None


class OAuthResource:
    """OAuth 2 for third-party apps (RFC 6749, 7636, 8628): the device flow, the exchange
    of an authorization code, refresh and revocation. Each grant makes the client send the
    new access token (``Authorization: Bearer``) and refresh it when it expires."""

    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def authorization_url(
        self,
        *,
        client_id: str,
        redirect_uri: str,
        code_challenge: str,
        scope: str | Iterable[str] | None = None,
        state: str | None = None,
    ) -> str:
        """The consent page's URL on this server (see ``scorpion_client.oauth``)."""
        return authorization_url(
            str(self._client.base_url),
            client_id=client_id,
            redirect_uri=redirect_uri,
            code_challenge=code_challenge,
            scope=scope,
            state=state,
        )

    def device_code(
        self, client_id: str, scope: str | Iterable[str] | None = None
    ) -> DeviceAuthorization:
        """Start the device flow: a code to show the player, and where they enter it."""
        scopes = scope if scope is None or isinstance(scope, str) else " ".join(scope)
        return self._client.request(Ops.oauth_device_code(client_id, scopes))

    def poll_device_token(
        self,
        device: DeviceAuthorization,
        client_id: str,
        *,
        client_secret: str | None = None,
    ) -> OAuthToken:
        """Wait for the player's answer, polling every ``interval`` seconds (5 more after
        each ``slow_down``), and use the token. Raises ``AccessDenied`` when the player
        refuses, ``DeviceCodeExpired`` when the code expires first."""
        poll = DevicePoll(device)
        form = {"grant_type": DEVICE_CODE_GRANT, "device_code": device.device_code}
        form |= self._client_auth(client_id, client_secret)
        wait = poll.interval
        while True:
            if poll.expired():
                raise DeviceCodeExpired(
                    "the device code expired before the player answered", code="expired_token"
                )
            _sleep(wait)
            try:
                token = self._client.request(Ops.oauth_token(form, replay_safe=True))
            except OAuthError as error:
                next_wait = poll.wait_after(error.code or "")
                if next_wait is None:
                    raise
                wait = next_wait
                continue
            self._use(token, client_id, client_secret)
            return token

    def login_with_device(
        self,
        client_id: str,
        scope: str | Iterable[str] | None = None,
        *,
        show: Callable[[DeviceAuthorization], None],
    ) -> OAuthToken:
        """The whole device flow: ``show`` is given the code to show the player (and the
        link), then the call returns once they allowed the app."""
        device = self.device_code(client_id, scope)
        show(device)
        return self.poll_device_token(device, client_id)

    def exchange_code(
        self,
        code: str,
        *,
        code_verifier: str,
        redirect_uri: str,
        client_id: str,
        client_secret: str | None = None,
    ) -> OAuthToken:
        """Trade an authorization code (from the redirect) for tokens, proving the PKCE
        verifier; then use the token."""
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": code_verifier,
        }
        form |= self._client_auth(client_id, client_secret)
        token = self._client.request(Ops.oauth_token(form))
        self._use(token, client_id, client_secret)
        return token

    def refresh(self) -> OAuthToken:
        """Refresh now (the client also does it by itself when the token expires)."""
        form = self._client.credentials.refresh_form()
        token = self._client.request(Ops.oauth_token(form))
        self._client.credentials.use(token)
        return token

    def revoke(self) -> None:
        """Sign the app out: revoke its refresh token (which takes its access tokens with it)
        or its access token (RFC 7009), and forget them."""
        credentials = self._client.credentials
        token = credentials.refresh_token or credentials.token
        if token and credentials.client_id:
            form = {"token": token}
            form |= self._client_auth(credentials.client_id, credentials.client_secret)
            self._client.request(Ops.oauth_revoke(form))
        credentials.token = None
        credentials.refresh_token = None
        credentials.expires_at = None

    @staticmethod
    def _client_auth(client_id: str, client_secret: str | None) -> dict[str, str]:
        form = {"client_id": client_id}
        if client_secret:
            form["client_secret"] = client_secret
        return form

    def _use(self, token: OAuthToken, client_id: str, client_secret: str | None) -> None:
        credentials = self._client.credentials
        credentials.client_id = client_id
        credentials.client_secret = client_secret
        credentials.refresh_token = None
        credentials.use(token)


class GamesResource:
    """The caller's games: create, list, read, play (commands), hints, history, replay."""

    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def create(
        self,
        *,
        mode: CreateMode | None = None,
        seed: int | None = None,
        code: str | None = None,
        pysol_number: int | None = None,
        variant: Variant | None = None,
        difficulty: Difficulty | None = None,
        date: str | None = None,
    ) -> GameHandle:
        """A new game: random (no argument, or ``mode="random"``), the deal of a ``seed``, a
        deal ``code`` (104 characters, 208 for Double Scorpion), a PySolFC ``pysol_number``,
        ``mode="daily"`` (today's challenge) or ``mode="winnable"`` (a deal the solver proved
        winnable). ``variant`` picks the game of the Scorpion family (default Scorpion; see
        ``client.variants()``); a seed or code is read in it; the daily and winnable modes
        are Scorpion only. With ``mode="winnable"``, ``difficulty`` (``"easy"``, ``"medium"``
        or ``"hard"``) draws a deal of that band (docs/difficulty.md); none of it ready raises
        ``ServiceUnavailable`` (``difficulty_unavailable``). With ``mode="daily"``, ``date``
        (``YYYY-MM-DD``, up to 365 days back) plays a past day's daily late: practice, never
        ranked (docs/api.md, "The daily calendar"). Safe to retry: a create whose
        answer was lost is re-sent with the same ``Idempotency-Key``, and the server answers
        with the game the first one made."""
        spec = Ops.games_create(
            mode=mode,
            seed=seed,
            code=code,
            pysol_number=pysol_number,
            variant=variant,
            difficulty=difficulty,
            date=date,
        )
        return self.handle(self._client.request(spec))

    def list(
        self,
        *,
        status: GameStatus | None = None,
        mode: GameMode | None = None,
        page: int | None = None,
        page_size: int | None = None,
        variant: Variant | None = None,
        id_prefix: str | None = None,
    ) -> Page[Game]:
        """One page of the caller's games, newest first (of one ``variant`` if given; with
        ``id_prefix``, 4 to 32 hex digits, only those whose id without its hyphens starts
        with them: ``"6e495f3a"``)."""
        spec = Ops.games_list(
            status=status,
            mode=mode,
            variant=variant,
            id_prefix=id_prefix,
            page=page,
            page_size=page_size,
        )
        return self._client.request(spec)

    def iter_all(
        self,
        *,
        status: GameStatus | None = None,
        mode: GameMode | None = None,
        page_size: int = 100,
        variant: Variant | None = None,
        id_prefix: str | None = None,
    ) -> Iterator[Game]:
        """Every game of the caller, newest first, fetching page after page as needed."""
        spec = Ops.games_list(
            status=status, mode=mode, variant=variant, id_prefix=id_prefix, page_size=page_size
        )
        for page in self._client.iter_pages(spec):
            for game in page.results:
                yield game

    def get(self, game: GameRef) -> GameHandle:
        return self.handle(self._client.request(Ops.games_get(game)))

    def handle(self, game: Game) -> GameHandle:
        """A handle on a game already fetched (e.g. from ``list``), without a request."""
        return GameHandle(self, game)

    def command(
        self,
        game: GameRef,
        command: Command,
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
        from_: int | None = None,
        copy: Copy | None = None,
        expected_version: int | None = None,
    ) -> CommandResult:
        """Move ``card`` (and everything on it). ``to`` (0-based) picks the empty column for a
        King; otherwise the destination is found by the server. ``from_`` (0-based) picks
        the column the card is taken from: needed only in the two-deck variants when copies
        of the card in two columns could move (the server answers ``ambiguous`` otherwise);
        ``copy`` ("upper", the default, or "lower") which of two copies in that column."""
        command = Ops.move_command(card, to, from_, copy)
        return self.command(game, command, expected_version=expected_version)

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

    def analysis(self, game: GameRef, *, wait: float = 60.0) -> Analysis:
        """The solver's analysis of a finished game. While a worker computes it (202), ask
        again after ``retry_after`` seconds, for at most ``wait`` seconds; then the pending
        answer is returned (``Analysis.ready`` is False). Raises ``ConflictError`` while the
        game is on (``game_not_finished``) or its daily deal is secret (``deal_not_revealed``).
        """
        deadline = time.monotonic() + wait
        while True:
            answer = self._client.request(Ops.games_analysis(game))
            pause = float(answer.retry_after or 1)
            if answer.ready or time.monotonic() + pause > deadline:
                return answer
            _sleep(pause)

    def chances(self, game: GameRef, *, wait: float = 60.0) -> Chances:
        """Winning chances per legal action, if every card were known (a solver's wins over
        deals drawn to match the visible table: a player seeing only the table wins less
        often), counted as a hint, once per version. While a
        worker computes them (202), ask again after ``retry_after`` seconds, for at most
        ``wait`` seconds; then the pending answer is returned (``Chances.ready`` is False).
        Raises ``ConflictError`` once the game is over (``game_finished``)."""
        deadline = time.monotonic() + wait
        while True:
            answer = self._client.request(Ops.games_chances(game))
            pause = float(answer.retry_after or 1)
            if answer.ready or time.monotonic() + pause > deadline:
                return answer
            _sleep(pause)

    def prepare_chances(self, game: GameRef) -> Chances:
        """Have the chances of the current version computed in the background, without
        serving them (nothing is counted): ``status`` says "pending" or "ready"."""
        return self._client.request(Ops.games_chances_prepare(game))

    def events(self, game: GameRef) -> builtins.list[Event]:
        return [event for event in self.iter_events(game)]

    def iter_events(
        self, game: GameRef, *, after: int = 0, page_size: int = 100
    ) -> Iterator[Event]:
        spec = Ops.games_events(game, after=after or None, limit=page_size)
        for page in self._client.iter_pages(spec):
            for event in page.results:
                yield event

    def export_events(self, game: GameRef) -> builtins.list[Event]:
        return self._client.request(Ops.games_events_export(game))

    def state(self, game: GameRef, version: int) -> Game:
        """The game as it stood after ``version`` events (0: the deal)."""
        return self._client.request(Ops.games_state(game, version))

    def replay(
        self, game: GameRef, *, start: int = 0, stop: int | None = None, page_size: int = 50
    ) -> Iterator[Game]:
        spec = Ops.games_states(game, start=start, limit=page_size)
        for page in self._client.iter_pages(spec):
            for state in page.results:
                if stop is not None and state.version > stop:
                    return
                yield state

    def result(self, game: GameRef) -> dict[str, Any]:
        """What a finished game meant: time and moves against the player's bests, a first
        win, the streak, a ranked daily's rank, the next daily (docs/api.md)."""
        return self._client.request(Ops.games_result(game))

    def restart(self, game: GameRef) -> GameHandle:
        """A new game with the same deal (safe to retry, as ``create``)."""
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

    def _command(self, command: Command, check_version: bool) -> Event:
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

    def move(
        self,
        card: str,
        to: int | None = None,
        *,
        from_: int | None = None,
        copy: Copy | None = None,
        check_version: bool = True,
    ) -> Event:
        """Move ``card`` (``"8H"``, any case). ``to`` (0-based): the empty column for a King.
        ``from_`` (0-based): the column the card is taken from, when two copies could move
        (two-deck variants; a hint's ``from_`` says it); ``copy``: which of two copies in that
        column ("upper" or "lower"; a hint's ``copy`` says it)."""
        return self._command(Ops.move_command(card, to, from_, copy), check_version)

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

    def analysis(self, *, wait: float = 60.0) -> Analysis:
        return self._games.analysis(self.id, wait=wait)

    def chances(self, *, wait: float = 60.0) -> Chances:
        return self._games.chances(self.id, wait=wait)

    def prepare_chances(self) -> Chances:
        return self._games.prepare_chances(self.id)

    def events(self) -> builtins.list[Event]:
        return self._games.events(self.id)

    def state_at(self, version: int) -> Game:
        return self._games.state(self.id, version)

    def replay(self) -> Iterator[Game]:
        """The positions after 0, 1, ... ``version`` events: the whole game, step by step."""
        return self._games.replay(self.id, stop=self.version)

    def refresh(self) -> GameHandle:
        """Fetch the game again (a conditional GET: nothing is sent back if unchanged)."""
        spec = Ops.games_get_if_changed(self.id, self.version)
        current = self._games._client.request(spec)
        if current is not None:
            self._update(current)
        return self

    def restart(self) -> GameHandle:
        """A new game with the same deal (this handle stays on the old game)."""
        return self._games.restart(self.id)

    def stream(
        self, *, options: StreamOptions | None = None
    ) -> Iterator[GameStreamEvent]:
        """Follow this game live, from the version this handle holds: each event (a
        ``GameUpdate``, or a ``GameResync`` after a long absence) also brings the handle up to
        date, so a move made on another device is in its fields at once. Resumes by itself
        after a dropped connection; ends when the game is over."""
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

    def play(self, date: str | None = None) -> GameHandle:
        """A new attempt at today's challenge: the first of the day ranks, any later one is
        practice (``ranked`` says which). ``date`` (``YYYY-MM-DD``): a past day's, played
        late (practice, never ranked)."""
        return self._client.games.create(mode="daily", date=date)

    def calendar(self, month: str | None = None) -> Calendar:
        """A month (``YYYY-MM``, default this UTC month) of the caller's dailies: each day's
        result, the streaks of days won, the month's badge. Never a deal."""
        month = month or dt.datetime.now(dt.UTC).strftime("%Y-%m")
        return self._client.request(Ops.calendar(month))

    def leaderboard(
        self, date: str | None = None, *, page: int | None = None, page_size: int | None = None
    ) -> Leaderboard:
        """One page of a day's wins, fastest first (``date``: ``YYYY-MM-DD``, default today)."""
        day = date or (self.today()).date.isoformat()
        spec = Ops.daily_leaderboard(day, page=page, page_size=page_size)
        return self._client.request(spec)

    def iter_leaderboard(
        self, date: str | None = None, *, page_size: int | None = None
    ) -> Iterator[LeaderboardEntry]:
        day = date or (self.today()).date.isoformat()
        spec = Ops.daily_leaderboard(day, page_size=page_size)
        for result in self._client.iter_pages(spec):
            for entry in result.results:
                yield entry


class StatsResource:
    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def get(self) -> Stats:
        """The caller's statistics."""
        return self._client.request(Ops.stats())

    def achievements(self) -> Achievements:
        """The caller's achievements (earned ones with their date and game) and badges."""
        return self._client.request(Ops.achievements())


class MeResource:
    """The signed-in account and the data stored about it."""

    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def get(self) -> Me:
        return self._client.request(Ops.me())

    def stream(
        self, *, last_event_id: str | None = None, options: StreamOptions | None = None
    ) -> Iterator[FeedEvent]:
        """The player's feed, live: ``GameCreated``, ``GameEnded`` and ``DailyResult`` as
        they happen on any device (``FeedResync``: too much was missed, read your lists
        again). Resumes by itself after a dropped connection; never ends by itself."""
        return self._client.follow(Ops.me_stream(), last_event_id=last_event_id, options=options)

    def set_display_name(self, name: str) -> Me:
        """The name leaderboards show instead of the masked e-mail (``""``: back to it).
        A session of the player's own only: no app token may change it."""
        return self._client.request(Ops.me_update(display_name=name))

    def apps(self) -> builtins.list[dict[str, Any]]:
        """The third-party apps holding a live token of the caller: ``client_id``, ``name``,
        ``scopes``, ``authorised_at``, ``suspended``."""
        return self._client.request(Ops.me_apps())

    def revoke_app(self, client_id: str) -> None:
        """Every token the app holds for the caller dies at once (its next call is a 401)."""
        self._client.request(Ops.me_app_revoke(client_id))

    def tokens(self) -> builtins.list[dict[str, Any]]:
        """The caller's personal access tokens: ``id``, ``name``, ``scopes``, ``created_at``,
        ``expires_at`` (never the tokens themselves)."""
        return self._client.request(Ops.me_tokens())

    def create_token(
        self, name: str, scopes: Sequence[str], *, days: int | None = None
    ) -> dict[str, Any]:
        """A personal access token for the player's own scripts, with these scopes, for 7,
        30, 90 or 365 ``days`` (None: until revoked). Its ``token`` is in this answer only:
        use it as ``Scorpion(token=..., token_type="bearer")``. A session of the player's own
        only."""
        return self._client.request(Ops.me_token_create(name=name, scopes=scopes, days=days))

    def revoke_token(self, token_id: int) -> None:
        """The personal access token stops working at once (its next call is a 401)."""
        self._client.request(Ops.me_token_revoke(token_id))

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
