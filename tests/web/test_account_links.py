"""allauth's mails lead to the web client's own pages, and its stock pages a player could reach
redirect there (no second, unstyled sign-in UI)."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest
from django.core import mail
from django.test import Client

pytestmark = pytest.mark.django_db
AUTH = "/_allauth/browser/v1"
PASSWORD = "a long password 42"


def browser() -> Client:
    client = Client(enforce_csrf_checks=True)
    client.get("/")
    return client


def post(client: Client, path: str, body: dict[str, str]) -> object:
    return client.post(
        path,
        body,
        content_type="application/json",
        headers={"X-CSRFToken": client.cookies["csrftoken"].value},
    )


def link_in(message: mail.EmailMessage) -> str:
    found = re.search(r"https?://[^\s]+", message.body)
    assert found, message.body
    return found.group(0)


def test_the_reset_mail_links_to_the_clients_page_which_sets_the_password() -> None:
    client = browser()
    assert post(client, f"{AUTH}/auth/signup", {"email": "r@example.com", "password": PASSWORD})
    mail.outbox.clear()
    visitor = browser()
    response = post(visitor, f"{AUTH}/auth/password/request", {"email": "r@example.com"})
    assert response.status_code == 200  # type: ignore[attr-defined]
    assert len(mail.outbox) == 1
    link = link_in(mail.outbox[0])
    path = re.sub(r"^https?://[^/]+", "", link)
    match = re.fullmatch(r"/account/password/reset/([^/]+)/", path)
    assert match, link
    assert visitor.get(path).status_code == 200
    reset = post(
        visitor,
        f"{AUTH}/auth/password/reset",
        {"key": unquote(match.group(1)), "password": "new " + PASSWORD},
    )
    assert reset.status_code in (200, 401)  # type: ignore[attr-defined]
    login = post(
        browser(), f"{AUTH}/auth/login", {"email": "r@example.com", "password": "new " + PASSWORD}
    )
    assert login.status_code == 200  # type: ignore[attr-defined]


def test_the_confirmation_mail_links_to_the_clients_page() -> None:
    client = browser()
    post(client, f"{AUTH}/auth/signup", {"email": "c@example.com", "password": PASSWORD})
    confirmation = [m for m in mail.outbox if "c@example.com" in m.to]
    assert confirmation
    path = re.sub(r"^https?://[^/]+", "", link_in(confirmation[-1]))
    match = re.fullmatch(r"/account/verify-email/([^/]+)/", path)
    assert match, path
    assert client.get(path).status_code == 200
    verified = post(client, f"{AUTH}/auth/email/verify", {"key": unquote(match.group(1))})
    assert verified.status_code == 200  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("stock", "client_page"),
    [
        ("/accounts/signup/", "/account/"),
        ("/accounts/password/reset/", "/account/password/reset/"),
        ("/accounts/email/", "/account/"),
        ("/accounts/password/change/", "/account/"),
        ("/accounts/confirm-email/abc:def/", "/account/verify-email/abc%3Adef/"),
    ],
)
def test_stock_pages_lead_to_the_clients_own(stock: str, client_page: str) -> None:
    response = Client().get(stock)
    assert response.status_code == 302
    assert response["Location"] == client_page


def test_the_account_page_is_for_signed_in_players_and_guests() -> None:
    assert Client().get("/account/")["Location"] == "/?next=%2Faccount%2F"
    client = browser()
    post(client, "/api/v1/guest/", {})
    page = client.get("/account/").content.decode()
    assert 'data-guest="true"' in page
    assert "Sign up and keep my games" in page
