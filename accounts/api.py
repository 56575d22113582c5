"""Account endpoints of the API that are not allauth's own: the caller and their display name,
guests, the apps they authorised and their personal tokens. What spans their games and
statistics too (closing the account, erasing the data, the export) is ``players.api``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import login
from django.contrib.auth.models import User
from django.http import Http404
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
)
from rest_framework import exceptions, serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import guests, scopes, services
from accounts.language import FOLLOW_BROWSER, LANGUAGE_CODES
from accounts.models import Deck, Profile
from accounts.names import normalised
from accounts.oauth import selectors as oauth_selectors
from accounts.oauth import services as oauth_services
from infrastructure.api import ApiView
from infrastructure.problems import problem_response
from infrastructure.serializers import StrictCharField, StrictSerializer, refuse_body_fields
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
    deck = serializers.ChoiceField(
        choices=Deck.choices,
        help_text="The card faces the web client draws: `classic` (two colours) or "
        "`four_colour` (spades black, hearts red, diamonds blue, clubs green).",
    )
    # A string, not an enum, in answers: a language added to the site is no new type for
    # clients (the request's field lists the choices).
    language = serializers.CharField(
        help_text="The language the account reads the site and the API's problem details in, "
        "when signed in with its browser session: one of the site's languages (en, fr), or "
        "empty to follow the browser's Accept-Language (docs/api.md, Languages).",
    )


def me_body(user: User) -> dict[str, Any]:
    profile = Profile.objects.filter(user=user).first()
    return {
        "id": user.pk,
        "email": user.email,
        "date_joined": user.date_joined.isoformat(),
        "guest": bool(profile and profile.guest),
        "display_name": profile.display_name if profile else "",
        "language": profile.language if profile else FOLLOW_BROWSER,
        "deck": profile.deck if profile else Deck.CLASSIC.value,
    }


class StrictRegexField(serializers.RegexField):
    """A string matching the pattern; a JSON number or boolean is refused, not converted."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        value: str = super().to_internal_value(data)
        return value


class DisplayNameField(StrictRegexField):
    """Checked in the form it is stored in: NFKC (a fullwidth name has fullwidth spaces)."""

    def to_internal_value(self, data: Any) -> str:
        return super().to_internal_value(normalised(data) if isinstance(data, str) else data)


LANGUAGE_REFUSED = gettext_lazy(
    "Choose one of the site's languages, or nothing to follow the browser's."
)


class MeUpdateSerializer(StrictSerializer):
    display_name = DisplayNameField(
        services.NON_EMPTY_DISPLAY_NAME,
        max_length=30,
        allow_blank=True,
        required=False,
        error_messages={
            "invalid": services.NAME_SHAPE,
            "max_length": services.NAME_SHAPE,
            "null": services.NAME_SHAPE,
        },
        help_text="1 to 30 letters, digits, spaces, '.', '_' or '-' (starting and ending with "
        "a letter or digit), or empty to show the masked e-mail again. Stored NFKC-normalised; "
        "refused when it reads as a reserved name or as another player's (by its Unicode "
        "TR 39 skeleton: look-alike letters of other scripts, case and accents aside). Not "
        "for guests.",
    )
    deck = serializers.ChoiceField(
        choices=Deck.choices,
        required=False,
        help_text="The card faces the web client draws (guests may choose too).",
    )
    language = serializers.ChoiceField(
        choices=[FOLLOW_BROWSER, *LANGUAGE_CODES],
        required=False,
        error_messages={"invalid_choice": LANGUAGE_REFUSED},
        help_text="The account's language: one of the site's languages, or empty to follow "
        "the browser's Accept-Language. Guests may choose one too.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs:
            raise serializers.ValidationError(
                {"non_field_errors": [gettext("Send display_name, language, deck or several.")]}
            )
        return attrs


def _name_refused(sentence: str) -> Response:
    """400 ``validation_error`` whose ``detail`` is the sentence itself, shown as it is by the
    clients (not "display_name: ..."), and under ``errors`` by field as every other."""
    return problem_response("validation_error", sentence, errors={"display_name": [sentence]})


class AccountView(ApiView):
    """The caller's account and its display name (``players.api.MeView`` serves it at
    ``/api/v1/me/`` and adds its closing, which spans the other apps)."""

    # The display name is the player's own first-party setting: no app may change it.
    oauth_scopes = {"GET": scopes.ACCOUNT_READ, "PATCH": scopes.FIRST_PARTY}

    @extend_schema(operation_id="me_retrieve", responses={200: MeSerializer})
    def get(self, request: Request) -> Response:
        return Response(me_body(caller(request)))

    @extend_schema(
        operation_id="me_partial_update",
        description="Set the name shown on leaderboards (a guest signs up first: 403), the "
        "account's language, the deck the web client draws, or several of them.",
        request=MeUpdateSerializer,
        responses={200: MeSerializer},
    )
    def patch(self, request: Request) -> Response:
        user = caller(request)
        update = MeUpdateSerializer(data=request.data)
        if not update.is_valid():
            # Unknown fields, a wrong deck or language, nothing sent.
            if set(update.errors) != {"display_name"}:
                raise serializers.ValidationError(update.errors)
            return _name_refused(str(update.errors["display_name"][0]))
        fields = update.validated_data
        if "display_name" in fields:
            try:
                services.display_name_set(user=user, name=fields["display_name"])
            except services.GuestCannotNameError as error:
                raise exceptions.PermissionDenied(str(error)) from None
            except services.DisplayNameRefusedError as error:
                return _name_refused(str(error))
        if "language" in fields:
            services.language_set(user=user, language=fields["language"])
        if "deck" in fields:
            services.deck_set(user=user, deck=fields["deck"])
        return Response(me_body(user))


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
            raise Http404(gettext("no app of that id holds a token of yours"))
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


class PersonalTokenSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    scopes = serializers.ListField(child=serializers.CharField())
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True, help_text="null: until revoked.")


