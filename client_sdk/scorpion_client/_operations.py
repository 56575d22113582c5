"""Every operation of the API as a request spec (``Ops``), built once for the sync and the
async client alike, and the readers of their answers."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar
from uuid import UUID

import httpx

from scorpion_client import endpoints as ep
from scorpion_client._request_spec import Spec
from scorpion_client._streams import StreamSpec, read_feed_event, read_game_event
from scorpion_client.errors import UnexpectedResponse
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
    Hints,
    Leaderboard,
    Me,
    Page,
    Session,
    Stats,
    Variant,
    VariantInfo,
    normalize_card,
)
from scorpion_client.oauth import DeviceAuthorization, OAuthToken
from scorpion_client.progress import Achievements, Calendar

T = TypeVar("T")


GameRef = str | UUID | Game
"""A game, or its id."""


def game_id_of(game: GameRef) -> str:
    return game.id if isinstance(game, Game) else str(game)


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
