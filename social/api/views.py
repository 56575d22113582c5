"""The social endpoints: challenges, friends, blocks, invites, the friends' daily board.
Views parse, call one service or selector, serialise; refusals are problems (errors.py)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import scopes
from accounts.app_tokens import token_lacks
from games.api.responses import GameSerializer
from games.api.views import playing_app
from games.presentation import game_representation
from infrastructure.api import ApiView
from infrastructure.serializers import refuse_body_fields
from social import selectors, services
from social.api import serializers
from social.api.errors import answered_as_problems
from stats.api import parse_day
from stats.selectors import day_visible


def player(request: Request) -> User:
    user = request.user
    assert isinstance(user, User)
    return user


def _written(request: Request, challenge: Any) -> dict[str, Any]:
    """A challenge as a write answers it: its board only to a caller that may read boards (an
    app's ``social:write`` token without ``social:read`` gets none: closing a closed challenge
    again changes nothing and would otherwise be a read)."""
    return selectors.challenge_view(
        viewer=player(request),
        challenge=challenge,
        with_board=not token_lacks(request, scopes.SOCIAL_READ),
    )


def _friendship(friendship: Any, user: User) -> dict[str, Any]:
    names = selectors.player_names([friendship.requester_id, friendship.addressee_id])
    return selectors.friendship_dict(friendship, user_id=user.pk, names=names)


_LIMITED = OpenApiResponse(description="throttled: the limit on what a player makes (Retry-After)")
_GUEST = OpenApiResponse(description="permission_denied: a guest signs up first")


class ChallengesView(ApiView):
    """The challenges you made and played; make one from a finished game."""

    oauth_scopes = {"GET": scopes.SOCIAL_READ, "POST": scopes.SOCIAL_WRITE}

    @extend_schema(
        operation_id="challenges_list", responses={200: serializers.ChallengeListSerializer}
    )
    def get(self, request: Request) -> Response:
        return Response(selectors.challenges_of(user=player(request)))

    @extend_schema(
        operation_id="challenges_create",
        request=serializers.ChallengeCreateSerializer,
        responses={
            201: serializers.ChallengeSerializer,
            403: _GUEST,
            404: OpenApiResponse(description="not_found: no such game of yours"),
            409: OpenApiResponse(
                description="not_challengeable: the game is not over, or a daily still secret"
            ),
            429: _LIMITED,
        },
    )
    def post(self, request: Request) -> Response:
        body = serializers.ChallengeCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        me = player(request)
        with answered_as_problems():
            challenge = services.challenge_create(creator=me, game_id=body.validated_data["game"])
        return Response(
            _written(request, challenge),
            status=201,
            headers={"Location": f"/api/v1/challenges/{challenge.pk}/"},
        )


class ChallengeView(ApiView):
    """A challenge, to anyone holding its link: its board once your game of it is over."""

    oauth_scopes = {"GET": scopes.SOCIAL_READ}

    @extend_schema(
        operation_id="challenges_retrieve",
        responses={
            200: serializers.ChallengeSerializer,
            404: OpenApiResponse(description="not_found"),
        },
    )
    def get(self, request: Request, challenge_id: UUID) -> Response:
        me = player(request)
        challenge = selectors.challenge_get(viewer=me, challenge_id=challenge_id)
        return Response(selectors.challenge_view(viewer=me, challenge=challenge))


class ChallengeCloseView(ApiView):
    oauth_scopes = {"POST": scopes.SOCIAL_WRITE}

    @extend_schema(
        operation_id="challenges_close",
        request=None,
        responses={
            200: serializers.ChallengeSerializer,
            404: OpenApiResponse(description="not_found: not yours"),
        },
    )
    def post(self, request: Request, challenge_id: UUID) -> Response:
        refuse_body_fields(request.data)
        me = player(request)
        challenge = services.challenge_close(creator=me, challenge_id=challenge_id)
        return Response(_written(request, challenge))


class ChallengePlayView(ApiView):
    """Your game of the challenge: a new one the first time (201), the same one after (200)."""

    oauth_scopes = {"POST": scopes.GAMES_PLAY}

    @extend_schema(
        operation_id="challenges_play",
        request=None,
        responses={
            200: GameSerializer,
            201: GameSerializer,
            404: OpenApiResponse(description="not_found"),
            409: OpenApiResponse(description="challenge_closed, or own_challenge"),
        },
    )
    def post(self, request: Request, challenge_id: UUID) -> Response:
        refuse_body_fields(request.data)
        with answered_as_problems():
            game, created = services.challenge_play(
                player=player(request), challenge_id=challenge_id, app=playing_app(request)
            )
        return Response(
            game_representation(game),
            status=201 if created else 200,
            headers={"Location": f"/api/v1/games/{game.pk}/"},
        )


class FriendsView(ApiView):
    """Your friends, requests, invites and blocks; ask a player, or accept an invite."""

    oauth_scopes = {"GET": scopes.SOCIAL_READ, "POST": scopes.SOCIAL_WRITE}

    @extend_schema(operation_id="friends_list", responses={200: serializers.FriendsSerializer})
    def get(self, request: Request) -> Response:
        return Response(selectors.friends_overview(user=player(request)))

    @extend_schema(
        operation_id="friends_create",
        request=serializers.FriendRequestSerializer,
        responses={
            200: serializers.FriendshipSerializer,
            403: _GUEST,
            404: OpenApiResponse(description="not_found: no such player, or no such invite"),
            429: _LIMITED,
        },
    )
    def post(self, request: Request) -> Response:
        body = serializers.FriendRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        me = player(request)
        with answered_as_problems():
            if "invite" in body.validated_data:
                friendship = services.invite_accept(
                    user=me, invite_id=body.validated_data["invite"]
                )
            else:
                friendship = services.friend_request(user=me, name=body.validated_data["player"])
        return Response(_friendship(friendship, me))


class FriendView(ApiView):
    """Refuse a request, withdraw one, or end a friendship."""

    oauth_scopes = {"DELETE": scopes.SOCIAL_WRITE}

    @extend_schema(
        operation_id="friends_destroy",
        responses={204: None, 404: OpenApiResponse(description="not_found")},
    )
    def delete(self, request: Request, friendship_id: int) -> Response:
        services.friend_remove(user=player(request), friendship_id=friendship_id)
        return Response(status=204)


class FriendAcceptView(ApiView):
    oauth_scopes = {"POST": scopes.SOCIAL_WRITE}

    @extend_schema(
        operation_id="friends_accept",
        request=None,
        responses={
            200: serializers.FriendshipSerializer,
            404: OpenApiResponse(description="not_found"),
        },
    )
    def post(self, request: Request, friendship_id: int) -> Response:
        refuse_body_fields(request.data)
        me = player(request)
        friendship = services.friend_accept(user=me, friendship_id=friendship_id)
        return Response(_friendship(friendship, me))


class InvitesView(ApiView):
    oauth_scopes = {"POST": scopes.SOCIAL_WRITE}

    @extend_schema(
        operation_id="invites_create",
        request=None,
        responses={
            201: serializers.InviteSerializer,
            400: OpenApiResponse(description="validation_error: too many open invites"),
            403: _GUEST,
            429: _LIMITED,
        },
    )
    def post(self, request: Request) -> Response:
        refuse_body_fields(request.data)
        with answered_as_problems():
            invite = services.invite_create(user=player(request))
        return Response(selectors.invite_dict(invite), status=201)


class InviteView(ApiView):
    oauth_scopes = {"DELETE": scopes.SOCIAL_WRITE}

    @extend_schema(
        operation_id="invites_destroy",
        responses={204: None, 404: OpenApiResponse(description="not_found")},
    )
    def delete(self, request: Request, invite_id: UUID) -> Response:
        services.invite_revoke(user=player(request), invite_id=invite_id)
        return Response(status=204)


class BlocksView(ApiView):
    oauth_scopes = {"POST": scopes.SOCIAL_WRITE}

    @extend_schema(
        operation_id="blocks_create",
        request=serializers.BlockCreateSerializer,
        responses={200: serializers.BlockSerializer, 404: OpenApiResponse(description="not_found")},
    )
    def post(self, request: Request) -> Response:
        body = serializers.BlockCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        me = player(request)
        with answered_as_problems():
            block = services.block_player(
                user=me,
                name=body.validated_data.get("player"),
                friendship_id=body.validated_data.get("friendship"),
            )
        names = selectors.player_names([block.blocked_id])
        return Response(
            {
                "id": block.pk,
                "player": names.get(block.blocked_id, ""),
                "created_at": block.created_at.isoformat(),
            }
        )


class BlockView(ApiView):
    oauth_scopes = {"DELETE": scopes.SOCIAL_WRITE}

    @extend_schema(
        operation_id="blocks_destroy",
        responses={204: None, 404: OpenApiResponse(description="not_found")},
    )
    def delete(self, request: Request, block_id: int) -> Response:
        services.block_remove(user=player(request), block_id=block_id)
        return Response(status=204)


class FriendsLeaderboardView(ApiView):
    """A day's daily leaderboard among you and your friends (the global board's rules)."""

    oauth_scopes = {"GET": scopes.SOCIAL_READ}

    @extend_schema(
        operation_id="daily_leaderboard_friends",
        parameters=[
            OpenApiParameter(
                "date", OpenApiTypes.DATE, OpenApiParameter.PATH, description="UTC day"
            )
        ],
        responses={
            200: serializers.FriendsBoardSerializer,
            400: OpenApiResponse(description="validation_error: a bad date, or after today"),
        },
    )
    def get(self, request: Request, date: str) -> Response:
        day = parse_day(date)
        me = player(request)
        if request.query_params:
            raise drf_serializers.ValidationError(
                {name: [gettext("unknown parameter")] for name in request.query_params}
            )
        if not day_visible(day=day, user=me):
            raise drf_serializers.ValidationError(
                {
                    "date": [
                        gettext("%(day)s is after today (UTC): its board opens that day")
                        % {"day": day.isoformat()}
                    ]
                }
            )
        return Response(selectors.friends_daily_board(user=me, day=day))
