"""Sign-up, log-in and log-out through allauth's headless API, and how /api/v1/ sees them."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import Player, sign_up

pytestmark = pytest.mark.django_db


def test_signup_returns_a_session_token_that_authenticates_the_api() -> None:
    player = sign_up("ada@example.com")
    response = player.get("/api/v1/me/")
    assert response.status_code == 200
    assert response.json()["email"] == "ada@example.com"


def test_login_with_email_and_password_returns_a_new_token() -> None:
    sign_up("bea@example.com", password="a long enough password 1")
    client = APIClient()
    response = client.post(
        "/_allauth/app/v1/auth/login",
        {"email": "bea@example.com", "password": "a long enough password 1"},
        format="json",
    )
    assert response.status_code == 200
    token = response.json()["meta"]["session_token"]
    client.credentials(HTTP_X_SESSION_TOKEN=token)
    assert client.get("/api/v1/me/").status_code == 200


def test_wrong_password_is_refused() -> None:
    sign_up("cat@example.com")
    response = APIClient().post(
        "/_allauth/app/v1/auth/login",
        {"email": "cat@example.com", "password": "not the password"},
        format="json",
    )
    assert response.status_code == 400


def test_api_without_credentials_is_401_problem() -> None:
    response = APIClient().get("/api/v1/games/")
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "not_authenticated"


def test_invalid_token_is_401() -> None:
    client = APIClient()
    client.credentials(HTTP_X_SESSION_TOKEN="not-a-token")
    response = client.get("/api/v1/games/")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_logout_ends_the_token(player: Player) -> None:
    response = player.client.delete("/_allauth/app/v1/auth/session")
    assert response.status_code == 401  # allauth answers 401: no longer authenticated
    assert player.get("/api/v1/me/").status_code == 401


def test_browser_session_authenticates_the_api() -> None:
    sign_up("dan@example.com", password="a long enough password 2")
    client = APIClient(enforce_csrf_checks=True)
    config = client.get("/_allauth/browser/v1/config")
    assert config.status_code == 200
    csrf = client.cookies["csrftoken"].value if "csrftoken" in client.cookies else None
    if csrf is None:
        client.get("/accounts/login/")
        csrf = client.cookies["csrftoken"].value
    login = client.post(
        "/_allauth/browser/v1/auth/login",
        {"email": "dan@example.com", "password": "a long enough password 2"},
        format="json",
        headers={"X-CSRFToken": csrf},
    )
    assert login.status_code == 200, login.content
    assert client.get("/api/v1/me/").json()["email"] == "dan@example.com"
    # A write from the browser needs the CSRF token...
    refused = client.post("/api/v1/games/", {}, format="json")
    assert refused.status_code == 403
    assert refused.json()["code"] == "permission_denied"
    # ...and succeeds with it.
    csrf = client.cookies["csrftoken"].value
    created = client.post("/api/v1/games/", {}, format="json", headers={"X-CSRFToken": csrf})
    assert created.status_code == 201


def test_account_pages_work_in_a_browser(client: object) -> None:
    from django.test import Client

    assert isinstance(client, Client)
    # allauth's stock sign-up leads to the client's own pages; its log-in stays (the admin's).
    assert client.get("/accounts/signup/")["Location"] == "/account/"
    assert client.get("/account/password/reset/").status_code == 200
    assert client.get("/accounts/login/").status_code == 200
