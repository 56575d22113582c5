"""Account endpoints of the API that are not allauth's own: the caller, their data export, and
the erasure of their data or of the whole account."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import login
from django.contrib.auth.models import User
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import guests, selectors, services
from accounts.models import Profile
from games.api.serializers import StrictSerializer
from scorpion_site.api import ApiView
from scorpion_site.throttles import (
    AnonRateThrottle,
    GuestRateThrottle,
    IPRateThrottle,
    UserRateThrottle,
)


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


class MeSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    email = serializers.CharField(help_text="The primary e-mail address; empty for a guest.")
    date_joined = serializers.DateTimeField()
    guest = serializers.BooleanField(
        help_text="A guest account (made on first play, no e-mail or password): signing up "
        "from its session turns it into a full account, keeping its games."
    )
    display_name = serializers.CharField(
        help_text="The name leaderboards show (with a tag), or empty for the masked e-mail."
    )


def me_body(user: User) -> dict[str, Any]:
    profile = Profile.objects.filter(user=user).first()
    return {
        "id": user.pk,
        "email": user.email,
        "date_joined": user.date_joined.isoformat(),
        "guest": bool(profile and profile.guest),
        "display_name": profile.display_name if profile else "",
    }


class StrictRegexField(serializers.RegexField):
    """A string matching the pattern; a JSON number or boolean is refused, not converted."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        value: str = super().to_internal_value(data)
        return value


class MeUpdateSerializer(StrictSerializer):
    display_name = StrictRegexField(
        services.DISPLAY_NAME,
        max_length=30,
        allow_blank=True,
        error_messages={
            "invalid": "use letters, digits and single spaces, dots, dashes or underscores "
            "inside, starting and ending with a letter or digit"
        },
        help_text="1 to 30 letters, digits, spaces, '.', '_' or '-' (starting and ending with "
        "a letter or digit), or empty to show the masked e-mail again. Not for guests.",
    )


class MeView(ApiView):
    """The caller's account."""

    @extend_schema(operation_id="me_retrieve", responses={200: MeSerializer})
    def get(self, request: Request) -> Response:
        return Response(me_body(caller(request)))

    @extend_schema(
        operation_id="me_partial_update",
        description="Set the name shown on leaderboards. A guest signs up first (403).",
        request=MeUpdateSerializer,
        responses={200: MeSerializer},
    )
    def patch(self, request: Request) -> Response:
        user = caller(request)
        update = MeUpdateSerializer(data=request.data)
        update.is_valid(raise_exception=True)
        try:
            services.display_name_set(user=user, name=update.validated_data["display_name"])
        except services.GuestCannotNameError as error:
            raise exceptions.PermissionDenied(str(error)) from None
        except ValueError as error:
            raise serializers.ValidationError({"display_name": [str(error)]}) from None
        return Response(me_body(user))

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


class GuestView(ApiView):
    """Play at once, without signing up (accounts/guests.py)."""

    permission_classes = [AllowAny]
    throttle_classes = [AnonRateThrottle, UserRateThrottle, IPRateThrottle, GuestRateThrottle]

    @extend_schema(
        operation_id="guest_create",
        description=(
            "For browsers: make a guest account and sign this browser session in as it (the "
            "session cookie), so that the visitor can play at once. Requires the CSRF token "
            "(X-CSRFToken) like every write of a browser session. Answers 201 with the new "
            "account, or 200 with the caller's own account if the session is signed in "
            "already (nothing is made). Throttled per address (THROTTLE_GUEST). Signing up "
            "later from the same session (allauth's browser sign-up) keeps the games."
        ),
        request=None,
        responses={200: MeSerializer, 201: MeSerializer},
    )
    def post(self, request: Request) -> Response:
        if request.user and request.user.is_authenticated:
            return Response(me_body(caller(request)))
        # DRF checks CSRF only for signed-in sessions; this signs one in (log-in CSRF).
        SessionAuthentication().enforce_csrf(request)
        user = guests.guest_create()
        login(request._request, user, backend="django.contrib.auth.backends.ModelBackend")
        return Response(me_body(user), status=201)
