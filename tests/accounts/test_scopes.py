"""Every operation of /api/v1/ declares the scopes that let an app's token in, the OpenAPI
schema documents them with the OAuth 2 security scheme, and the check fails closed."""

from __future__ import annotations

import re
from typing import Any

import pytest
from allauth.idp.oidc.models import Token
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from drf_spectacular.generators import SchemaGenerator
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory, force_authenticate

from accounts.permissions import TokenHasDeclaredScope
from accounts.scopes import ALL_SCOPES, API_SCOPES, declared_scopes
from infrastructure.api import ApiView
from tests.accounts.conftest import App, authorize, bearer
from tests.api.conftest import Player

HTTP_METHODS = {"get", "put", "post", "delete", "patch"}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    result: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return result


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in HTTP_METHODS
    ]


def view_of(path: str) -> Any:
    concrete = re.sub(
        r"\{[^}]+\}", "00000000-0000-4000-8000-000000000000", path.replace("{version}", "1")
    )
    return resolve(concrete).func


def test_every_operation_declares_its_scopes_and_the_schema_says_them(
    schema: dict[str, Any],
) -> None:
    undeclared, mismatched = [], []
    api = [op for op in operations(schema) if op[1].startswith("/api/v1/")]
    assert len(api) >= 15  # the whole API, not an empty schema
    for method, path, operation in api:
        needed = declared_scopes(view_of(path).view_class, method)
        if needed is None:
            undeclared.append(f"{method} {path}")
            continue
        documented = sorted(
            scope
            for requirement in operation.get("security", [])
            for scope in requirement.get("oauth2", [])
        )
        assert set(needed) <= set(API_SCOPES), f"{method} {path}: unknown scope"
        if documented != sorted(needed):
            mismatched.append(f"{method} {path}: {documented} != {sorted(needed)}")
    assert not undeclared, f"operations that declare no scope: {undeclared}"
    assert not mismatched


def api_views(
    patterns: list[URLPattern | URLResolver] | None = None, prefix: str = ""
) -> list[tuple[str, Any]]:
    """Every view served under /api/v1/, from the URL conf (the schema leaves some out, such
    as the event streams): its route and its class."""
    found: list[tuple[str, Any]] = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            found += api_views(entry.url_patterns, route)
        elif route.lstrip("^").startswith("api/v1/"):
            view_class = getattr(entry.callback, "view_class", None)
            assert view_class is not None, f"{route}: not a class-based API view"
            found.append((route, view_class))
    return found


def test_every_view_of_the_url_conf_declares_its_scopes_even_outside_the_schema() -> None:
    undeclared = []
    views = api_views()
    assert len(views) >= 15
    for route, view_class in views:
        for method in view_class.http_method_names:
            if method in ("options", "head", "trace") or not hasattr(view_class, method):
                continue
            if declared_scopes(view_class, method) is None:
                undeclared.append(f"{method.upper()} {route}")
    assert not undeclared, f"views that declare no scope: {undeclared}"


def test_the_streams_open_to_the_read_scope() -> None:
    """Not in the schema (event streams): docs/api.md says what they need."""
    streams = {route: view for route, view in api_views() if "stream/" in route}
    assert len(streams) == 2, streams
    for view_class in streams.values():
        assert declared_scopes(view_class, "GET") == ("games:read",)


def test_the_scopes_of_the_api_as_designed(schema: dict[str, Any]) -> None:
    needed = {
        f"{method} {path}": sorted(
            s for r in operation.get("security", []) for s in r.get("oauth2", [])
        )
        for method, path, operation in operations(schema)
    }
    assert needed["POST /api/v1/games/"] == ["games:play"]
    assert needed["POST /api/v1/games/{game_id}/commands/"] == ["games:play"]
    assert needed["GET /api/v1/games/{game_id}/hints/"] == ["games:play"]
    assert needed["GET /api/v1/games/{game_id}/"] == ["games:play", "games:read"]
    assert needed["GET /api/v1/games/{game_id}/events/"] == ["games:read"]
    assert needed["GET /api/v1/stats/"] == ["stats:read"]
    assert needed["GET /api/v1/me/"] == ["account:read"]
    for first_party in ("DELETE /api/v1/me/", "GET /api/v1/me/export/", "GET /api/v1/me/apps/"):
        assert needed[first_party] == [], first_party


def test_the_schema_documents_the_oauth2_scheme(schema: dict[str, Any]) -> None:
    scheme = schema["components"]["securitySchemes"]["oauth2"]
    flow = scheme["flows"]["authorizationCode"]
    assert flow["authorizationUrl"] == "/identity/o/authorize"
    assert flow["tokenUrl"] == flow["refreshUrl"] == "/identity/o/api/token"
    assert flow["scopes"] == ALL_SCOPES
    assert "device" in scheme["description"]
    assert schema["components"]["securitySchemes"]["sessionToken"]["name"] == "X-Session-Token"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("scope", "allowed", "refused"),
    [
        ("games:read", ["/api/v1/games/", "/api/v1/daily/"], ["/api/v1/stats/", "/api/v1/me/"]),
        ("stats:read", ["/api/v1/stats/"], ["/api/v1/games/", "/api/v1/me/"]),
        ("account:read", ["/api/v1/me/"], ["/api/v1/games/", "/api/v1/me/export/"]),
        ("games:play", [], ["/api/v1/games/", "/api/v1/daily/", "/api/v1/stats/"]),
    ],
)
def test_each_scope_opens_its_part_of_the_api(
    player: Player, app: App, scope: str, allowed: list[str], refused: list[str]
) -> None:
    api = bearer(authorize(player, app, scope).access_token)
    for path in allowed:
        assert api.get(path).status_code == 200, path
    for path in refused:
        assert api.get(path).status_code == 403, path


class Undeclared(ApiView):
    def get(self, request: Any) -> Response:
        return Response({"secret": "data"})


class Declared(ApiView):
    oauth_scopes = {"GET": ("games:read",)}

    def get(self, request: Any) -> Response:
        return Response({"ok": True})

    def post(self, request: Any) -> Response:
        return Response({"ok": True})


@pytest.mark.django_db
def test_a_view_or_method_that_declares_nothing_is_closed_to_tokens(
    player: Player, app: App
) -> None:
    authorize(player, app, " ".join(API_SCOPES))
    token = Token.objects.get(type=Token.Type.ACCESS_TOKEN)
    factory = APIRequestFactory()

    def call(view: type[ApiView], method: str) -> int:
        request = getattr(factory, method)("/x/")
        force_authenticate(request, user=token.user, token=token)
        return int(view.as_view()(request).status_code)

    assert call(Undeclared, "get") == 403
    assert call(Declared, "get") == 200
    assert call(Declared, "post") == 403
    assert TokenHasDeclaredScope in [type(p) for p in Declared().get_permissions()]
