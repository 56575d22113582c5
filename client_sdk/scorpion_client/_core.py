"""What the sync and the async clients share: request specs, the retry policy, reading answers
and errors. Each operation is built once here as a ``Spec`` (method, path, body, headers, how
to parse the answer, whether it may be re-sent); the two clients only differ in how they send
it (``httpx.Client`` or ``httpx.AsyncClient``, ``time.sleep`` or ``asyncio.sleep``).
"""

from __future__ import annotations

import email.utils
import logging
import os
import random
import re
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar
from uuid import UUID

import httpx

from scorpion_client import endpoints as ep
from scorpion_client._version import __version__
from scorpion_client.errors import (
    BEARER_TOKEN_AS_SESSION,
    OAUTH_ERROR_SENTENCES,
    AuthenticationError,
    EmailVerificationRequired,
    RateLimited,
    RequestTimeout,
    ScorpionError,
    TransportError,
    UnexpectedResponse,
    error_class,
)
from scorpion_client.models import (
    Analysis,
    Chances,
    Command,
    CommandResult,
    Copy,
    CreateMode,
    Daily,
    DailyResult,
    Difficulty,
    Event,
    FeedEvent,
    FeedResync,
    Game,
    GameCreated,
    GameEnded,
    GameMode,
    GameResync,
    GameStatus,
    GameStreamEvent,
    GameUpdate,
    Hints,
    Leaderboard,
    Me,
    Page,
    RateLimit,
    Session,
    Stats,
    Variant,
    VariantInfo,
    normalize_card,
)
from scorpion_client.oauth import EXPIRY_MARGIN, DeviceAuthorization, OAuthToken, TokenType
from scorpion_client.progress import Achievements, Calendar

T = TypeVar("T")

logger = logging.getLogger("scorpion_client")

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
DEFAULT_TIMEOUT = httpx.Timeout(10.0, connect=5.0)
DEFAULT_MAX_RETRIES = 2
USER_AGENT = f"scorpion-client-python/{__version__}"


class NotGiven:
    """The default of ``timeout=`` where None means "no timeout"."""

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()

GameRef = str | UUID | Game
"""A game, or its id."""


def game_id_of(game: GameRef) -> str:
    return game.id if isinstance(game, Game) else str(game)


