"""Staff suspend an app from the admin: its tokens are refused and it gets no new ones, until
the suspension is lifted."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import User
from django.test import Client as BrowserClient
from rest_framework.test import APIClient

from accounts.models import AppSuspension
from tests.accounts.conftest import (
    AUTHORIZE_URL,
    DEVICE_CODE_URL,
    App,
    authorize,
    authorize_params,
    bearer,
    browser_for,
    pkce_pair,
    refresh,
    tokens_from,
)
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> BrowserClient:
    admin = User.objects.create_superuser("staff", "staff@example.com", "a long password 42")
    browser = BrowserClient()
    browser.force_login(admin)
    return browser


def admin_action(staff: BrowserClient, action: str, app: App) -> Any:
    """The action, confirmed with a reason on its intermediate page (tests/admin/
    test_audit_log.py checks the page and the audit log)."""
    return staff.post(
        "/admin/allauth_idp_oidc/client/",
        {
            "action": action,
            "_selected_action": [app.client_id],
            "confirm_with_reason": "yes",
            "reason": "abuse reported",
        },
    )


def creates_a_game(token: str) -> int:
    return int(bearer(token).post("/api/v1/games/", {}, format="json").status_code)


def test_a_suspended_apps_tokens_are_refused_until_it_is_lifted(
    player: Player, app: App, staff: BrowserClient
) -> None:
    tokens = authorize(player, app, "games:play")
    assert creates_a_game(tokens.access_token) == 201

    assert admin_action(staff, "suspend", app).status_code == 302
    suspension = AppSuspension.objects.get(client=app.client)
    assert suspension.suspended_by is not None
    response = bearer(tokens.access_token).post("/api/v1/games/", {}, format="json")
    assert response.status_code == 401
    assert response.json()["detail"] == "The app of this access token is suspended."
    refused = refresh(app, tokens.refresh_token)
    assert (refused.status_code, refused.json()["error"]) == (401, "invalid_client")
    # The player still sees it, marked, and can revoke it.
    assert player.get("/api/v1/me/apps/").json()[0]["suspended"] is True

    assert admin_action(staff, "lift_suspension", app).status_code == 302
    assert creates_a_game(tokens.access_token) == 201
    assert creates_a_game(tokens_from(refresh(app, tokens.refresh_token)).access_token) == 201


def test_a_suspended_app_gets_no_new_grant(player: Player, app: App) -> None:
    AppSuspension.objects.create(client=app.client, reason="spam")
    _, challenge = pkce_pair()
    page = browser_for(player).get(AUTHORIZE_URL, authorize_params(app, "games:play", challenge))
    assert page.status_code == 400
    assert "suspended" in page.content.decode()
    device = APIClient().post(
        DEVICE_CODE_URL,
        urlencode({"client_id": app.client_id, "scope": "games:play"}),
        content_type="application/x-www-form-urlencoded",
    )
    assert (device.status_code, device.json()["error"]) == (401, "invalid_client")


def test_a_suspension_between_the_consent_page_and_the_answer_counts(
    player: Player, app: App
) -> None:
    _, challenge = pkce_pair()
    browser = browser_for(player)
    page = browser.get(AUTHORIZE_URL, authorize_params(app, "games:play", challenge))
    AppSuspension.objects.create(client=app.client)
    answer = browser.post(
        AUTHORIZE_URL,
        {
            "request": page.context["form"]["request"].value(),
            "scopes": ["games:play"],
            "action": "grant",
            "csrfmiddlewaretoken": str(page.context["csrf_token"]),
        },
    )
    assert answer.status_code == 400
    assert "suspended" in answer.content.decode()


def test_userinfo_refuses_a_suspended_apps_token(player: Player, app: App, settings: Any) -> None:
    settings.IDP_OIDC_PRIVATE_KEY = settings.DEV_OIDC_PRIVATE_KEY
    tokens = authorize(player, app, "openid")
    assert bearer(tokens.access_token).get("/identity/o/api/userinfo").status_code == 200
    AppSuspension.objects.create(client=app.client)
    assert bearer(tokens.access_token).get("/identity/o/api/userinfo").status_code == 401


def test_the_admin_shows_and_edits_suspensions(app: App, staff: BrowserClient) -> None:
    listing = staff.get("/admin/allauth_idp_oidc/client/")
    assert listing.status_code == 200
    assert "Suspend the selected apps" in listing.content.decode()
    change = staff.get(f"/admin/allauth_idp_oidc/client/{app.client_id}/change/")
    assert change.status_code == 200
    assert "the app&#x27;s tokens are refused" in change.content.decode()
    AppSuspension.objects.create(client=app.client)
    suspended = staff.get("/admin/allauth_idp_oidc/client/?suspension__isempty=0")
    assert app.client_id in suspended.content.decode()
