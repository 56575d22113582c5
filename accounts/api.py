"""Account endpoints of the API that are not allauth's own: the caller, their data export, and
the erasure of their data or of the whole account."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import login
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
from rest_framework import exceptions, serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import guests, scopes, selectors, services
from accounts.models import Profile
from accounts.oauth import selectors as oauth_selectors
from accounts.oauth import services as oauth_services
from games.api.serializers import StrictSerializer, refuse_body_fields
from infrastructure.api import ApiView
from infrastructure.throttles import (
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
        services.NON_EMPTY_DISPLAY_NAME,
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

    # The display name is the player's own first-party setting: no app may change it.
    oauth_scopes = {
        "GET": scopes.ACCOUNT_READ,
        "PATCH": scopes.FIRST_PARTY,
        "DELETE": scopes.FIRST_PARTY,
    }

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
        refuse_body_fields(request.data)
        if not oauth_services.app_revoke_for_player(user=caller(request), client_id=client_id):
            raise Http404("no app of that id holds a token of yours")
        return Response(status=204)


class GuestView(ApiView):
    """Play at once, without signing up (accounts/guests.py)."""

    permission_classes = [AllowAny]
    # Browsers only: it signs a session in, which no app token may do.
    oauth_scopes = {"POST": scopes.FIRST_PARTY}
    throttle_classes = [AnonRateThrottle, UserRateThrottle, IPRateThrottle, GuestRateThrottle]

    @extend_schema(
        operation_id="guest_create",
        description=(
            "For browsers: make a guest account and sign this browser session in as it (the "
            "session cookie), so that the visitor can play at once. Requires the CSRF token "
            "(X-CSRFToken) like every write of a browser session. Answers 201 with the new "
            "account, or 200 with the caller's own account if the session is signed in "
            "already (nothing is made). Throttled per address (THROTTLE_GUEST). Signing up "
            "later from the same session (allauth's browser sign-up) keeps the games; logging "
            "in there to an existing account (allauth's browser log-in, as from a signed-out "
            "session) switches the session to it once the log-in succeeds, and leaves the "
            "guest signed in if it fails."
        ),
        request=None,
        responses={200: MeSerializer, 201: MeSerializer},
    )
    def post(self, request: Request) -> Response:
        refuse_body_fields(request.data)
        if request.user and request.user.is_authenticated:
            return Response(me_body(caller(request)))
        # DRF checks CSRF only for signed-in sessions; this signs one in (log-in CSRF).
        SessionAuthentication().enforce_csrf(request)
        user = guests.guest_create()
        login(request._request, user, backend="django.contrib.auth.backends.ModelBackend")
        return Response(me_body(user), status=201)
