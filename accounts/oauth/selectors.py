"""Reads about third-party apps: a developer's own apps, the apps a player has authorised,
and whether an app is suspended."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from allauth.idp.oidc.models import Client, Token
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import gettext

from accounts.models import AppKind, AppPlayer, AppSuspension
from accounts.scopes import ALL_SCOPES

# The app of players' personal access tokens (accounts.oauth.services, made on the first one):
# no OAuth flow issues its tokens; players make them for their own scripts. Not listed among
# the apps they allowed.
PERSONAL_CLIENT_ID = "personal-access-tokens"

# The tokens that are a player's standing grant to an app (an authorization code is a step
# of a flow, spent within a minute).
GRANT_TOKEN_TYPES = (Token.Type.ACCESS_TOKEN, Token.Type.REFRESH_TOKEN)


def app_kind(*, app: Client) -> str:
    """Whether people play through the app (``client``) or it plays by itself (``bot``): its
    developer's declaration, or staff's; an app registered before the question is a client.
    Reads ``app.player`` (one query, none if fetched with ``select_related("player")``)."""
    player: AppPlayer | None = getattr(app, "player", None)  # None: no row
    return player.kind if player is not None else AppKind.CLIENT


def app_with_kind(*, client_id: str) -> tuple[Client, str] | None:
    """The app and its kind (``app_kind``), in one query; None if the app is gone."""
    app = Client.objects.select_related("player").filter(pk=client_id).first()
    return None if app is None else (app, app_kind(app=app))


def app_is_suspended(*, client_id: str) -> bool:
    return AppSuspension.objects.filter(client_id=client_id).exists()


def access_token_is_live(*, token_id: int) -> bool:
    """Whether an access token still opens the API: not revoked (its row deleted, by the
    player, the app or staff), not expired, and its app not suspended. What a request that
    outlives its authentication (a live stream) asks again from time to time."""
    return (
        Token.objects.valid()
        .filter(pk=token_id, type=Token.Type.ACCESS_TOKEN)
        .exclude(client__suspension__isnull=False)
        .exists()
    )


def suspended_among(*, client_ids: set[str]) -> set[str]:
    return set(
        AppSuspension.objects.filter(client_id__in=client_ids).values_list("client_id", flat=True)
    )


def developer_apps(*, owner: User) -> QuerySet[Client]:
    return Client.objects.filter(owner=owner).select_related("suspension").order_by("created_at")


def developer_app(*, owner: User, client_id: str) -> Client:
    """One of the developer's apps; anyone else's (or none) is a 404, as for games."""
    app = developer_apps(owner=owner).filter(id=client_id).first()
    if app is None:
        raise Http404(gettext("no such app of yours"))
    return app


def scope_order(scopes: set[str]) -> list[str]:
    """Scopes in the order the consent page lists them, unknown ones last."""
    known = [scope for scope in ALL_SCOPES if scope in scopes]
    return known + sorted(scopes - set(known))


@dataclass(frozen=True)
class AuthorisedApp:
    client_id: str
    name: str
    scopes: list[str]
    authorised_at: datetime.datetime
    suspended: bool


def authorised_apps(*, user: User) -> list[AuthorisedApp]:
    """The apps holding a live token of the player, with the scopes granted, oldest grant
    first. One query."""
    tokens = (
        Token.objects.valid()
        .filter(user=user, type__in=GRANT_TOKEN_TYPES, client__isnull=False)
        .exclude(client_id=PERSONAL_CLIENT_ID)
        .select_related("client", "client__suspension")
        .order_by("created_at", "id")
    )
    apps: dict[str, tuple[Client, set[str], datetime.datetime]] = {}
    for token in tokens:
        client = token.client
        assert client is not None
        if client.pk not in apps:
            apps[client.pk] = (client, set(), token.created_at)
        apps[client.pk][1].update(token.get_scopes())
    return [
        AuthorisedApp(
            client_id=client.pk,
            name=client.name,
            scopes=scope_order(scopes),
            authorised_at=since,
            suspended=hasattr(client, "suspension"),
        )
        for client, scopes, since in apps.values()
    ]


@dataclass(frozen=True)
class PersonalToken:
    id: int
    name: str
    scopes: list[str]
    created_at: datetime.datetime
    expires_at: datetime.datetime | None


def personal_token_of(token: Token) -> PersonalToken:
    data = token.data if isinstance(token.data, dict) else {}
    return PersonalToken(
        id=token.pk,
        name=str(data.get("personal_name", "")),
        scopes=scope_order(set(token.get_scopes())),
        created_at=token.created_at,
        expires_at=token.expires_at,
    )


def personal_tokens(*, user: User) -> list[PersonalToken]:
    """The player's live personal access tokens, oldest first (never their values: only
    hashes are stored)."""
    tokens = Token.objects.valid().filter(
        user=user, client_id=PERSONAL_CLIENT_ID, type=Token.Type.ACCESS_TOKEN
    )
    return [personal_token_of(token) for token in tokens.order_by("created_at", "id")]
