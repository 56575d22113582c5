"""The session cookie across a log-in: a request in flight with the old key (a stream
reconnecting, a page's background read) must not delete the cookie the log-in has just set,
while a log-out still deletes it."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

pytestmark = pytest.mark.django_db

COOKIE = settings.SESSION_COOKIE_NAME


def signed_in_client(email: str) -> tuple[Client, User]:
    user = User.objects.create_user(username=email, email=email, password="a long pass phrase 1")
    client = Client()
    client.force_login(user)
    return client, user


def test_a_request_whose_session_was_replaced_in_flight_leaves_the_cookie_alone() -> None:
    client, _user = signed_in_client("inflight@example.com")
    old_key = client.cookies[COOKIE].value
    # What a log-in's cycle_key does to the key the stale request still carries.
    import_module(settings.SESSION_ENGINE).SessionStore(old_key).delete()

    stale = Client()
    stale.cookies[COOKIE] = old_key
    response = stale.get("/account/")

    assert response.status_code == 302  # no session any more: signed out for this request
    assert COOKIE not in response.cookies  # but no Set-Cookie that would delete the new one
    assert "Cookie" in response.headers.get("Vary", "")


def test_logging_out_still_deletes_the_session_cookie() -> None:
    client, _user = signed_in_client("leaving@example.com")
    response = client.delete("/_allauth/browser/v1/auth/session")

    assert response.status_code == 401  # allauth: signed out
    assert response.cookies[COOKIE].value == ""
    assert response.cookies[COOKIE]["max-age"] == 0
