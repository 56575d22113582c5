"""Our versions of some of allauth's OAuth 2 / OpenID Connect provider views.

allauth's views do the protocol; these add what our service needs around them:

- a suspended app gets nothing: no consent page, no device code, no token, no userinfo;
- the ``openid`` scope is refused when no ID-token signing key is configured;
- the authorization code flow needs PKCE from every app, confidential ones included
  (OAuth 2.1): allauth requires it of public apps only;
- the consent page's Content-Security-Policy lets its form lead to the app's redirect URI
  (``form-action``: browsers apply it to the redirect that answers the form too);
- the device approval page checks the CSRF token (allauth's is exempt) and shows what the app
  asks for;
- the token endpoint locks the player's row before issuing tokens (see
  ``accounts.oauth.services.app_revoke_for_player``: a revocation cannot miss tokens that a
  concurrent refresh is about to commit).

They are routed at allauth's own paths, ahead of allauth's URLs (scorpion_site/urls.py), so
allauth's reverse() names and its discovery document lead to them.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlparse, urlsplit

from allauth.account.internal.userkit import str_to_user_id
from allauth.core.internal import ratelimit
from allauth.core.internal.httpkit import extract_basic_auth
from allauth.idp.oidc import views as idp_views
from allauth.idp.oidc.adapter import get_adapter
from allauth.idp.oidc.forms import AuthorizationForm, ConfirmCodeForm
from allauth.idp.oidc.internal.oauthlib import device_codes
from allauth.idp.oidc.models import Client, Token
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_deny

from accounts.models import SpentRefreshToken
from accounts.oauth import services
from accounts.oauth.login import player_login_required, to_player_login
from accounts.oauth.selectors import app_is_suspended, scope_order, suspended_among
from accounts.ratelimits import retry_after_per_ip
from accounts.scopes import ALL_SCOPES

ERROR_TEMPLATE = "idp/oidc/error.html"

_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")
_UNSAFE_SCHEMES = {"javascript", "data", "vbscript", "blob", "filesystem"}
_HOST = re.compile(r"[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]")


def form_action_source(redirect_uri: str) -> str | None:
    """The CSP source that lets a form be answered by a redirect to ``redirect_uri``: its
    origin for http(s), its scheme for a native app's own (``com.example.app:``); None for
    anything that cannot be written safely into the header."""
    parsed = urlparse(redirect_uri)
    scheme = parsed.scheme.lower()
    if not _SCHEME.fullmatch(scheme) or scheme in _UNSAFE_SCHEMES:
        return None
    if scheme not in ("http", "https"):
        return f"{scheme}:"
    host = parsed.netloc.rpartition("@")[2]
    name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
    if not name:
        name, port = host, ""
    if not _HOST.fullmatch(name) or not (port == "" or port.isdecimal()):
        return None
    return f"{scheme}://{host}"


_LOOPBACK_HOSTS = {"127.0.0.1", "::1"}


def _loopback_without_port(uri: str) -> tuple[str, ...] | None:
    """A loopback redirect URI (``http://127.0.0.1:PORT/...``, ``http://[::1]:PORT/...``)
    without its port, or None for any other URI."""
    try:
        parsed = urlsplit(uri)
        parsed.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return None
    if parsed.scheme != "http" or parsed.hostname not in _LOOPBACK_HOSTS or parsed.username:
        return None
    return (parsed.hostname, parsed.path, parsed.query, parsed.fragment)


def redirect_uri_registered(uri: str, registered: list[str]) -> bool:
    """Whether ``uri`` is one of the app's redirect URIs, compared as strings (RFC 9700,
    section 4.1.3), except that a loopback URI's port may differ (RFC 8252, section 7.3: a
    native app listens on whatever port is free). allauth also accepts extra query
    parameters and, for every loopback host, any port: not here."""
    if uri in registered:
        return True
    loopback = _loopback_without_port(uri)
    return loopback is not None and any(
        loopback == _loopback_without_port(candidate) for candidate in registered
    )


REDIRECT_URI_UNREGISTERED = gettext_lazy(
    "This redirect_uri is not one the app registered: it must be exactly one of them, "
    "character for character (only a loopback address's port may differ)."
)
APP_SUSPENDED = gettext_lazy("This app is suspended: it cannot act for players.")


def _refusal(*, client_ids: set[str], scopes: list[str]) -> tuple[str, str] | None:
    """(OAuth error code, description) when the request must be turned away, else None."""
    client_ids.discard("")
    if client_ids and suspended_among(client_ids=client_ids):
        return "invalid_client", str(APP_SUSPENDED)
    if "openid" in scopes and not settings.IDP_OIDC_PRIVATE_KEY:
        return "invalid_scope", gettext("OpenID Connect is off on this server: ask without openid.")
    return None


def _error_page(request: HttpRequest, message: object, *, status: int = 400) -> HttpResponse:
    return render(request, ERROR_TEMPLATE, {"message": message}, status=status)


def _json_error(error: str, description: str) -> JsonResponse:
    status = 401 if error == "invalid_client" else 400
    return JsonResponse({"error": error, "error_description": description}, status=status)


def _described(scopes: list[str]) -> list[tuple[str, str]]:
    return [(scope, gettext(ALL_SCOPES.get(scope, scope))) for scope in scope_order(set(scopes))]


class AuthorizationView(idp_views.AuthorizationView):
    """The consent page (templates/idp/oidc/authorization_form.html)."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        refusal = _refusal(
            client_ids={request.GET.get("client_id", "")},
            scopes=request.GET.get("scope", "").split(),
        )
        if refusal is not None:
            return _error_page(request, refusal[1])
        redirect_uri = request.GET.get("redirect_uri")
        client = Client.objects.filter(id=request.GET.get("client_id", "")).first()
        if (
            client is not None
            and redirect_uri is not None
            and not redirect_uri_registered(redirect_uri, client.get_redirect_uris())
        ):
            # An error page, never a redirect to a URI the app did not register.
            return _error_page(request, REDIRECT_URI_UNREGISTERED)
        if request.GET.get("response_type") == "code" and not request.GET.get("code_challenge"):
            return _error_page(
                request,
                gettext(
                    "This app must use PKCE: send code_challenge with code_challenge_method=S256."
                ),
            )
        return super().get(request, *args, **kwargs)

    def _login_required(self, request: HttpRequest) -> HttpResponse | None:
        # allauth sends a player who is not signed in to settings.LOGIN_URL; ours go to the
        # home page's log-in form (accounts/oauth/login.py). Its handling of ``prompt`` stays.
        prompts = request.GET.get("prompt", "").split()
        if not request.user.is_authenticated and not {"login", "none"} & set(prompts):
            return to_player_login(request)
        return super()._login_required(request)

    def form_valid(self, form: AuthorizationForm) -> HttpResponse:
        # Again at the player's answer: the app may have been suspended meanwhile.
        refusal = _refusal(
            client_ids={str(self._request_info.get("client_id", ""))},
            scopes=list(form.cleaned_data["scopes"]),
        )
        if refusal is not None:
            return _error_page(self.request, refusal[1])
        return super().form_valid(form)

    def get_form(self, form_class: Any = None) -> AuthorizationForm:
        form: AuthorizationForm = super().get_form(form_class)
        field = form.fields["scopes"]
        labels = dict(field.choices)
        # In the page's language (the adapter's scope_display is English: the API's docs).
        field.choices = [(scope, gettext(labels[scope])) for scope in scope_order(set(labels))]
        return form

    def render_to_response(self, context: dict[str, Any], **kwargs: Any) -> HttpResponse:
        # The page's form is answered by a redirect to the app: main's CSP (form-action
        # 'self') would make the browser refuse to follow it.
        response: HttpResponse = super().render_to_response(context, **kwargs)
        source = form_action_source(str(self._request_info.get("redirect_uri") or ""))
        if source is not None:
            response._csp_update = {"form-action": [source]}  # type: ignore[attr-defined]
        return response

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        redirect_uri = str(self._request_info.get("redirect_uri") or "")
        parsed = urlparse(redirect_uri)
        # What the player is sent back to: a host, or a native app's own scheme.
        context["redirect_to"] = parsed.netloc or (f"{parsed.scheme}:" if parsed.scheme else "")
        context["page"] = "consent"
        return context


