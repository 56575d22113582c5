"""The API's endpoints on a player's data as a whole: closing the account, erasing its games and
results, and the export of everything stored about the player."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import scopes
from accounts.api import AccountView, caller
from infrastructure.api import ApiView
from infrastructure.serializers import refuse_body_fields
from players import selectors, services


def _counts(name: str, keys: tuple[str, ...]) -> serializers.Serializer[Any]:
    return inline_serializer(
        name,
        {
            "deleted": inline_serializer(
                f"{name}Counts", {key: serializers.IntegerField() for key in keys}
            )
        },
    )


class MeView(AccountView):
    """The caller's account."""

    oauth_scopes = {
        "GET": scopes.ACCOUNT_READ,
        "PATCH": scopes.FIRST_PARTY,
        "DELETE": scopes.FIRST_PARTY,
    }

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
        refuse_body_fields(request.data)
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
        refuse_body_fields(request.data)
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
