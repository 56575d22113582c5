"""Writes about third-party apps: registering and changing an app (its developer), revoking
an app's access (a player), suspending an app (staff)."""

from __future__ import annotations

from allauth.idp.oidc.adapter import get_adapter
from allauth.idp.oidc.internal.oauthlib import device_codes
from allauth.idp.oidc.models import Client, Token
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction

from accounts.models import AppKind, AppPlayer, AppSuspension
from accounts.scopes import ALL_SCOPES
from games.models import Game

MAX_APPS_PER_DEVELOPER = 20

_BASE_GRANTS = [Client.GrantType.AUTHORIZATION_CODE, Client.GrantType.REFRESH_TOKEN]
# allauth runs the device flow for public apps only: a terminal or a bot keeps no secret.
_PUBLIC_GRANTS = [*_BASE_GRANTS, Client.GrantType.DEVICE_CODE]


def app_register(
    *,
    owner: User,
    name: str,
    redirect_uris: list[str],
    public: bool,
    kind: str = AppKind.CLIENT,
) -> tuple[Client, str | None]:
    """A new app of the developer, allowed every scope (each player chooses what to grant),
    with its declared ``kind``: a client people play through, or a bot (whose games never
    rank). Answers the app and, for a confidential app, its secret: shown once, stored
    hashed."""
    with transaction.atomic():
        # The developer's row serialises their registrations, so that two at once cannot
        # both pass the count below.
        User.objects.select_for_update().filter(pk=owner.pk).first()
        if Client.objects.filter(owner=owner).count() >= MAX_APPS_PER_DEVELOPER:
            raise ValidationError(
                f"You already have {MAX_APPS_PER_DEVELOPER} apps: delete one you no longer use."
            )
        app = Client(
            name=name,
            owner=owner,
            type=Client.Type.PUBLIC if public else Client.Type.CONFIDENTIAL,
            skip_consent=False,
        )
        app.set_redirect_uris(redirect_uris)
        app.set_scopes(list(ALL_SCOPES))
        app.set_grant_types([str(grant) for grant in (_PUBLIC_GRANTS if public else _BASE_GRANTS)])
        app.set_response_types([Client.ResponseType.CODE])
        secret: str | None = None
        if public:
            # A public app authenticates with nothing; keep an unguessable hash anyway.
            app.set_secret(get_adapter().generate_client_secret())
        else:
            secret = get_adapter().generate_client_secret()
            app.set_secret(secret)
        app.save()
        AppPlayer.objects.create(client=app, kind=AppKind(kind))
    return app, secret


def app_kind_set(*, app: Client, kind: str) -> int:
    """Staff's decision that an app is a client or a bot: recorded, and every game the app
    started or played by itself is marked again, so a bot found out leaves every leaderboard
    at once (and a mistake is undone the same way). Answers how many games were marked."""
    kind = AppKind(kind)
    with transaction.atomic():
        AppPlayer.objects.update_or_create(client=app, defaults={"kind": kind})
        return Game.objects.filter(app=app).exclude(app_kind=kind).update(app_kind=kind)


def app_update(*, app: Client, name: str, redirect_uris: list[str]) -> Client:
    app.name = name
    app.set_redirect_uris(redirect_uris)
    app.save(update_fields=["name", "redirect_uris"])
    return app


def app_rotate_secret(*, app: Client) -> str:
    """A new secret for a confidential app; the old one stops working at once. Tokens already
    issued stay valid (the players' grants do not depend on the secret)."""
    if app.type != Client.Type.CONFIDENTIAL:
        raise ValidationError("A public app has no secret.")
    secret = get_adapter().generate_client_secret()
    app.set_secret(secret)
    app.save(update_fields=["secret"])
    return secret


def app_delete(*, app: Client) -> None:
    """The app and every token it holds (the foreign keys cascade)."""
    app.delete()


def _approved_devices_key(user_id: object) -> str:
    return f"scorpion.oauth.approved-devices[{user_id}]"


def device_answer(*, user: User, client_id: str, device_code: str, allow: bool) -> None:
    """The player's answer on the device page. An approval is remembered (as long as a device
    code lives), so that revoking the app also voids an approval its device has not yet
    traded for tokens."""
    device_codes.confirm_or_deny_device_code(user, device_code, confirm=allow)
    if allow:
        key = _approved_devices_key(user.pk)
        approved = [*(cache.get(key) or []), [client_id, device_code]]
        cache.set(key, approved[-20:], timeout=settings.IDP_OIDC_DEVICE_CODE_EXPIRES_IN)


def app_revoke_for_player(*, user: User, client_id: str) -> int:
    """Remove every token the app holds for the player, and void the device codes the player
    approved for it that are not yet traded for tokens: its next call is a 401. Answers how
    many tokens and approvals went (0: the app had nothing, nothing to revoke).

    The player's row is locked first, as the token endpoint locks it before it issues tokens
    for a grant of that player (accounts.oauth.idp): otherwise a refresh that had read its
    refresh token just before this DELETE could commit new tokens that the DELETE, which only
    sees rows committed when it began, would miss.
    """
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        deleted, _ = Token.objects.filter(user=user, client_id=client_id).delete()
        for approved_client, device_code in cache.get(_approved_devices_key(user.pk)) or []:
            key = device_codes.cache_device_code_key(device_code)
            if approved_client == client_id and cache.get(key) is not None:
                # A device polling right now reads the code after taking the same lock.
                cache.delete(key)
                deleted += 1
    return int(deleted)


def app_suspend(*, app: Client, by: User | None, reason: str = "") -> AppSuspension:
    suspension, _ = AppSuspension.objects.get_or_create(
        client=app, defaults={"suspended_by": by, "reason": reason}
    )
    return suspension


def app_lift_suspension(*, app: Client) -> None:
    AppSuspension.objects.filter(client=app).delete()


PURGE_BATCH = 5000


def tokens_purge_expired() -> int:
    """Delete expired tokens (access tokens, refresh tokens, spent codes): they open nothing
    and would pile up, one access token an hour per app and player. In batches, each its own
    short transaction, so that no long lock holds up the token endpoint. Answers how many."""
    purged = 0
    while True:
        batch = list(Token.objects.expired().values_list("pk", flat=True)[:PURGE_BATCH])
        if not batch:
            return purged
        deleted, _ = Token.objects.filter(pk__in=batch).delete()
        purged += deleted