class DeviceCodeView(idp_views.DeviceCodeView):
    """POST /identity/o/api/device/code: the first step of the device flow. Anyone may call
    it, so it is rate limited per address (``device_code`` in IDP_OIDC_RATE_LIMITS): every
    code takes room in the cache for its lifetime."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not ratelimit.consume(request, app="allauth.idp.oidc", action="device_code"):
            refused = JsonResponse(
                {
                    "error": "temporarily_unavailable",
                    "error_description": gettext("Too many requests."),
                },
                status=429,
            )
            # As every 429 of the service: when to come back.
            wait = retry_after_per_ip(request, app="allauth.idp.oidc", action="device_code")
            refused["Retry-After"] = str(wait)
            return refused
        refusal = _refusal(
            client_ids={request.POST.get("client_id", "")},
            scopes=request.POST.get("scope", "").split(),
        )
        if refusal is not None:
            return _json_error(*refusal)
        client = Client.objects.filter(id=request.POST.get("client_id", "")).first()
        if client is not None and (
            client.type != Client.Type.PUBLIC
            or Client.GrantType.DEVICE_CODE not in client.get_grant_types()
        ):
            # allauth would hand out a code that no player could ever approve.
            return _json_error(
                "unauthorized_client",
                gettext("The device flow is for public apps (no client secret)."),
            )
        return super().post(request, *args, **kwargs)


def _device_request(device_code: str) -> dict[str, Any]:
    data: dict[str, Any] | None = cache.get(device_codes.cache_device_code_key(device_code))
    return data or {}


@never_cache
@xframe_options_deny
@player_login_required
def device_authorization(request: HttpRequest) -> HttpResponse:
    """The page where a player enters the code their terminal or bot shows, sees what the app
    asks for, and approves or denies it. POSTs need the CSRF token, as every form here."""
    code_form = "idp/oidc/device_authorization_code_form.html"
    if request.GET.get("code") is None:
        return render(request, code_form, {"form": ConfirmCodeForm()})
    form = ConfirmCodeForm(request.GET)
    if not form.is_valid():
        return render(request, code_form, {"form": form})
    client: Client = form.client
    if app_is_suspended(client_id=client.pk):
        return _error_page(request, APP_SUSPENDED)
    scopes = _device_request(form.device_code).get("scope") or []
    context = {
        "client": client,
        "user_code": form.cleaned_data["code"].strip().upper(),  # as the device shows it
        "scopes": _described(scopes),
    }
    if request.method == "POST":
        confirm = request.POST.get("action") == "confirm"
        user = request.user
        assert isinstance(user, User)  # login_required
        services.device_answer(
            user=user,
            client_id=client.pk,
            device_code=form.device_code,
            allow=confirm,
        )
        template = "confirmed" if confirm else "denied"
        return render(request, f"idp/oidc/device_authorization_{template}.html", context)
    return render(request, "idp/oidc/device_authorization_confirm_form.html", context)


def _grant_owner_id(request: HttpRequest) -> Any:
    """The player a token request would issue tokens for, if it names a grant we know (a
    spent refresh token included: its reuse revokes tokens of that player)."""
    grant_type = request.POST.get("grant_type")
    if grant_type == Client.GrantType.DEVICE_CODE:
        user = _device_request(request.POST.get("device_code", "")).get("user")
        return str_to_user_id(user) if user else None
    kinds = {
        Client.GrantType.REFRESH_TOKEN: (Token.Type.REFRESH_TOKEN, "refresh_token"),
        Client.GrantType.AUTHORIZATION_CODE: (Token.Type.AUTHORIZATION_CODE, "code"),
    }
    if grant_type not in kinds:
        return None
    token_type, parameter = kinds[grant_type]
    value = request.POST.get(parameter)
    if not value:
        return None
    token_hash = get_adapter().hash_token(value)
    owner = (
        Token.objects.filter(type=token_type, hash=token_hash)
        .values_list("user_id", flat=True)
        .first()
    )
    if owner is None and token_type == Token.Type.REFRESH_TOKEN:
        spent = SpentRefreshToken.objects.filter(hash=token_hash)
        owner = spent.values_list("user_id", flat=True).first()
    return owner


REFRESH_TOKEN_REUSED = gettext_lazy(
    "This refresh token was used before, so someone else may hold a copy: every token the app "
    "had from this grant is revoked. The player has to allow the app again."
)


class TokenView(idp_views.TokenView):
    """POST /identity/o/api/token. A refresh token is replaced at each use (rotation); the
    replaced one presented again revokes its whole grant (``SpentRefreshToken``)."""

    def post(self, request: HttpRequest) -> HttpResponse:
        basic_client_id, _ = extract_basic_auth(request.headers)
        refusal = _refusal(
            client_ids={basic_client_id or "", request.POST.get("client_id", "")}, scopes=[]
        )
        if refusal is not None:
            return _json_error(*refusal)
        with transaction.atomic():
            owner_id = _grant_owner_id(request)
            if owner_id is not None:
                # Serialises with app_revoke_for_player (accounts/oauth/services.py): either
                # the revocation sees the tokens committed here, or this sees them gone. And
                # two refreshes with one refresh token: the second sees the first's outcome.
                list(User.objects.select_for_update().filter(pk=owner_id).values_list("pk"))
            if request.POST.get("grant_type") != Client.GrantType.REFRESH_TOKEN:
                return super().post(request)
            token_hash = get_adapter().hash_token(request.POST.get("refresh_token") or "")
            live = Token.objects.filter(type=Token.Type.REFRESH_TOKEN, hash=token_hash).first()
            if live is None:
                spent = SpentRefreshToken.objects.filter(hash=token_hash).first()
                if spent is not None:
                    services.grant_revoke_on_reuse(spent=spent)
                    return _json_error("invalid_grant", str(REFRESH_TOKEN_REUSED))
            response = super().post(request)
            if live is not None and response.status_code == 200:
                services.refresh_token_spent(token=live)
            return response


class UserInfoView(idp_views.UserInfoView):
    """GET or POST /identity/o/api/userinfo: refused to a suspended app's token. The one
    endpoint outside the API that takes an app's token (accounts/app_tokens.py); allauth
    answers 403 ``insufficient_scope`` to a token without ``openid``."""

    checks_token_scopes = True
    oauth_scopes = {"GET": ("openid",), "POST": ("openid",)}

    def _respond(self, request: HttpRequest) -> HttpResponse:
        scheme, _, value = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            token = Token.objects.lookup(Token.Type.ACCESS_TOKEN, value.strip())
            client_id = token.client_id if token is not None else None
            if client_id and app_is_suspended(client_id=client_id):
                response = _json_error("invalid_token", gettext("This app is suspended."))
                response.status_code = 401
                response["WWW-Authenticate"] = 'Bearer error="invalid_token"'
                return response
        return super()._respond(request)
