"""Where an app's access token may be used: nowhere, unless the endpoint says so.

Two checks, neither of which a view can switch off:

- ``AppTokenGateMiddleware``, for every request of the site (API, allauth's headless and
  browser endpoints, the developer and account pages, the web pages, the admin): a request
  that carries ``Authorization: Bearer`` reaches its view only if the view is an API view
  (``infrastructure.api.ApiView``) that names, for the request's method, the scopes that let a
  token in (``oauth_scopes``, accounts/scopes.py), or the OpenID Connect userinfo endpoint
  (which allauth checks for the ``openid`` scope). Anything else answers 403
  ``insufficient_scope`` before any view runs: a page that reads only the session cookie
  cannot be reached with a token, nor can an endpoint that forgot to declare.
- ``token_scope_check``, called by ``ApiView.check_permissions`` before the view's
  ``permission_classes``: the token must carry one of the scopes declared for the method. A
  view that sets ``permission_classes = [AllowAny]`` (the guest endpoint) replaces DRF's
  permission list, not this.

The player's own sessions (the browser's cookie, the first-party apps' ``X-Session-Token``)
are not app tokens and keep full access. Views that never read credentials and answer
everyone alike (``ignores_credentials``: the 404 of an unknown API path) stay open, so that a
token holder's typo is still a 404.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from allauth.idp.oidc.models import Token
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils.translation import gettext, gettext_lazy

from accounts.authentication import BEARER_REALM, bearer_token
from accounts.scopes import FEED_EVENT_SCOPES, Scopes, declared_scopes, is_granted

FIRST_PARTY_ONLY = gettext_lazy("Only the player's own sessions can do this, no app's token can.")


def insufficient_scope(needed: Scopes) -> tuple[str, str]:
    """The refusal's (detail, ``WWW-Authenticate`` challenge, RFC 6750 section 3.1)."""
    if needed:
        return (
            gettext("This needs the scope %(scopes)s, which the player did not grant.")
            % {"scopes": " or ".join(needed)},
            f'{BEARER_REALM}, error="insufficient_scope", scope="{" ".join(needed)}"',
        )
    return str(FIRST_PARTY_ONLY), f'{BEARER_REALM}, error="insufficient_scope"'


def token_scopes_of(view: Any, method: str) -> Scopes:
    """The scopes (any one) that let an app's token call ``method`` on the resolved ``view``
    (a view function, as the URL resolver gives it); ``()`` when no token may."""
    view_class = getattr(view, "view_class", None)
    if view_class is None:
        return ()
    from infrastructure.api import ApiView  # infrastructure.api imports this module

    if issubclass(view_class, ApiView) or getattr(view_class, "checks_token_scopes", False):
        return declared_scopes(view_class, method) or ()
    return ()


class AppTokenGateMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if bearer_token(request) is not None:
            refusal = self._refusal(request)
            if refusal is not None:
                return refusal
        return self.get_response(request)

    def _refusal(self, request: HttpRequest) -> HttpResponse | None:
        try:
            match = resolve(request.path_info)
        except Resolver404:
            return None  # a 404 whoever asks
        if getattr(match.func, "ignores_credentials", False):
            return None
        if token_scopes_of(match.func, request.method or ""):
            return None
        from infrastructure.problems import problem_json_response

        detail, challenge = insufficient_scope(())
        return problem_json_response(
            "insufficient_scope", detail, headers={"WWW-Authenticate": challenge}
        )


def token_scope_check(request: Any, view: Any) -> Scopes | None:
    """For a request authenticated by an app's token: None if the token carries a scope the
    view declares for the method, else the scopes it needed (``()``: no token may). Always
    None for the player's own sessions."""
    token = request.auth
    if not isinstance(token, Token):
        return None
    needed = declared_scopes(view, request.method or "") or ()
    if is_granted(needed, set(token.get_scopes())):
        return None
    return needed


def token_lacks(request: Any, needed: Scopes) -> bool:
    """Whether the request comes with an app's token that has none of ``needed``: for the
    parts of an answer that need a scope besides the view's. Never for the player's own
    sessions."""
    token = request.auth
    return isinstance(token, Token) and not is_granted(needed, set(token.get_scopes()))


def feed_events_withheld(request: Any) -> frozenset[str]:
    """The feed's events (``FEED_EVENT_SCOPES``) that the request's app token may not hear,
    lacking their scope; none for the player's own sessions."""
    return frozenset(
        event for event, needed in FEED_EVENT_SCOPES.items() if token_lacks(request, needed)
    )
