"""Account endpoints of the API that are not allauth's own: the caller, their data export, and
the erasure of their data or of the whole account."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http import Http404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import scopes, selectors, services
from accounts.oauth import selectors as oauth_selectors
from accounts.oauth import services as oauth_services
from scorpion_site.api import ApiView


def caller(request: Request) -> User:
    user = request.user
    assert isinstance(user, User)
    return user


def _counts(name: str, keys: tuple[str, ...]) -> serializers.Serializer[Any]:
    return inline_serializer(
        name,
        {
            "deleted": inline_serializer(
                f"{name}Counts", {key: serializers.IntegerField() for key in keys}
            )
        },
    )


class MeView(ApiView):
    """The caller's account."""

    oauth_scopes = {"GET": scopes.ACCOUNT_READ, "DELETE": scopes.FIRST_PARTY}

    @extend_schema(
        operation_id="me_retrieve",
        responses={
            200: inline_serializer(
                "Me",
                {
                    "id": serializers.IntegerField(),
                    "email": serializers.EmailField(),
                    "date_joined": serializers.DateTimeField(),
                },
            )
        },
    )
    def get(self, request: Request) -> Response:
        user = request.user
        return Response(
            {
                "id": user.pk,
                "email": getattr(user, "email", ""),
                "date_joined": user.date_joined.isoformat(),  # type: ignore[union-attr]
            }
        )

    @extend_schema(
        operation_id="me_destroy",
        description=(
            "Close the caller's account: removes the account, its e-mail addresses, every "
            "session (all session tokens stop working), all games with their events, and the "
            "statistics. Answers with how many rows of each kind were removed."
        ),
        responses={200: _counts("AccountDeleted", services.ACCOUNT_KEYS)},
    )
    def delete(self, request: Request) -> Response:
        counts = services.account_delete(user=caller(request))
        # The browser client's session row is gone; make sure this response does not save it
        # back or leave its cookie behind.
        session = getattr(request._request, "session", None)
        if session is not None and session.session_key:
            session.flush()
        return Response({"deleted": counts})


class MeDataView(ApiView):
    """The caller's games and results, which can be erased while keeping the account."""

    oauth_scopes = {"DELETE": scopes.FIRST_PARTY}

    @extend_schema(
        operation_id="me_data_destroy",
        description=(
            "Remove the caller's games (with their events) and statistics; the account stays. "
            "Answers with how many rows of each kind were removed."
        ),
        responses={200: _counts("DataDeleted", services.DATA_KEYS)},
    )
    def delete(self, request: Request) -> Response:
        return Response({"deleted": services.account_data_delete(user=caller(request))})


class MeExportView(ApiView):
    """Everything stored about the caller."""

    oauth_scopes = {"GET": scopes.FIRST_PARTY}

    @extend_schema(
        operation_id="me_export",
        description=(
            "Everything stored about the caller, as a JSON download: the account and its "
            "e-mail addresses, every game with its full event log, and the statistics. The "
            "deal (code and seed) of a game still being played is left out: it is hidden "
            "information until the game ends (a daily deal: until its UTC day and the next "
            "are over)."
        ),
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT, description="format, exported_at, account, stats, games"
            )
        },
    )
    def get(self, request: Request) -> Response:
        user = caller(request)
        body = selectors.account_export(user=user)
        filename = f"scorpion-export-{user.pk}-{timezone.now():%Y%m%d}.json"
        return Response(body, headers={"Content-Disposition": f'attachment; filename="{filename}"'})


class AuthorisedAppSerializer(serializers.Serializer[Any]):
    client_id = serializers.CharField()
    name = serializers.CharField()
    scopes = serializers.ListField(
        child=serializers.CharField(), help_text="What the player granted (OAuth scopes)."
    )
    authorised_at = serializers.DateTimeField(help_text="The oldest live token of the app.")
    suspended = serializers.BooleanField(help_text="Staff suspended the app: it cannot act.")


class MeAppsView(ApiView):
    """The third-party apps the caller has authorised (that hold a live token of theirs)."""

    oauth_scopes = {"GET": scopes.FIRST_PARTY}

    @extend_schema(operation_id="me_apps_list", responses={200: AuthorisedAppSerializer(many=True)})
    def get(self, request: Request) -> Response:
        apps = oauth_selectors.authorised_apps(user=caller(request))
        return Response(
            [
                {
                    "client_id": app.client_id,
                    "name": app.name,
                    "scopes": app.scopes,
                    "authorised_at": app.authorised_at.isoformat(),
                    "suspended": app.suspended,
                }
                for app in apps
            ]
        )


# The client ids allauth makes are 32 hex digits; staff may set others, in URL-safe letters.
CLIENT_ID_PATTERN = r"[A-Za-z0-9._~-]{1,100}"
CLIENT_ID = OpenApiParameter(
    "client_id",
    {"type": "string", "pattern": f"^{CLIENT_ID_PATTERN}$", "maxLength": 100},
    OpenApiParameter.PATH,
)


class MeAppView(ApiView):
    """One app the caller has authorised."""

    oauth_scopes = {"DELETE": scopes.FIRST_PARTY}

    @extend_schema(
        operation_id="me_apps_revoke",
        parameters=[CLIENT_ID],
        description=(
            "Revoke the app: every token it holds for the caller dies at once (its next call "
            "is a 401). 404 when the app holds no token of the caller."
        ),
        responses={204: None},
    )
    def delete(self, request: Request, client_id: str) -> Response:
        if not oauth_services.app_revoke_for_player(user=caller(request), client_id=client_id):
            raise Http404("no app of that id holds a token of yours")
        return Response(status=204)
