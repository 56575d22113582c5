"""The export of everything stored about a player names their apps, without any secret."""

from __future__ import annotations

import pytest
from allauth.idp.oidc.models import Client, Token
from django.contrib.auth.models import User

from accounts.oauth import services
from tests.accounts.conftest import App, authorize, register
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db


def test_the_export_lists_allowed_and_registered_apps(player: Player, app: App) -> None:
    authorize(player, app, "games:play")
    mine, secret = services.app_register(
        owner=User.objects.get(email=player.email),
        name="My Own",
        redirect_uris=["https://mine.example/cb"],
        public=False,
    )
    response = player.get("/api/v1/me/export/")
    account = response.json()["account"]
    assert [(a["client_id"], a["scopes"]) for a in account["authorised_apps"]] == [
        (app.client_id, ["games:play"])
    ]
    assert account["registered_apps"] == [
        {
            "client_id": mine.pk,
            "name": "My Own",
            "type": "confidential",
            "redirect_uris": ["https://mine.example/cb"],
            "created_at": mine.created_at.isoformat(),
        }
    ]
    assert secret is not None
    assert secret not in response.content.decode()
    assert mine.secret not in response.content.decode()


def test_closing_the_account_removes_its_apps_and_grants(player: Player) -> None:
    owner = User.objects.get(email=player.email)
    registered = register(owner)
    allowed = register(name="Allowed")
    authorize(player, allowed, "games:play")
    assert player.client.delete("/api/v1/me/").status_code == 200
    assert not Client.objects.filter(pk=registered.client_id).exists()
    assert Client.objects.filter(pk=allowed.client_id).exists()
    assert not Token.objects.filter(client=allowed.client).exists()


def test_the_export_lists_personal_tokens_but_never_a_token(player: Player) -> None:
    made = player.client.post(
        "/api/v1/me/tokens/", {"name": "cron", "scopes": ["stats:read"]}, format="json"
    ).json()
    response = player.get("/api/v1/me/export/")
    assert response.json()["account"]["personal_tokens"] == [
        {
            "name": "cron",
            "scopes": ["stats:read"],
            "created_at": made["created_at"],
            "expires_at": None,
        }
    ]
    assert made["token"] not in response.content.decode()
