"""The scopes of the API as designed and documented in the OpenAPI schema, and the check that
fails closed. What the server really does with every token on every URL pattern is
tests/accounts/test_scope_sweep.py."""

from __future__ import annotations

from typing import Any

import pytest
from allauth.idp.oidc.models import Token
from drf_spectacular.generators import SchemaGenerator
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory, force_authenticate

from accounts.scopes import ALL_SCOPES, API_SCOPES
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


class OpenToAnyone(ApiView):
    permission_classes = [AllowAny]  # replaces DRF's permissions, not the scope check

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
    assert call(OpenToAnyone, "get") == 403
    assert call(Declared, "get") == 200
    assert call(Declared, "post") == 403
