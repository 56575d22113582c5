"""Game endpoints: parse the request, call one service or selector, serialise the answer."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from urllib.parse import urlencode
from uuid import UUID

from allauth.idp.oidc.models import Token
from django.contrib.auth.models import User
from django.http import Http404, StreamingHttpResponse
from django.utils import timezone
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import scopes
from accounts.oauth.selectors import app_with_kind
from games import selectors, services
from games.api.responses import (
    AnalysisPendingSerializer,
    AnalysisSerializer,
    ChancesPendingSerializer,
    ChancesSerializer,
    CommandProblemSerializer,
    CommandResultSerializer,
    DailySerializer,
    EventPageSerializer,
    GamePageSerializer,
    GameSerializer,
    HintsSerializer,
    StatePageSerializer,
    VariantSerializer,
)
from games.api.serializers import (
    MAX_VERSION,
    CommandSerializer,
    EventsQuerySerializer,
    GameCreateSerializer,
    GameListQuerySerializer,
    StatesQuerySerializer,
    command_from_body,
)
from games.models import Game, GameEvent
from games.presentation import (
    analysis_representation,
    chances_representation,
    event_representation,
    game_representation,
    hints_representation,
)
from games.variants import variant_summaries
from infrastructure.api import ApiView
from infrastructure.client_ip import address_hash
from infrastructure.db_routing import reads_may_lag
from infrastructure.serializers import refuse_body_fields


def player(request: Request) -> User:
    """The authenticated caller (every view here requires authentication)."""
    user = request.user
    assert isinstance(user, User)
    return user


def playing_app(request: Request) -> services.PlayingApp | None:
    """The third-party app the request comes from (its access token's app) and its kind;
    None for first-party play (a session, the browser, a token of no app)."""
    token = request.auth
    if not isinstance(token, Token) or token.client_id is None:
        return None
    found = app_with_kind(client_id=token.client_id)
    return None if found is None else services.PlayingApp(*found)


MAX_IDEMPOTENCY_KEY = 128
_IDEMPOTENCY_KEY = re.compile(f"[ -~]{{1,{MAX_IDEMPOTENCY_KEY}}}")
# At most 10 ASCII digits (MAX_VERSION has 10), which also keeps int() far from Python's limit
# on the length of digit strings: a longer ETag is a 400, never a ValueError.
_ETAG = re.compile(r'^(?:W/)?"([0-9]{1,10})"$')
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "minLength": 1, "maxLength": MAX_IDEMPOTENCY_KEY, "pattern": r"^[ -~]+$"},
    OpenApiParameter.HEADER,
    description="A retry with the same key returns the first answer and is applied once.",
)
IF_MATCH = OpenApiParameter(
    "If-Match",
    {"type": "string", "pattern": r'^(W/)?"[0-9]{1,10}"$'},
    OpenApiParameter.HEADER,
    description='The ETag of the version the command expects, e.g. "7".',
)


def etag_for(version: int) -> str:
    return f'"{version}"'


class GamePagination(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100


class GameListView(ApiView):
    oauth_scopes = {"GET": scopes.GAMES_READ, "POST": scopes.GAMES_PLAY}

    @extend_schema(
        operation_id="games_list",
        parameters=[GameListQuerySerializer],
        responses={200: GamePageSerializer},
    )
    @reads_may_lag
    def get(self, request: Request) -> Response:
        query = GameListQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        games = selectors.game_list(
            owner=player(request),
            status=query.validated_data.get("status"),
            mode=query.validated_data.get("mode"),
            variant=query.validated_data.get("variant"),
            id_prefix=query.validated_data.get("id_prefix"),
        )
        paginator = GamePagination()
        page = paginator.paginate_queryset(games, request, view=self) or []
        return paginator.get_paginated_response([game_representation(game) for game in page])

    @extend_schema(
        operation_id="games_create",
        request=GameCreateSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: GameSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = GameCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        game = services.game_create(
            owner=player(request),
            choice=serializer.to_choice(),
            idempotency_key=_idempotency_key(request),
            app=playing_app(request),
            address_hash=address_hash(request),
        )
        return Response(
            game_representation(game),
            status=201,
            headers={"Location": f"/api/v1/games/{game.id}/", "ETag": etag_for(game.version)},
        )


class GameDetailView(ApiView):
    oauth_scopes = {"GET": scopes.GAMES_READ_OR_PLAY}

    @extend_schema(operation_id="games_retrieve", responses={200: GameSerializer, 304: None})
    def get(self, request: Request, game_id: UUID) -> Response:
        game = selectors.game_get(owner=player(request), game_id=game_id)
        etag = etag_for(game.version)
        if request.headers.get("If-None-Match") == etag:
            return Response(status=304, headers={"ETag": etag})
        return Response(game_representation(game), headers={"ETag": etag})


def _expected_version(request: Request, body_version: int | None) -> int | None:
    """The version the client expects, from the body or from If-Match (they must agree)."""
    if_match = request.headers.get("If-Match")
    header_version: int | None = None
    if if_match is not None and if_match.strip() != "*":
        match = _ETAG.match(if_match.strip())
        if match is None or int(match.group(1)) > MAX_VERSION:
            raise serializers.ValidationError(
                {"If-Match": [gettext('an ETag of this API, e.g. "7"')]}
            )
        header_version = int(match.group(1))
    if header_version is not None and body_version is not None and header_version != body_version:
        raise serializers.ValidationError(
            {"expected_version": [gettext("disagrees with the If-Match header")]}
        )
    return body_version if body_version is not None else header_version


def _idempotency_key(request: Request) -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    key = key.strip()
    if not _IDEMPOTENCY_KEY.fullmatch(key):
        raise serializers.ValidationError(
            {
                "Idempotency-Key": [
                    gettext("1 to %(most)d printable characters") % {"most": MAX_IDEMPOTENCY_KEY}
                ]
            }
        )
    return key


class GameCommandView(ApiView):
    oauth_scopes = {"POST": scopes.GAMES_PLAY}

    @extend_schema(
        operation_id="games_command",
        request=CommandSerializer,
        parameters=[
            IDEMPOTENCY_KEY,
            IF_MATCH,
        ],
        responses={
            200: CommandResultSerializer,
            409: OpenApiResponse(description="version_conflict or game_finished"),
            422: OpenApiResponse(
                CommandProblemSerializer,
                description="illegal_move, stock_empty, nothing_to_undo, ...; `details` says "
                "why, as data",
            ),
        },
    )
    def post(self, request: Request, game_id: UUID) -> Response:
        command, body_version = command_from_body(request.data)
        result = services.game_execute_command(
            owner=player(request),
            game_id=game_id,
            command=command,
            expected_version=_expected_version(request, body_version),
            idempotency_key=_idempotency_key(request),
            app=playing_app(request),
        )
        body = game_representation(result.game, result.state, version=result.event.seq)
        body["event"] = event_representation(result.event)
        headers = {"ETag": etag_for(result.event.seq)}
        if result.replayed:
            headers["Idempotent-Replayed"] = "true"
        return Response(body, headers=headers)


class GameHintsView(ApiView):
    oauth_scopes = {"GET": scopes.GAMES_PLAY}  # a hint counts against a clean win

    @extend_schema(operation_id="games_hints", responses={200: HintsSerializer})
    def get(self, request: Request, game_id: UUID) -> Response:
        game, hints = services.game_hints_request(owner=player(request), game_id=game_id)
        return Response(hints_representation(game, hints))


# How long a client should wait before asking again for chances a worker is computing.
CHANCES_RETRY_AFTER = 2


def _chances_response(answer: services.ChancesAnswer, *, show: bool) -> Response:
    if answer.chances is not None and show:
        return Response(chances_representation(answer.chances))
    if answer.chances is not None:
        state = "ready"
    else:
        state = "on_request" if answer.on_request else "pending"
    body = {
        "status": state,
        "game": str(answer.game.pk),
        "version": answer.game.version,
        "retry_after": CHANCES_RETRY_AFTER,
    }
    pending = state == "pending"
    headers = {"Retry-After": str(CHANCES_RETRY_AFTER)} if pending else {}
    return Response(body, status=202, headers=headers)


class GameChancesView(ApiView):
    # Served chances count as a hint (against a clean win); asking for them to be prepared
    # (POST, the player paused) serves nothing and counts nothing, but is part of playing.
    oauth_scopes = {"GET": scopes.GAMES_PLAY, "POST": scopes.GAMES_PLAY}

    @extend_schema(
        operation_id="games_chances",
        request=None,
        responses={
            200: ChancesSerializer,
            202: ChancesPendingSerializer,
            409: OpenApiResponse(description="game_finished: chances are for games in play"),
        },
    )
    def get(self, request: Request, game_id: UUID) -> Response:
        answer = services.game_chances_request(owner=player(request), game_id=game_id, show=True)
        return _chances_response(answer, show=True)

    @extend_schema(
        operation_id="games_chances_prepare",
        request=None,
        responses={
            202: ChancesPendingSerializer,
            409: OpenApiResponse(description="game_finished: chances are for games in play"),
        },
    )
    def post(self, request: Request, game_id: UUID) -> Response:
        refuse_body_fields(request.data)
        answer = services.game_chances_request(owner=player(request), game_id=game_id, show=False)
        return _chances_response(answer, show=False)


# How long a client should wait before asking again for an analysis a worker is computing.
ANALYSIS_RETRY_AFTER = 2


class GameAnalysisView(ApiView):
    # Reading a finished game's analysis is reading the game (it may queue the computation,
    # which changes nothing the player sees).
    oauth_scopes = {"GET": scopes.GAMES_READ}

    @extend_schema(
        operation_id="games_analysis",
        responses={
            200: AnalysisSerializer,
            202: AnalysisPendingSerializer,
            409: OpenApiResponse(
                description="game_not_finished (the game is on), or deal_not_revealed (a "
                "daily whose deal is still secret; available_at says until when)"
            ),
            503: OpenApiResponse(
                description="analysis_needs_worker: no worker computes analyses right now, and "
                "a request's budgets do not decide this game's (Retry-After, retry_after)"
            ),
        },
    )
    def get(self, request: Request, game_id: UUID) -> Response:
        answer = services.game_analysis_request(owner=player(request), game_id=game_id)
        if answer.analysis is None:
            return Response(
                {
                    "status": "pending",
                    "game": str(answer.game.pk),
                    "retry_after": ANALYSIS_RETRY_AFTER,
                },
                status=202,
                headers={"Retry-After": str(ANALYSIS_RETRY_AFTER)},
            )
        view = selectors.game_analysis_view(game=answer.game, analysis=answer.analysis)
        return Response(analysis_representation(view))


EVENTS_PAGE = 100
STATES_PAGE = 50


def _page_link(request: Request, **query: int) -> str:
    return request.build_absolute_uri(f"{request.path}?{urlencode(query)}")


class GameEventsView(ApiView):
    oauth_scopes = {"GET": scopes.GAMES_READ}

    @extend_schema(
        operation_id="games_events",
        parameters=[EventsQuerySerializer],
        responses={200: EventPageSerializer},
        description=(
            "The history, a page at a time, oldest first: `?after=<seq>` (a cursor: the "
            "events with a greater seq) and `?limit=` (1-1000, default 100); `next` links "
            "to the following page. The whole log at once is `GET .../events/export/`."
        ),
    )
    @reads_may_lag
    def get(self, request: Request, game_id: UUID) -> Response:
        query = EventsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        after = query.validated_data.get("after", 0)
        limit = query.validated_data.get("limit", EVENTS_PAGE)
        game = selectors.game_get(owner=player(request), game_id=game_id)
        events = selectors.game_events_page(game=game, after=after, limit=limit)
        last = events[-1].seq if events else after
        more = len(events) == limit and last < game.version
        return Response(
            {
                "version": game.version,
                "next": _page_link(request, after=last, limit=limit) if more else None,
                "results": [event_representation(event) for event in events],
            }
        )


class GameEventsExportView(ApiView):
    oauth_scopes = {"GET": scopes.GAMES_READ}

    @extend_schema(
        operation_id="games_events_export",
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description='The whole log, streamed: `{"id", "version", "events": [...]}`, '
                "the events up to `version` oldest first (a download: Content-Disposition "
                "attachment).",
            )
        },
    )
    @reads_may_lag
    def get(self, request: Request, game_id: UUID) -> StreamingHttpResponse:
        game = selectors.game_get(owner=player(request), game_id=game_id)
        # Called here, not in the stream: an archived log is read and checked before the
        # answer starts, so a broken archive answers a problem, not a download cut short.
        events = selectors.game_events_all(game=game)
        response = StreamingHttpResponse(
            _export_chunks(game, events), content_type="application/json; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="scorpion-game-{game.id}.json"'
        return response


def _export_chunks(game: Game, events: Iterator[GameEvent]) -> Iterator[bytes]:
    """The export, written as it is read: a few hundred events per chunk, so neither the
    database rows nor the JSON of a long log are ever all in memory."""
    yield json.dumps({"id": str(game.id), "version": game.version})[:-1].encode()
    yield b', "events": ['
    batch: list[str] = []
    first = True
    for event in events:
        batch.append(json.dumps(event_representation(event)))
        if len(batch) == 500:
            yield (b"" if first else b",") + ",".join(batch).encode()
            first, batch = False, []
    if batch:
        yield (b"" if first else b",") + ",".join(batch).encode()
    yield b"]}"


class GameStatesView(ApiView):
    oauth_scopes = {"GET": scopes.GAMES_READ}

    @extend_schema(
        operation_id="games_states",
        parameters=[StatesQuerySerializer],
        responses={200: StatePageSerializer},
        description=(
            "Consecutive states for a replay, each with the event that led to it: versions "
            "`?start=` (default 0) on, at most `?limit=` (1-100, default 50); `next` links to "
            "the following page. Each costs the server at most 32 folds plus one per state."
        ),
    )
    @reads_may_lag
    def get(self, request: Request, game_id: UUID) -> Response:
        query = StatesQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        start = query.validated_data.get("start", 0)
        limit = query.validated_data.get("limit", STATES_PAGE)
        game = selectors.game_get(owner=player(request), game_id=game_id)
        if start > game.version:
            raise Http404(gettext("the game has versions 0 to %(last)d") % {"last": game.version})
        stop = min(game.version, start + limit - 1)
        results = []
        for version, state, event in selectors.game_states(game=game, start=start, stop=stop):
            body = game_representation(game, state, version=version)
            body["event"] = None if event is None else event_representation(event)
            results.append(body)
        more = stop < game.version
        return Response(
            {
                "version": game.version,
                "next": _page_link(request, start=stop + 1, limit=limit) if more else None,
                "results": results,
            }
        )


class GameStateView(ApiView):
    oauth_scopes = {"GET": scopes.GAMES_READ}

    @extend_schema(operation_id="games_state", responses={200: GameSerializer})
    @reads_may_lag
    def get(self, request: Request, game_id: UUID, version: int) -> Response:
        game = selectors.game_get(owner=player(request), game_id=game_id)
        state = selectors.game_state_at(game=game, version=version)
        return Response(game_representation(game, state, version=version))


class GameRestartView(ApiView):
    oauth_scopes = {"POST": scopes.GAMES_PLAY}

    @extend_schema(
        operation_id="games_restart",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: GameSerializer},
    )
    def post(self, request: Request, game_id: UUID) -> Response:
        refuse_body_fields(request.data)
        game = services.game_restart(
            owner=player(request),
            game_id=game_id,
            idempotency_key=_idempotency_key(request),
            app=playing_app(request),
        )
        return Response(
            game_representation(game),
            status=201,
            headers={"Location": f"/api/v1/games/{game.id}/"},
        )


class DailyView(ApiView):
    oauth_scopes = {"GET": scopes.GAMES_READ}

    @extend_schema(operation_id="daily_retrieve", responses={200: DailySerializer})
    def get(self, request: Request) -> Response:
        summary = selectors.daily_summary(owner=player(request), day=timezone.now().date())
        return Response(
            {
                "date": summary.date.isoformat(),
                "game": str(summary.game.pk) if summary.game else None,
                "status": summary.game.status if summary.game else None,
                "ranked_game": str(summary.ranked_game.pk) if summary.ranked_game else None,
                "ranked_status": summary.ranked_game.status if summary.ranked_game else None,
                "solved": summary.solved,
                "ranked_available": summary.ranked_available,
                "attempts": summary.attempts,
                "deal_ready": summary.deal_ready,
                "difficulty": summary.difficulty,
                "difficulty_score": summary.difficulty_score,
            }
        )


class VariantsView(ApiView):
    """The games of the Scorpion family a game may be (``variant`` on create): public, the
    same for everyone."""

    permission_classes = [AllowAny]
    # Public: signed out, any session, or any app token with an API scope.
    oauth_scopes = {
        "GET": (
            scopes.GAMES_PLAY_SCOPE,
            scopes.GAMES_READ_SCOPE,
            scopes.STATS_READ_SCOPE,
            scopes.ACCOUNT_READ_SCOPE,
            scopes.SOCIAL_READ_SCOPE,
            scopes.SOCIAL_WRITE_SCOPE,
        )
    }

    @extend_schema(
        operation_id="variants_list",
        responses={200: VariantSerializer(many=True)},
        description=(
            "Every variant a game may be (`variant` on POST /api/v1/games/), Scorpion first: "
            "its layout and its rules in brief. Public: no credentials needed."
        ),
    )
    def get(self, request: Request) -> Response:
        return Response(variant_summaries(), headers={"Cache-Control": "public, max-age=3600"})