class NewPersonalTokenSerializer(PersonalTokenSerializer):
    token = serializers.CharField(
        help_text="The token itself, shown this once (only its hash is kept): send it as "
        "Authorization: Bearer."
    )


class StrictIntegerChoiceField(serializers.ChoiceField):
    """One of integer choices, sent as a JSON number (not "30", which its schema refuses)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class PersonalTokenCreateSerializer(StrictSerializer):
    name = StrictCharField(max_length=60, help_text="What the token is for.")
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=list(scopes.API_SCOPES)),
        min_length=1,
        help_text="What the token may do, as an app's token with these scopes.",
    )
    days = StrictIntegerChoiceField(
        choices=list(oauth_services.PERSONAL_TOKEN_DAYS),
        required=False,
        allow_null=True,
        help_text="How long it lives; absent or null: until revoked.",
    )


def personal_token_body(token: oauth_selectors.PersonalToken) -> dict[str, Any]:
    return {
        "id": token.id,
        "name": token.name,
        "scopes": token.scopes,
        "created_at": token.created_at.isoformat(),
        "expires_at": token.expires_at.isoformat() if token.expires_at else None,
    }


class MeTokensView(ApiView):
    """The caller's personal access tokens: tokens for their own scripts (Lichess's model)."""

    oauth_scopes = {"GET": scopes.FIRST_PARTY, "POST": scopes.FIRST_PARTY}

    @extend_schema(
        operation_id="me_tokens_list", responses={200: PersonalTokenSerializer(many=True)}
    )
    def get(self, request: Request) -> Response:
        tokens = oauth_selectors.personal_tokens(user=caller(request))
        return Response([personal_token_body(token) for token in tokens])

    @extend_schema(
        operation_id="me_tokens_create",
        description=(
            "Make a personal access token with the scopes chosen: it is used as an app's "
            "access token (Authorization: Bearer) and opens exactly what those scopes open. "
            "The token is in this answer only. At most 20 live tokens; not for guests (403)."
        ),
        request=PersonalTokenCreateSerializer,
        responses={201: NewPersonalTokenSerializer},
    )
    def post(self, request: Request) -> Response:
        form = PersonalTokenCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            token, value = oauth_services.personal_token_create(
                user=caller(request),
                name=form.validated_data["name"],
                scopes=form.validated_data["scopes"],
                days=form.validated_data.get("days"),
            )
        except PermissionError as error:  # a guest
            raise exceptions.PermissionDenied(str(error)) from None
        except oauth_services.PersonalTokenError as error:
            raise serializers.ValidationError({"non_field_errors": [str(error)]}) from None
        body = personal_token_body(oauth_selectors.personal_token_of(token))
        return Response({**body, "token": value}, status=201)


class MeTokenView(ApiView):
    """One of the caller's personal access tokens."""

    oauth_scopes = {"DELETE": scopes.FIRST_PARTY}

    @extend_schema(
        operation_id="me_tokens_revoke",
        description="Revoke the token: its next request is a 401. 404 if no such token.",
        responses={204: None},
    )
    def delete(self, request: Request, token_id: int) -> Response:
        refuse_body_fields(request.data)
        if not oauth_services.personal_token_revoke(user=caller(request), token_id=token_id):
            raise Http404(gettext("no personal access token of yours has that id"))
        return Response(status=204)
