"""Writes about third-party apps: registering and changing an app (its developer), revoking
an app's access (a player), suspending an app (staff); and the personal access tokens a
player makes for their own scripts."""

from __future__ import annotations

import secrets
from datetime import timedelta

from allauth.idp.oidc.adapter import get_adapter
from allauth.idp.oidc.internal.oauthlib import device_codes
from allauth.idp.oidc.models import Client, Token
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from accounts.guests import is_guest
from accounts.models import AppKind, AppPlayer, AppSuspension, SpentRefreshToken
from accounts.oauth.selectors import PERSONAL_CLIENT_ID
from accounts.scopes import ALL_SCOPES, API_SCOPES
from infrastructure.audit import staff_action_record

MAX_APPS_PER_DEVELOPER = 20
GUESTS_REGISTER_NO_APPS = gettext_lazy(
    "A guest account cannot register apps: sign up first (your games stay with you), then "
    "come back to register your app."
)

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
    hashed. A guest registers none (``GUESTS_REGISTER_NO_APPS``)."""
    if is_guest(owner):
        raise ValidationError(GUESTS_REGISTER_NO_APPS)
    with transaction.atomic():
        # The developer's row serialises their registrations, so that two at once cannot
        # both pass the count below.
        User.objects.select_for_update().filter(pk=owner.pk).first()
        if Client.objects.filter(owner=owner).count() >= MAX_APPS_PER_DEVELOPER:
            raise ValidationError(
                gettext("You already have %(most)d apps: delete one you no longer use.")
                % {"most": MAX_APPS_PER_DEVELOPER}
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


def app_update(*, app: Client, name: str, redirect_uris: list[str]) -> Client:
    app.name = name
    app.set_redirect_uris(redirect_uris)
    app.save(update_fields=["name", "redirect_uris"])
    return app


def app_rotate_secret(*, app: Client) -> str:
    """A new secret for a confidential app; the old one stops working at once. Tokens already
    issued stay valid (the players' grants do not depend on the secret)."""
    if app.type != Client.Type.CONFIDENTIAL:
        raise ValidationError(gettext("A public app has no secret."))
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
    if client_id == PERSONAL_CLIENT_ID:
        return 0  # personal access tokens are revoked one by one (personal_token_revoke)
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


def refresh_token_spent(*, token: Token) -> None:
    """Remember a refresh token that a refresh has just replaced (allauth deleted its row), to
    recognise its reuse (``accounts.models.SpentRefreshToken``)."""
    SpentRefreshToken.objects.get_or_create(
        hash=token.hash,
        defaults={
            "client_id": token.client_id,
            "user_id": token.user_id,
            "grant_id": token.get_grant_id() or "",
            "expires_at": token.expires_at,
        },
    )


def grant_revoke_on_reuse(*, spent: SpentRefreshToken) -> int:
    """A spent refresh token came back: revoke every token of its grant (the app's tokens for
    that player issued since that consent, through every refresh), the newest included; a
    token from before grants were tracked takes the app's every token of the player. Answers
    how many went. The caller holds the player's row lock, as the token endpoint does."""
    tokens = Token.objects.filter(client_id=spent.client_id, user_id=spent.user_id)
    if spent.grant_id:
        tokens = tokens.filter(data__grant_id=spent.grant_id)
    deleted, _ = tokens.delete()
    return int(deleted)


MAX_PERSONAL_TOKENS = 20
PERSONAL_TOKEN_PREFIX = "scp_"  # so that a leaked one is recognisable (secret scanners)
PERSONAL_TOKEN_DAYS = (7, 30, 90, 365)  # the lifetimes offered; None: until revoked


GUESTS_MAKE_NO_TOKENS = gettext_lazy("A guest account cannot make tokens: sign up first.")


class PersonalTokenError(ValueError):
    """A personal access token that cannot be made: a sentence for the player."""


def _personal_tokens_app() -> Client:
    """The app that personal access tokens belong to (allauth keeps every access token under
    an app), made on the first token. It has no owner, no secret anyone knows, no grant type,
    no response type and no redirect URI: no OAuth flow can issue a token for it, only
    ``personal_token_create``. Staff may suspend it (every personal token stops) like any.

    It is a bot (``AppKind.BOT``): a personal token is for the player's own scripts, and a
    script that plays is a bot, so its games count in the player's statistics but never rank
    (a player's own solver would otherwise top the daily's board). People play through their
    session or through a client app."""
    app, created = Client.objects.get_or_create(
        id=PERSONAL_CLIENT_ID,
        defaults={
            "name": "Personal access token",
            "owner": None,
            "type": Client.Type.CONFIDENTIAL,
            "skip_consent": False,
        },
    )
    if created:
        app.set_scopes(list(API_SCOPES))
        app.set_grant_types([])
        app.set_response_types([])
        app.set_redirect_uris([])
        app.set_secret(get_adapter().generate_client_secret())  # thrown away: no one knows it
        app.save()
    AppPlayer.objects.get_or_create(client=app, defaults={"kind": AppKind.BOT})
    return app


def personal_token_create(
    *, user: User, name: str, scopes: list[str], days: int | None
) -> tuple[Token, str]:
    """A personal access token of the player, for their own scripts: an access token of the
    personal tokens' app with the scopes they chose (the same rules as an app's token: it
    opens what those scopes open, never what is the player's own sessions' alone), alive
    ``days`` days or until revoked. Answers the token and its value, shown once: only its
    hash is stored. A guest makes none (PermissionError)."""
    name = " ".join(name.split())
    if is_guest(user):
        raise PermissionError(GUESTS_MAKE_NO_TOKENS)
    if not 1 <= len(name) <= 60:
        raise PersonalTokenError(gettext("Give the token a name of 1 to 60 characters."))
    if not scopes or not set(scopes) <= set(API_SCOPES):
        raise PersonalTokenError(
            gettext("Choose one or more of the scopes %(scopes)s.")
            % {"scopes": ", ".join(API_SCOPES)}
        )
    if days is not None and days not in PERSONAL_TOKEN_DAYS:
        raise PersonalTokenError(gettext("A token lives 7, 30, 90 or 365 days, or until revoked."))
    value = PERSONAL_TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        # The player's row serialises their new tokens, so that the count below holds.
        User.objects.select_for_update().filter(pk=user.pk).first()
        live = Token.objects.valid().filter(user=user, client_id=PERSONAL_CLIENT_ID)
        if live.count() >= MAX_PERSONAL_TOKENS:
            raise PersonalTokenError(
                gettext("You have %(most)d tokens already: revoke one you no longer use.")
                % {"most": MAX_PERSONAL_TOKENS}
            )
        token = Token(
            type=Token.Type.ACCESS_TOKEN,
            client=_personal_tokens_app(),
            user=user,
            data={"personal_name": name},
            expires_at=None if days is None else timezone.now() + timedelta(days=days),
        )
        token.set_value(value)
        token.set_scopes(sorted(set(scopes)))
        token.save()
    return token, value


def personal_token_revoke(*, user: User, token_id: int) -> bool:
    """Revoke one of the player's personal access tokens: its next request is a 401. False if
    the player has no such token."""
    tokens = Token.objects.filter(pk=token_id, user=user, client_id=PERSONAL_CLIENT_ID)
    deleted, _ = tokens.delete()
    return bool(deleted)


def app_suspend(*, app: Client, by: User | None, reason: str = "") -> AppSuspension:
    """Staff suspend an app (its tokens are refused); recorded in the audit log with the
    reason when a staff member did it. An app already suspended keeps its first suspension."""
    with transaction.atomic():
        suspension, created = AppSuspension.objects.get_or_create(
            client=app, defaults={"suspended_by": by, "reason": reason}
        )
        if created and by is not None:
            staff_action_record(actor_id=by.pk, target=app, action="suspended", reason=reason)
    return suspension


def app_lift_suspension(*, app: Client, by: User | None = None, reason: str = "") -> bool:
    """Lift an app's suspension (its players' grants work again); recorded in the audit log
    when a staff member did it. False if the app was not suspended."""
    with transaction.atomic():
        deleted, _ = AppSuspension.objects.filter(client=app).delete()
        if deleted and by is not None:
            staff_action_record(
                actor_id=by.pk, target=app, action="lifted the suspension", reason=reason
            )
    return bool(deleted)


PURGE_BATCH = 5000


def tokens_purge_expired() -> int:
    """Delete expired tokens (access tokens, refresh tokens, spent codes): they open nothing
    and would pile up, one access token an hour per app and player. In batches, each its own
    short transaction, so that no long lock holds up the token endpoint. Answers how many."""
    SpentRefreshToken.objects.filter(expires_at__lt=timezone.now()).delete()
    purged = 0
    while True:
        batch = list(Token.objects.expired().values_list("pk", flat=True)[:PURGE_BATCH])
        if not batch:
            return purged
        deleted, _ = Token.objects.filter(pk__in=batch).delete()
        purged += deleted
