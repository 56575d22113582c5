"""The browser's signed-in user comes from the snapshot cached beside its session
(accounts/session_middleware.py, accounts/sessions.py), the account's chosen language with it:
no ``auth_user`` or ``accounts_profile`` read on a signed-in request once cached, and nothing
that must end or change a sign-in is missed (on the embedded cache and on Redis)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts import sessions
from accounts.services import language_set
from tests.accounts.test_session_tokens import (
    MEMORY,
    session_cache,  # noqa: F401  (the fixture)
)
from tests.api.conftest import sign_up

pytestmark = pytest.mark.django_db

MISSING_GAME = f"/api/v1/games/{uuid.uuid4()}/"


def browser(user: User) -> Client:
    signed_in = Client(HTTP_ACCEPT_LANGUAGE="en")
    signed_in.force_login(user)
    return signed_in


def account(email: str) -> User:
    return User.objects.get(email=sign_up(email).email)


def account_queries(queries: CaptureQueriesContext) -> list[str]:
    return [
        query["sql"]
        for query in queries.captured_queries
        if "auth_user" in query["sql"] or "accounts_profile" in query["sql"]
    ]


def test_a_signed_in_browser_request_reads_no_user_or_profile_row_once_cached(
    session_cache: str,  # noqa: F811
) -> None:
    user = account(f"cookie-warm-{session_cache}@example.com")
    language_set(user=user, language="fr")
    laptop = browser(user)
    assert laptop.get(MISSING_GAME)["Content-Language"] == "fr"  # read, then cached
    with CaptureQueriesContext(connection) as queries:
        answer = laptop.get(MISSING_GAME)
    assert answer.status_code == 404
    assert answer["Content-Language"] == "fr"  # the account's language, from the snapshot
    assert account_queries(queries) == []


def test_a_language_chosen_on_one_device_shows_at_once_on_the_other(
    session_cache: str,  # noqa: F811
) -> None:
    user = account(f"cookie-language-{session_cache}@example.com")
    phone, laptop = browser(user), browser(user)
    assert laptop.get(MISSING_GAME)["Content-Language"] == "en"
    assert laptop.get(MISSING_GAME)["Content-Language"] == "en"  # from the snapshot
    chosen = phone.patch("/api/v1/me/", {"language": "fr"}, content_type="application/json")
    assert chosen.status_code == 200
    assert laptop.get(MISSING_GAME)["Content-Language"] == "fr"


def _deactivate(user: User) -> None:
    user.is_active = False


def _new_password(user: User) -> None:
    user.set_password("an entirely new password 77")


@pytest.mark.parametrize("change", [_deactivate, _new_password])
def test_a_deactivation_or_a_new_password_signs_the_browsers_out_at_once(
    session_cache: str,  # noqa: F811
    change: Callable[[User], None],
) -> None:
    user = account(f"cookie-{change.__name__}-{session_cache}@example.com")
    laptop = browser(user)
    assert laptop.get("/api/v1/me/").status_code == 200
    assert laptop.get("/api/v1/me/").status_code == 200  # from the snapshot
    change(user)
    user.save()
    assert laptop.get("/api/v1/me/").status_code in (401, 403)


def test_a_signed_out_visitor_with_a_session_is_anonymous_without_a_user_read(
    session_cache: str,  # noqa: F811
) -> None:
    visitor = Client()
    session = visitor.session
    session["seen"] = True  # a session nobody signed in to (a CSRF or language cookie's kind)
    session.save()
    visitor.cookies["sessionid"] = session.session_key
    with CaptureQueriesContext(connection) as queries:
        assert visitor.get("/api/v1/me/").status_code in (401, 403)
    assert account_queries(queries) == []


def test_without_redis_a_change_no_invalidation_reached_shows_within_seconds(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The embedded default's cache is this process's memory: a deactivation made by another
    # process (a management command) calls forget_user on that process's memory, not on
    # this one's. The snapshot lives seconds there, so the change is seen soon all the same.
    settings.CACHES = MEMORY
    monkeypatch.setattr(sessions, "LOCAL_USER_SNAPSHOT_TTL", 1)
    user = account("cookie-elsewhere@example.com")
    laptop = browser(user)
    assert laptop.get("/api/v1/me/").status_code == 200
    User.objects.filter(pk=user.pk).update(is_active=False)  # no save(): no forget_user here
    assert laptop.get("/api/v1/me/").status_code == 200  # the snapshot, for now
    time.sleep(1.2)
    assert laptop.get("/api/v1/me/").status_code in (401, 403)
