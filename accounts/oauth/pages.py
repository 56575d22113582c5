"""The site's pages for third-party apps: the apps a player has authorised (and revokes), and
the apps a developer has registered. Plain server-rendered forms: parse, call one service,
render. Every page needs a signed-in player; every POST needs the CSRF token."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from allauth.idp.oidc.models import Client
from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from accounts.guests import is_guest
from accounts.models import AppKind
from accounts.oauth import selectors, services
from accounts.oauth.forms import AppForm, NewAppForm
from accounts.oauth.login import player_login_required
from accounts.scopes import API_SCOPES

View = Callable[..., HttpResponse]


def player_page(view: View) -> View:
    """Signed-in players only (others go to the log-in form and come back); never cached:
    the pages show client ids and, once, secrets."""
    return never_cache(player_login_required(view))


def developer_page(view: View) -> View:
    """A player page that a guest cannot use: a guest registers no apps (it signs up first;
    an app outliving the guest's purge would have no owner to answer for it)."""

    @wraps(view)
    def page(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if is_guest(request.user):
            message = services.GUESTS_REGISTER_NO_APPS
            return render(request, "idp/oidc/error.html", {"message": message}, status=403)
        return view(request, *args, **kwargs)

    return player_page(page)


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)
    return user


# --- A player's authorised apps ---


@player_page
def authorised_apps(request: HttpRequest) -> HttpResponse:
    return _authorised_page(request)


def _authorised_page(
    request: HttpRequest, *, new_token: str | None = None, error: str = "", status: int = 200
) -> HttpResponse:
    """The apps the player allowed, and their personal access tokens (``new_token``: the one
    just made, shown this once)."""
    user = _user(request)
    context = {
        "apps": selectors.authorised_apps(user=user),
        "tokens": selectors.personal_tokens(user=user),
        "token_scopes": [(scope, gettext(label)) for scope, label in API_SCOPES.items()],
        "token_days": services.PERSONAL_TOKEN_DAYS,
        "new_token": new_token,
        "token_error": error,
        "page": "apps",
    }
    return render(request, "apps/authorised.html", context, status=status)


@require_POST
@player_page
def personal_token_new(request: HttpRequest) -> HttpResponse:
    days = request.POST.get("days", "")
    try:
        _, value = services.personal_token_create(
            user=_user(request),
            name=request.POST.get("name", ""),
            scopes=request.POST.getlist("scopes"),
            days=int(days) if days.isdecimal() else None,
        )
    except PermissionError as error:  # a guest
        return _authorised_page(request, error=str(error), status=403)
    except services.PersonalTokenError as error:
        return _authorised_page(request, error=str(error), status=400)
    return _authorised_page(request, new_token=value, status=201)


@require_POST
@player_page
def personal_token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    if services.personal_token_revoke(user=_user(request), token_id=token_id):
        messages.success(request, gettext("Revoked: the token no longer works."))
    else:
        messages.info(request, gettext("You have no such token."))
    return HttpResponseRedirect(reverse("account-apps"))


@require_POST
@player_page
def revoke_app(request: HttpRequest, client_id: str) -> HttpResponse:
    revoked = services.app_revoke_for_player(user=_user(request), client_id=client_id)
    if revoked:
        messages.success(request, gettext("Revoked: the app can no longer act for you."))
    else:
        messages.info(request, gettext("That app holds no access of yours."))
    return HttpResponseRedirect(reverse("account-apps"))


# --- A developer's apps ---


@developer_page
def developer_apps(request: HttpRequest) -> HttpResponse:
    apps = selectors.developer_apps(owner=_user(request))
    return render(request, "apps/developer_list.html", {"apps": apps, "page": "apps"})


@developer_page
def developer_app_new(request: HttpRequest) -> HttpResponse:
    form = NewAppForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            app, secret = services.app_register(
                owner=_user(request),
                name=form.cleaned_data["name"],
                redirect_uris=form.cleaned_data["redirect_uris"],
                public=form.is_public(),
                kind=form.cleaned_data["app_kind"],
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            return _detail(request, app, secret=secret, status=201, created=True)
    return render(request, "apps/developer_new.html", {"form": form, "page": "apps"})


def _detail(
    request: HttpRequest,
    app: Client,
    *,
    form: AppForm | None = None,
    secret: str | None = None,
    status: int = 200,
    created: bool = False,
) -> HttpResponse:
    public = app.type == Client.Type.PUBLIC
    if form is None:
        form = AppForm(
            initial={"name": app.name, "redirect_uris": "\n".join(app.get_redirect_uris())},
            public=public,
        )
    context = {
        "app": app,
        "public": public,
        "form": form,
        "secret": secret,
        "created": created,
        "suspended": hasattr(app, "suspension"),
        "bot": selectors.app_kind(app=app) == AppKind.BOT,
        "grant_types": app.get_grant_types(),
        "page": "apps",
    }
    return render(request, "apps/developer_detail.html", context, status=status)


@developer_page
def developer_app(request: HttpRequest, client_id: str) -> HttpResponse:
    app = selectors.developer_app(owner=_user(request), client_id=client_id)
    if request.method != "POST":
        return _detail(request, app)
    form = AppForm(request.POST, public=app.type == Client.Type.PUBLIC)
    if not form.is_valid():
        return _detail(request, app, form=form, status=400)
    services.app_update(
        app=app, name=form.cleaned_data["name"], redirect_uris=form.cleaned_data["redirect_uris"]
    )
    messages.success(request, gettext("Saved."))
    return HttpResponseRedirect(reverse("developer-app", args=[app.pk]))


@require_POST
@developer_page
def developer_app_secret(request: HttpRequest, client_id: str) -> HttpResponse:
    app = selectors.developer_app(owner=_user(request), client_id=client_id)
    try:
        secret = services.app_rotate_secret(app=app)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return HttpResponseRedirect(reverse("developer-app", args=[app.pk]))
    return _detail(request, app, secret=secret)


@require_POST
@developer_page
def developer_app_delete(request: HttpRequest, client_id: str) -> HttpResponse:
    app = selectors.developer_app(owner=_user(request), client_id=client_id)
    name = app.name
    services.app_delete(app=app)
    deleted = gettext("%(name)s is deleted, with every access it had.")
    messages.success(request, deleted % {"name": name})
    return HttpResponseRedirect(reverse("developer-apps"))