# --- Retries ---


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before re-sending a request.

    Retried: connection errors and timeouts, 429 (after ``Retry-After`` when the server sends
    one), 500, 502, 503 and 504; each wait is "full jitter" exponential backoff, a random time
    between 0 and ``min(backoff_max, backoff_base * 2**attempt)``. A request that may already
    have been applied by the server is re-sent only when that is harmless: GET and DELETE, and
    the POSTs that carry an ``Idempotency-Key`` (commands, creating and restarting a game: the
    server answers a re-sent one from its record). Other POSTs (sign-up, log-in, the OAuth token
    endpoint) are re-sent only when the server surely did not act on them (the connection was
    refused, 429, 503). A ``Retry-After`` longer than ``max_retry_after`` is not waited
    for: ``RateLimited`` is raised at once with ``retry_after`` set.

    ``pace``: when the last answer said no request is left in the rate limit's window
    (``client.rate_limit``), wait until the window ends before sending the next one, rather
    than meet a 429 (a wait longer than ``max_retry_after`` is not made: the request goes and
    its 429 is raised).
    """

    max_retries: int = DEFAULT_MAX_RETRIES
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    max_retry_after: float = 60.0
    pace: bool = True
    retry_statuses: frozenset[int] = frozenset({429, 500, 502, 503, 504})

    def backoff(self, attempt: int) -> float:
        return random.uniform(0.0, min(self.backoff_max, self.backoff_base * 2**attempt))


# Statuses for which the server did nothing, whatever the request: it may always be re-sent.
_NOT_PROCESSED_STATUSES = frozenset({429, 503})
# 503s that re-sending within a call does not mend: no worker computes analyses (one may be
# back in minutes, past any wait worth making here; the caller asks again when it likes).
_LASTING_503 = frozenset({"analysis_needs_worker"})
# Transport errors raised before the request left: it may always be re-sent.
_NOT_SENT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` in seconds: a number of seconds or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


# --- Reading answers ---


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError as exc:
        raise UnexpectedResponse(
            f"expected JSON from {response.request.method} {response.request.url}, got "
            f"{response.headers.get('Content-Type', 'no content type')}: {response.text[:200]!r}",
            status=response.status_code,
            response=response,
        ) from exc


def error_from_response(response: httpx.Response) -> ScorpionError:
    """The exception for an error answer: a problem+json body of the API, an allauth error
    body, or anything else (a proxy's HTML page) by its status alone."""
    status = response.status_code
    body: Any = None
    try:
        body = response.json()
    except ValueError:
        body = None
    retry_after = parse_retry_after(response.headers.get("Retry-After"))
    if not isinstance(body, Mapping):
        text = response.text.strip()[:200] or response.reason_phrase
        cls = error_class(None, status)
        return _make(
            cls, f"HTTP {status}: {text}", status, None, None, None, {}, response, retry_after
        )
    code = body.get("code") if isinstance(body.get("code"), str) else None
    title = body.get("title") if isinstance(body.get("title"), str) else None
    detail = body.get("detail") if isinstance(body.get("detail"), str) else None
    problem = dict(body)
    if code is None and isinstance(body.get("error"), str):
        # The OAuth endpoints: {"error": "invalid_grant", "error_description": "..."}; an
        # answer without a description is told in a sentence, not as its error word.
        code = body["error"]
        description = body.get("error_description")
        if not isinstance(description, str) or description.strip() in ("", code):
            description = OAUTH_ERROR_SENTENCES.get(
                code, f"The server refused the log-in ({code})."
            )
        detail = detail or description
    if code is None and isinstance(body.get("errors"), list):
        # allauth: {"status": 400, "errors": [{"message", "code", "param"}]}
        messages: list[str] = []
        fields: dict[str, list[str]] = {}
        for item in body["errors"]:
            if not isinstance(item, Mapping):
                continue
            message = str(item.get("message", ""))
            messages.append(message)
            fields.setdefault(str(item.get("param") or "non_field_errors"), []).append(message)
            if code is None and isinstance(item.get("code"), str):
                code = item["code"]
        detail = detail or "; ".join(m for m in messages if m)
        problem["errors"] = fields
    cls = error_class(code, status)
    if status == 401 and _pending_flow(body, "verify_email"):
        cls = EmailVerificationRequired
        detail = detail or "the e-mail address must be verified first"
    message = detail or title or response.reason_phrase or f"HTTP {status}"
    if status == 401 and _sent_oauth_token_as_session(response):
        message = detail = f"{message.rstrip('.')}. {BEARER_TOKEN_AS_SESSION}"
    return _make(cls, message, status, code, title, detail, problem, response, retry_after)


# A session token is a session key: 32 lowercase letters and digits (Django's).
_SESSION_KEY = re.compile(r"[a-z0-9]{32,40}")


def _sent_oauth_token_as_session(response: httpx.Response) -> bool:
    """Whether the refused request sent, as ``X-Session-Token``, something that cannot be a
    session token (an OAuth access token, a personal access token)."""
    try:
        sent = response.request.headers.get("X-Session-Token")
    except RuntimeError:  # a response built without its request
        return False
    return bool(sent) and _SESSION_KEY.fullmatch(sent) is None


def _pending_flow(body: Mapping[str, Any], flow_id: str) -> bool:
    data = body.get("data")
    flows = data.get("flows") if isinstance(data, Mapping) else None
    if not isinstance(flows, list):
        return False
    return any(
        isinstance(flow, Mapping) and flow.get("id") == flow_id and flow.get("is_pending")
        for flow in flows
    )


def _make(
    cls: type[ScorpionError],
    message: str,
    status: int,
    code: str | None,
    title: str | None,
    detail: str | None,
    body: Mapping[str, Any],
    response: httpx.Response,
    retry_after: float | None,
) -> ScorpionError:
    kwargs: dict[str, Any] = {
        "status": status,
        "code": code,
        "title": title,
        "detail": detail,
        "body": body,
        "response": response,
    }
    if issubclass(cls, RateLimited):
        return cls(message, retry_after=retry_after, **kwargs)
    return cls(message, **kwargs)


def transport_error(exc: httpx.RequestError, request: httpx.Request) -> TransportError:
    cls = RequestTimeout if isinstance(exc, httpx.TimeoutException) else TransportError
    name = type(exc).__name__
    return cls(f"{request.method} {request.url}: {name}: {exc or 'no answer'}")


# --- Request specs ---


@dataclass(frozen=True)
class Spec(Generic[T]):
    """One logical API call: everything needed to send it (again) and to read its answer.

    A spec is built once per call, so its ``Idempotency-Key`` header is the same on every
    attempt the retry policy makes.
    """

    method: str
    url: str
    parse: Callable[[httpx.Response], T]
    params: Mapping[str, str | int] | None = None
    json: Any = None
    data: Mapping[str, str] | None = None  # a form (the OAuth endpoints)
    headers: Mapping[str, str] = field(default_factory=dict)
    # May be re-sent even when the server may already have acted on it.
    replay_safe: bool = True
    authenticated: bool = True
    # Non-2xx statuses that are answers, handed to ``parse`` (304 of a conditional GET, ...).
    ok_statuses: frozenset[int] = frozenset()

    def follow(self, next_url: str, base_url: httpx.URL) -> Spec[T]:
        """The same call for a ``next`` link: its path and query on our own base URL (a
        server behind a proxy may write links with another scheme or host)."""
        target = httpx.URL(next_url)
        url = base_url.copy_with(raw_path=target.raw_path)
        return replace(self, url=str(url), params=None)


def _objects(data: Any) -> list[dict[str, Any]]:
    """A JSON list of objects (the apps, the tokens), as dicts."""
    return [dict(item) for item in data if isinstance(item, Mapping)]


def _parsed(read: Callable[[Any], T]) -> Callable[[httpx.Response], T]:
    def parse(response: httpx.Response) -> T:
        data = _json(response)
        try:
            return read(data)
        except (KeyError, TypeError, ValueError, AssertionError) as exc:
            raise UnexpectedResponse(
                f"cannot read the answer to {response.request.method} {response.request.url}: "
                f"{type(exc).__name__}: {exc}",
                status=response.status_code,
                response=response,
            ) from exc

    return parse


def _nothing(response: httpx.Response) -> None:
    return None


def _raw_json(response: httpx.Response) -> dict[str, Any]:
    data = _json(response)
    if not isinstance(data, dict):
        raise UnexpectedResponse(
            f"expected a JSON object, got {type(data).__name__}",
            status=response.status_code,
            response=response,
        )
    return data


def _deleted_counts(response: httpx.Response) -> dict[str, int]:
    """``{"deleted": {"games": 3, ...}}``: how many rows of each kind were removed."""
    if not response.content:
        return {}
    deleted = _raw_json(response).get("deleted")
    if not isinstance(deleted, Mapping):
        return {}
    return {str(k): v for k, v in deleted.items() if isinstance(v, int)}


def _command_result(response: httpx.Response) -> CommandResult:
    def read(data: Any) -> CommandResult:
        return CommandResult(
            game=Game.from_json(data),
            event=Event.from_json(data["event"]),
            replayed=response.headers.get("Idempotent-Replayed", "").lower() == "true",
        )

    return _parsed(read)(response)


def _game_if_modified(response: httpx.Response) -> Game | None:
    if response.status_code == 304:
        return None
    return _parsed(Game.from_json)(response)


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


def _items(data: Any) -> list[Any]:
    if not isinstance(data, list):
        raise TypeError(f"expected a list, not {type(data).__name__}")
    return data


def _drop_none(**values: Any) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


class Ops:
    """The request spec of every operation (shared by the sync and the async client)."""

    # Accounts (allauth headless, app client).

    @staticmethod
    def signup(email: str, password: str) -> Spec[Session]:
        return Spec(
            ep.AUTH_SIGNUP.method,
            ep.AUTH_SIGNUP.path(),
            _parsed(Session.from_json),
            json={"email": email, "password": password},
            replay_safe=False,
            authenticated=False,
        )

    @staticmethod
    def login(email: str, password: str) -> Spec[Session]:
        return Spec(
            ep.AUTH_LOGIN.method,
            ep.AUTH_LOGIN.path(),
            _parsed(Session.from_json),
            json={"email": email, "password": password},
            replay_safe=False,
            authenticated=False,
        )

    @staticmethod
    def oauth_device_code(client_id: str, scope: str | None) -> Spec[DeviceAuthorization]:
        form = {"client_id": client_id}
        if scope:
            form["scope"] = scope
        return Spec(
            ep.OAUTH_DEVICE_CODE.method,
            ep.OAUTH_DEVICE_CODE.path(),
            _parsed(DeviceAuthorization.from_json),
            data=form,
            replay_safe=True,  # a second code is harmless: the first one is never shown
            authenticated=False,
        )

    @staticmethod
    def oauth_token(form: Mapping[str, str], *, replay_safe: bool = False) -> Spec[OAuthToken]:
        """A request to the token endpoint: a device code's poll, a code's exchange or a
        refresh. A refresh token is spent by its first use (rotation), so a refresh whose
        answer was lost cannot be re-sent; a poll can."""
        return Spec(
            ep.OAUTH_TOKEN.method,
            ep.OAUTH_TOKEN.path(),
            _parsed(OAuthToken.from_json),
            data=dict(form),
            replay_safe=replay_safe,
            authenticated=False,
        )

    @staticmethod
    def oauth_revoke(form: Mapping[str, str]) -> Spec[None]:
        return Spec(
            ep.OAUTH_REVOKE.method,
            ep.OAUTH_REVOKE.path(),
            _nothing,
            data=dict(form),
            authenticated=False,
        )

    @staticmethod
    def logout() -> Spec[None]:
        # allauth answers a successful log-out with 401: the session is no longer authenticated.
        return Spec(
            ep.AUTH_LOGOUT.method, ep.AUTH_LOGOUT.path(), _nothing, ok_statuses=frozenset({401})
        )

    # Games.

    @staticmethod
    def games_create(
        *,
        mode: CreateMode | None = None,
        seed: int | None = None,
        code: str | None = None,
        pysol_number: int | None = None,
        variant: Variant | None = None,
        difficulty: Difficulty | None = None,
        date: str | None = None,
    ) -> Spec[Game]:
        body = _drop_none(
            mode=mode,
            seed=seed,
            code=code,
            pysol_number=pysol_number,
            variant=variant,
            difficulty=difficulty,
            date=date,
        )
        return Spec(
            ep.GAMES_CREATE.method,
            ep.GAMES_CREATE.path(),
            _parsed(Game.from_json),
            json=body,
            # The server answers a re-sent create with the game the first one made.
            headers={"Idempotency-Key": new_idempotency_key()},
            replay_safe=True,
        )

    @staticmethod
    def games_list(
        *,
        status: GameStatus | None = None,
        mode: GameMode | None = None,
        page: int | None = None,
        page_size: int | None = None,
        variant: Variant | None = None,
        id_prefix: str | None = None,
    ) -> Spec[Page[Game]]:
        return Spec(
            ep.GAMES_LIST.method,
            ep.GAMES_LIST.path(),
            _parsed(lambda data: Page.from_json(data, Game.from_json)),
            # The filters, then the page.
            params=_drop_none(status=status, mode=mode, variant=variant, id_prefix=id_prefix)
            | _drop_none(page=page, page_size=page_size),
        )

    @staticmethod
    def games_get(game: GameRef) -> Spec[Game]:
        return Spec(
            ep.GAME_GET.method,
            ep.GAME_GET.path(game_id=game_id_of(game)),
            _parsed(Game.from_json),
        )

    @staticmethod
    def games_get_if_changed(game: GameRef, version: int) -> Spec[Game | None]:
        """The game, or None when it is still at ``version`` (304 Not Modified)."""
        return Spec(
            ep.GAME_GET.method,
            ep.GAME_GET.path(game_id=game_id_of(game)),
            _game_if_modified,
            headers={"If-None-Match": f'"{version}"'},
            ok_statuses=frozenset({304}),
        )

    @staticmethod
    def games_command(
        game: GameRef,
        command: Command,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Spec[CommandResult]:
        body = dict(command)
        if expected_version is not None:
            body["expected_version"] = expected_version
        return Spec(
            ep.GAME_COMMAND.method,
            ep.GAME_COMMAND.path(game_id=game_id_of(game)),
            _command_result,
            json=body,
            headers={"Idempotency-Key": idempotency_key or new_idempotency_key()},
            replay_safe=True,  # the Idempotency-Key makes a re-sent command apply once
        )

    @staticmethod
    def move_command(
        card: str, to: int | None = None, from_: int | None = None, copy: Copy | None = None
    ) -> Command:
        command: Command = {"type": "move", "card": normalize_card(card)}
        if to is not None:
            command["to"] = to
        if from_ is not None:
            command["from"] = from_
        if copy is not None:
            command["copy"] = copy
        return command

    @staticmethod
    def games_hints(game: GameRef) -> Spec[Hints]:
        return Spec(
            ep.GAME_HINTS.method,
            ep.GAME_HINTS.path(game_id=game_id_of(game)),
            _parsed(Hints.from_json),
        )

    @staticmethod
    def games_analysis(game: GameRef) -> Spec[Analysis]:
        """200 (ready) and 202 (pending) both parse as an ``Analysis``."""
        return Spec(
            ep.GAME_ANALYSIS.method,
            ep.GAME_ANALYSIS.path(game_id=game_id_of(game)),
            _parsed(Analysis.from_json),
        )

    @staticmethod
    def games_chances(game: GameRef) -> Spec[Chances]:
        """200 (ready) and 202 (pending) both parse as ``Chances``."""
        return Spec(
            ep.GAME_CHANCES.method,
            ep.GAME_CHANCES.path(game_id=game_id_of(game)),
            _parsed(Chances.from_json),
        )

    @staticmethod
    def games_chances_prepare(game: GameRef) -> Spec[Chances]:
        """Have them computed, without serving (or counting) them: a 202 either way."""
        return Spec(
            ep.GAME_CHANCES_PREPARE.method,
            ep.GAME_CHANCES_PREPARE.path(game_id=game_id_of(game)),
            _parsed(Chances.from_json),
        )

    @staticmethod
    def games_events(
        game: GameRef, *, after: int | None = None, limit: int | None = None
    ) -> Spec[Page[Event]]:
        """One page of the history, oldest first: the events after seq ``after``."""
        return Spec(
            ep.GAME_EVENTS.method,
            ep.GAME_EVENTS.path(game_id=game_id_of(game)),
            _parsed(lambda data: Page.from_json(data, Event.from_json)),
            params=_drop_none(after=after, limit=limit),
        )

    @staticmethod
    def games_events_export(game: GameRef) -> Spec[list[Event]]:
        """The whole history in one answer (the server streams it)."""
        return Spec(
            ep.GAME_EVENTS_EXPORT.method,
            ep.GAME_EVENTS_EXPORT.path(game_id=game_id_of(game)),
            _parsed(lambda data: [Event.from_json(item) for item in data["events"]]),
        )

    @staticmethod
    def games_states(
        game: GameRef, *, start: int | None = None, limit: int | None = None
    ) -> Spec[Page[Game]]:
        """Consecutive states of a game from version ``start``, a page at a time."""
        return Spec(
            ep.GAME_STATES.method,
            ep.GAME_STATES.path(game_id=game_id_of(game)),
            _parsed(lambda data: Page.from_json(data, Game.from_json)),
            params=_drop_none(start=start, limit=limit),
        )

    @staticmethod
    def games_state(game: GameRef, version: int) -> Spec[Game]:
        return Spec(
            ep.GAME_STATE.method,
            ep.GAME_STATE.path(game_id=game_id_of(game), version=version),
            _parsed(Game.from_json),
        )

    @staticmethod
    def games_restart(game: GameRef) -> Spec[Game]:
        return Spec(
            ep.GAME_RESTART.method,
            ep.GAME_RESTART.path(game_id=game_id_of(game)),
            _parsed(Game.from_json),
            # The server answers a re-sent restart with the game the first one made.
            headers={"Idempotency-Key": new_idempotency_key()},
            replay_safe=True,
        )

    # Daily challenge, statistics.

    @staticmethod
    def daily_today() -> Spec[Daily]:
        return Spec(ep.DAILY.method, ep.DAILY.path(), _parsed(Daily.from_json))

    @staticmethod
    def daily_leaderboard(
        date: str, *, page: int | None = None, page_size: int | None = None
    ) -> Spec[Leaderboard]:
        return Spec(
            ep.DAILY_LEADERBOARD.method,
            ep.DAILY_LEADERBOARD.path(date=date),
            _parsed(Leaderboard.from_json),
            params=_drop_none(page=page, page_size=page_size),
        )

    @staticmethod
    def stats() -> Spec[Stats]:
        return Spec(ep.STATS.method, ep.STATS.path(), _parsed(Stats.from_json))

    @staticmethod
    def achievements() -> Spec[Achievements]:
        return Spec(ep.ACHIEVEMENTS.method, ep.ACHIEVEMENTS.path(), _parsed(Achievements.from_json))

    @staticmethod
    def calendar(month: str) -> Spec[Calendar]:
        return Spec(ep.CALENDAR.method, ep.CALENDAR.path(month=month), _parsed(Calendar.from_json))

    @staticmethod
    def variants() -> Spec[list[VariantInfo]]:
        """The games of the Scorpion family (public: sent with the caller's credentials if
        any, which the server does not need)."""
        return Spec(
            ep.VARIANTS.method,
            ep.VARIANTS.path(),
            _parsed(lambda data: [VariantInfo.from_json(item) for item in _items(data)]),
        )

    # Live streams (Server-Sent Events).

    @staticmethod
    def game_stream(game: GameRef, since: int | None = None) -> StreamSpec[GameStreamEvent]:
        return StreamSpec(
            ep.GAME_STREAM.path(game_id=game_id_of(game)),
            read_game_event,
            params=None if since is None else {"since": since},
        )

    @staticmethod
    def me_stream() -> StreamSpec[FeedEvent]:
        return StreamSpec(ep.ME_STREAM.path(), read_feed_event)

    # The caller's account and data.

    @staticmethod
    def me() -> Spec[Me]:
        return Spec(ep.ME.method, ep.ME.path(), _parsed(Me.from_json))

    @staticmethod
    def me_update(*, display_name: str) -> Spec[Me]:
        return Spec(
            ep.ME_UPDATE.method,
            ep.ME_UPDATE.path(),
            _parsed(Me.from_json),
            json={"display_name": display_name},
        )

    @staticmethod
    def me_apps() -> Spec[list[dict[str, Any]]]:
        return Spec(ep.ME_APPS.method, ep.ME_APPS.path(), _parsed(_objects))

    @staticmethod
    def me_app_revoke(client_id: str) -> Spec[None]:
        return Spec(ep.ME_APP_REVOKE.method, ep.ME_APP_REVOKE.path(client_id=client_id), _nothing)

    @staticmethod
    def me_tokens() -> Spec[list[dict[str, Any]]]:
        return Spec(ep.ME_TOKENS.method, ep.ME_TOKENS.path(), _parsed(_objects))

    @staticmethod
    def me_token_create(
        *, name: str, scopes: Sequence[str], days: int | None
    ) -> Spec[dict[str, Any]]:
        body = {"name": name, "scopes": list(scopes), "days": days}
        return Spec(ep.ME_TOKEN_CREATE.method, ep.ME_TOKEN_CREATE.path(), _raw_json, json=body)

    @staticmethod
    def me_token_revoke(token_id: int) -> Spec[None]:
        path = ep.ME_TOKEN_REVOKE.path(token_id=token_id)
        return Spec(ep.ME_TOKEN_REVOKE.method, path, _nothing)

    @staticmethod
    def games_result(game: GameRef) -> Spec[dict[str, Any]]:
        return Spec(ep.GAME_RESULT.method, ep.GAME_RESULT.path(game_id=game_id_of(game)), _raw_json)

    @staticmethod
    def me_export() -> Spec[dict[str, Any]]:
        return Spec(ep.ME_EXPORT.method, ep.ME_EXPORT.path(), _raw_json)

    @staticmethod
    def me_delete_data() -> Spec[dict[str, int]]:
        return Spec(ep.ME_DELETE_DATA.method, ep.ME_DELETE_DATA.path(), _deleted_counts)

    @staticmethod
    def me_delete() -> Spec[dict[str, int]]:
        return Spec(ep.ME_DELETE.method, ep.ME_DELETE.path(), _deleted_counts)


# --- The client's shared half ---


@dataclass
class Credentials:
    """The token a client sends, shared by the client and its ``with_options`` copies: a
    refresh made by one is seen by all.

    ``token_type`` ``session``: a first-party session token (``X-Session-Token``);
    ``bearer``: an OAuth access token (``Authorization: Bearer``), refreshed with
    ``refresh_token`` and ``client_id`` (and ``client_secret`` for a confidential app) when
    it expires (``expires_at``) or is refused; ``on_refresh`` is told every new token (the
    refresh token rotates: store the new one)."""

    token: str | None = field(default=None, repr=False)
    token_type: TokenType = "session"
    refresh_token: str | None = field(default=None, repr=False)
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    expires_at: float | None = None
    on_refresh: Callable[[OAuthToken], None] | None = field(default=None, repr=False)

    @property
    def can_refresh(self) -> bool:
        return self.token_type == "bearer" and bool(self.refresh_token and self.client_id)

    def headers(self) -> dict[str, str]:
        if not self.token:
            return {}
        if self.token_type == "bearer":
            return {"Authorization": f"Bearer {self.token}"}
        return {"X-Session-Token": self.token}

    def use(self, token: OAuthToken) -> None:
        """Send ``token`` from now on (a new grant, or a refresh)."""
        self.token = token.access_token
        self.token_type = "bearer"
        self.expires_at = token.expires_at
        if token.refresh_token is not None:
            self.refresh_token = token.refresh_token
        if self.on_refresh is not None:
            self.on_refresh(token)

    def refresh_form(self) -> dict[str, str]:
        if not self.can_refresh:
            raise AuthenticationError(
                "cannot refresh: an OAuth token, its refresh token and the client id are needed"
            )
        assert self.refresh_token is not None
        assert self.client_id is not None
        form = {
            "grant_type": "refresh_token",
            "refresh_token": self.refresh_token,
            "client_id": self.client_id,
        }
        if self.client_secret:
            form["client_secret"] = self.client_secret
        return form


def token_type_from_env(value: str | None) -> TokenType:
    """``$SCORPION_TOKEN_TYPE``: ``session`` (the default) or ``bearer``; anything else is
    refused rather than guessed."""
    if value is None or value.strip() == "":
        return "session"
    word = value.strip().lower()
    if word == "session":
        return "session"
    if word == "bearer":
        return "bearer"
    raise ValueError(f"SCORPION_TOKEN_TYPE must be session or bearer, not {value!r}")


def resolve_base_url(
    base_url: str | None, http_client: httpx.Client | httpx.AsyncClient | None
) -> str:
    """``base_url``, else the ``http_client``'s own base URL, else ``$SCORPION_URL``, else
    the local server."""
    if base_url:
        return base_url
    if http_client is not None and str(http_client.base_url):
        return str(http_client.base_url)
    return os.environ.get("SCORPION_URL") or DEFAULT_BASE_URL


@dataclass
class _RateLimitHolder:
    current: RateLimit | None = None


class BaseClient:
    """Configuration, request building and answer handling shared by both clients."""

    def __init__(
        self,
        base_url: str,
        token: str | OAuthToken | None = None,
        *,
        token_type: TokenType | None = None,
        refresh_token: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        on_token_refresh: Callable[[OAuthToken], None] | None = None,
        timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.base_url = httpx.URL(base_url.rstrip("/") + "/")
        if token is None and os.environ.get("SCORPION_TOKEN"):
            token = os.environ["SCORPION_TOKEN"]
            if token_type is None:
                token_type = token_type_from_env(os.environ.get("SCORPION_TOKEN_TYPE"))
        self.credentials = Credentials(
            client_id=client_id, client_secret=client_secret, on_refresh=None
        )
        if isinstance(token, OAuthToken):
            if token_type == "session":
                raise ValueError("an OAuthToken is a bearer token, not a session token")
            self.credentials.use(token)
            self.credentials.refresh_token = refresh_token or token.refresh_token
        else:
            self.credentials.token = token
            self.credentials.token_type = token_type or "session"
            self.credentials.refresh_token = refresh_token
        if token_type is not None:
            self.credentials.token_type = token_type
        self.credentials.on_refresh = on_token_refresh
        self.timeout = timeout
        self.retry = retry if retry is not None else RetryPolicy(max_retries=max_retries)
        # A holder, so that the views of ``with_options`` (copies) share what they learn.
        self._rate_limit = _RateLimitHolder()
        self.default_headers: dict[str, str] = {
            "User-Agent": USER_AGENT,
            "Accept": "application/json, application/problem+json",
            **(headers or {}),
        }

    @property
    def rate_limit(self) -> RateLimit | None:
        """Where this client stands with the server's rate limit, as the last answer that
        said it (``RateLimit-*`` fields) had it: ``limit``, ``remaining``, ``resets_in``."""
        return self._rate_limit.current

    def _note_rate_limit(self, response: httpx.Response) -> None:
        found = RateLimit.from_headers(response.headers)
        if found is not None:
            self._rate_limit.current = found

    def _pace_delay(self) -> float:
        """Seconds to wait before sending, so as not to meet a 429 the last answer foretold."""
        current = self._rate_limit.current
        if not self.retry.pace or current is None or current.remaining > 0:
            return 0.0
        wait = current.resets_in
        if not 0.0 < wait <= self.retry.max_retry_after:
            return 0.0
        logger.info("rate limit spent: waiting %.2fs for its window to end", wait)
        return wait

    @property
    def token(self) -> str | None:
        """The token sent with each request (``token_type`` says how), or None."""
        return self.credentials.token

    @token.setter
    def token(self, value: str | None) -> None:
        self.credentials.token = value

    @property
    def token_type(self) -> TokenType:
        return self.credentials.token_type

    def _url(self, spec: Spec[Any]) -> httpx.URL:
        # Absolute, so that an ``http_client`` without a base URL works: paths are relative
        # to the base URL (which may carry a prefix: .../scorpion/).
        if spec.url.startswith("/"):
            return self.base_url.join(spec.url.lstrip("/"))
        return httpx.URL(spec.url)

    def _headers(self, spec: Spec[Any]) -> dict[str, str]:
        # The SDK's own headers on every request, whatever client sends it.
        headers = {**self.default_headers, **spec.headers}
        if spec.authenticated:
            headers.update(self.credentials.headers())
        return headers

    def _build(
        self,
        http: httpx.Client | httpx.AsyncClient,
        spec: Spec[Any],
        timeout: float | httpx.Timeout | None,
    ) -> httpx.Request:
        return http.build_request(
            spec.method,
            self._url(spec),
            params=dict(spec.params) if spec.params else None,
            json=spec.json if spec.json is not None else None,
            data=dict(spec.data) if spec.data is not None else None,
            headers=self._headers(spec),
            timeout=timeout,
        )

    def _should_refresh(self, spec: Spec[Any]) -> bool:
        """Before sending: the access token is known to have expired."""
        credentials = self.credentials
        return (
            spec.authenticated
            and credentials.can_refresh
            and credentials.expires_at is not None
            and time.time() >= credentials.expires_at - EXPIRY_MARGIN
        )

    def _refresh_after(self, spec: Spec[Any], response: httpx.Response, refreshed: bool) -> bool:
        """After a 401: refresh once and send again, if the token can be refreshed."""
        return (
            response.status_code == 401
            and spec.authenticated
            and not refreshed
            and self.credentials.can_refresh
        )

    def _delay_after_error(
        self, spec: Spec[Any], attempt: int, error: httpx.RequestError
    ) -> float | None:
        """Seconds to wait before re-sending after a transport error, or None to give up."""
        if attempt >= self.retry.max_retries or not isinstance(error, httpx.TransportError):
            return None
        if not spec.replay_safe and not isinstance(error, _NOT_SENT_ERRORS):
            return None
        return self.retry.backoff(attempt)

    def _delay_after_response(
        self, spec: Spec[Any], attempt: int, response: httpx.Response
    ) -> float | None:
        """Seconds to wait before re-sending after this answer, or None to keep it."""
        status = response.status_code
        if attempt >= self.retry.max_retries or status not in self.retry.retry_statuses:
            return None
        if not spec.replay_safe and status not in _NOT_PROCESSED_STATUSES:
            return None
        if status == 503 and _problem_code(response) in _LASTING_503:
            return None
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        if retry_after is not None:
            if retry_after > self.retry.max_retry_after:
                return None
            return retry_after
        return self.retry.backoff(attempt)

    def _log_retry(self, request: httpx.Request, reason: str, delay: float, attempt: int) -> None:
        logger.info(
            "%s %s: %s; retry %d of %d in %.2fs",
            request.method,
            request.url,
            reason,
            attempt + 1,
            self.retry.max_retries,
            delay,
        )

    def _finish(self, spec: Spec[T], response: httpx.Response) -> T:
        if response.is_success or response.status_code in spec.ok_statuses:
            return spec.parse(response)
        raise error_from_response(response)


# --- Live streams (Server-Sent Events) ---


@dataclass(frozen=True)
class ServerSentEvent:
    """One event of a ``text/event-stream``: ``data`` is None for a block that only set an id
    or a retry delay."""

    event: str
    data: str | None
    id: str | None
    retry: int | None


class SSEDecoder:
    """Lines of an event stream in, events out (the parts of the WHATWG rules the API uses:
    ``id``, ``event``, ``data`` over one or more lines, ``retry``, ``:`` comments)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._event: str | None = None
        self._data: list[str] = []
        self._id: str | None = None
        self._retry: int | None = None
        self._seen = False

    def feed(self, line: str) -> ServerSentEvent | None:
        if line == "":
            if not self._seen:
                return None
            event = ServerSentEvent(
                event=self._event or "message",
                data="\n".join(self._data) if self._data else None,
                id=self._id,
                retry=self._retry,
            )
            self._reset()
            return event
        if line.startswith(":"):
            return None  # a comment
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        self._seen = True
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)
        return None


END_EVENT = "end"
HEARTBEAT_EVENT = "heartbeat"
# The server's heartbeat interval until it says otherwise (its ``heartbeat`` events do).
DEFAULT_HEARTBEAT_SECONDS = 15.0


@dataclass(frozen=True)
class StreamSpec(Generic[T]):
    """A stream to follow: its path and query, and how to read each event (None: skip it)."""

    path: str
    read: Callable[[ServerSentEvent], T | None]
    params: Mapping[str, str | int] | None = None


@dataclass(frozen=True)
class StreamOptions:
    """How a stream is followed.

    ``read_timeout``: seconds without a byte before the connection is deemed dead and opened
    again (resuming with ``Last-Event-ID``); None (the default): two missed heartbeats, that
    is twice the interval the server announces in its ``heartbeat`` events, plus a second
    (31 s for the server's default of 15 s). ``max_failures``: failed connection
    attempts in a row before giving up (``TransportError``, or the server's error); None to
    try forever. Waits between attempts: full-jitter exponential backoff from
    ``backoff_base`` up to ``backoff_max`` seconds, or the server's ``Retry-After``.
    ``stop``: asked whenever anything arrives, heartbeats included (so at least every 15 s):
    True ends the iteration, e.g. from another thread of the program.
    """

    read_timeout: float | None = None
    max_failures: int | None = 10
    backoff_base: float = 0.5
    backoff_max: float = 15.0
    stop: Callable[[], bool] | None = None

    def backoff(self, failures: int) -> float:
        return random.uniform(0.0, min(self.backoff_max, self.backoff_base * 2 ** (failures - 1)))


class StreamFollower(Generic[T]):
    """What both clients do with a stream, apart from the I/O: the request to send (with
    ``Last-Event-ID`` once an id was seen), what each event becomes, and how long to wait
    after each answer, end or failure before opening it again (None: stop)."""

    def __init__(
        self,
        spec: StreamSpec[T],
        options: StreamOptions,
        last_event_id: str | None = None,
    ) -> None:
        self.spec = spec
        self.options = options
        self.last_event_id = last_event_id
        self.failures = 0
        self.received = False  # anything received on the current connection
        self.ended = False  # the server said the stream is over ("end")
        self.decoder = SSEDecoder()
        self.heartbeat_seconds = DEFAULT_HEARTBEAT_SECONDS  # as the server last announced it
        self.connection_timeout = 0.0  # the read timeout the current connection was opened with
        self.reopen = False  # open the connection again now (with a shorter read timeout)

    def read_timeout(self) -> float:
        """Seconds without a byte before the connection is deemed dead: two missed
        heartbeats, unless the options say otherwise."""
        if self.options.read_timeout is not None:
            return self.options.read_timeout
        return 2 * self.heartbeat_seconds + 1.0

    def request(self, client: BaseClient, http: httpx.Client | httpx.AsyncClient) -> httpx.Request:
        headers = {
            **client.default_headers,
            "Accept": "text/event-stream",
            "Cache-Control": "no-cache",
            **client.credentials.headers(),
        }
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        self.received = False
        self.reopen = False
        self.decoder = SSEDecoder()
        self.connection_timeout = self.read_timeout()
        url = client.base_url.join(self.spec.path.lstrip("/"))
        params = dict(self.spec.params or {}) if self.last_event_id is None else None
        return http.build_request(
            "GET",
            url,
            params=params,
            headers=headers,
            timeout=httpx.Timeout(self.connection_timeout, connect=10.0),
        )

    def delay_after_answer(self, response: httpx.Response) -> float | None:
        """A non-200 answer (body read): the wait before trying again, or None to raise it."""
        if response.status_code not in (429, 500, 502, 503, 504):
            return None
        if response.status_code == 503 and _problem_code(response) == "stream_unavailable":
            return None  # not a passing condition: this server serves no streams
        delay = self._failure()
        if delay is None:
            return None
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        return delay if retry_after is None else retry_after

    def line(self, text: str) -> T | None:
        """One line of the stream: the event it completes, if any."""
        self.received = True
        if self.options.stop is not None and self.options.stop():
            self.ended = True
            return None
        event = self.decoder.feed(text)
        if event is None:
            return None
        self.failures = 0
        if event.id is not None:
            self.last_event_id = event.id
        if event.event == END_EVENT:
            self.ended = True
            return None
        if event.event == HEARTBEAT_EVENT:
            self._heartbeat(event)
            return None
        if event.data is None:
            return None
        return self.spec.read(event)

    def _heartbeat(self, event: ServerSentEvent) -> None:
        """The server's heartbeat (the first comes as the stream opens): it says how often the
        next ones come. A connection opened expecting them less often is opened again at once,
        so that a silent one is noticed after two missed heartbeats."""
        try:
            seconds = float(_event_json(event)["interval_seconds"])
        except (KeyError, TypeError, ValueError, UnexpectedResponse):
            return
        if seconds > 0:
            self.heartbeat_seconds = seconds
            self.reopen = self.read_timeout() < self.connection_timeout

    def delay_after_close(self, error: Exception | None) -> float | None:
        """The connection closed (cleanly, or with ``error``): the wait before opening it
        again, or None to stop (the stream ended, or too many failures)."""
        if self.options.stop is not None and self.options.stop():
            self.ended = True
        if self.ended:
            return None
        if error is None and self.received:
            return 0.0  # the server closed a stream that worked (its lifetime): resume now
        return self._failure()

    def _failure(self) -> float | None:
        self.failures += 1
        limit = self.options.max_failures
        if limit is not None and self.failures > limit:
            return None
        return self.options.backoff(self.failures)


def _problem_code(response: httpx.Response) -> str | None:
    try:
        body = response.json()
    except (ValueError, httpx.ResponseNotRead):
        return None
    code = body.get("code") if isinstance(body, Mapping) else None
    return code if isinstance(code, str) else None


def _event_json(event: ServerSentEvent) -> Mapping[str, Any]:
    import json

    data = json.loads(event.data or "null")
    if not isinstance(data, Mapping):
        raise UnexpectedResponse(f"a {event.event} event without a JSON object: {event.data!r}")
    return data


def read_game_event(event: ServerSentEvent) -> GameStreamEvent | None:
    try:
        if event.event == "command":
            return GameUpdate.from_json(_event_json(event))
        if event.event == "resync":
            return GameResync.from_json(_event_json(event))
    except (KeyError, TypeError, ValueError, AssertionError) as exc:
        raise UnexpectedResponse(f"cannot read a {event.event} event: {exc}") from exc
    return None  # an event this SDK does not know yet


def read_feed_event(event: ServerSentEvent) -> FeedEvent | None:
    readers: dict[str, Callable[[Mapping[str, Any]], FeedEvent]] = {
        "game_created": GameCreated.from_json,
        "game_finished": GameEnded.from_json,
        "daily_result": DailyResult.from_json,
        "resync": lambda data: FeedResync(),
    }
    reader = readers.get(event.event)
    if reader is None:
        return None
    try:
        return reader(_event_json(event))
    except (KeyError, TypeError, ValueError, AssertionError) as exc:
        raise UnexpectedResponse(f"cannot read a {event.event} event: {exc}") from exc
