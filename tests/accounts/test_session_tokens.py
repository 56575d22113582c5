"""Session tokens read in one cache round trip with the user cached beside the session, and
everything that must end or change a sign-in doing so at once (accounts/sessions.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import sessions
from players.services import account_delete
from tests.api.conftest import Player, sign_up
from tests.conftest import require_service

pytestmark = pytest.mark.django_db

MEMORY = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture(params=["memory", "redis"])
def session_cache(request: pytest.FixtureRequest, settings: Any) -> str:
    """Every test runs on both caches: the embedded default and Redis."""
    if request.param == "memory":
        settings.CACHES = MEMORY
    else:
        require_service("Redis (REDIS_URL)", bool(settings.REDIS_URL))
    return str(request.param)


@contextlib.contextmanager
def redis_commands() -> Iterator[list[bytes]]:
    """The commands sent to Redis meanwhile, one entry per round trip (a pipeline is one)."""
    import redis.connection

    sent: list[bytes] = []
    original = redis.connection.AbstractConnection.send_packed_command

    def send(self: Any, command: Any, check_health: bool = True) -> None:
        parts = command if isinstance(command, list) else [command]
        sent.append(b"".join(bytes(part) for part in parts))
        original(self, command, check_health)

    redis.connection.AbstractConnection.send_packed_command = send  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        redis.connection.AbstractConnection.send_packed_command = original  # type: ignore[method-assign]


def user_of(player: Player) -> User:
    return User.objects.get(email=player.email)


def me(player: Player) -> Any:
    return player.get("/api/v1/me/")


def authentication_queries(queries: CaptureQueriesContext) -> list[str]:
    """The SQL of authenticating: the session and the user. (``GET /me/`` then reads the
    player's profile, its own data, which is not authentication.)"""
    return [
        query["sql"] for query in queries.captured_queries if "accounts_profile" not in query["sql"]
    ]


def test_a_token_request_reads_no_user_row_once_the_session_is_cached(
    session_cache: str,
) -> None:
    player = sign_up(f"warm-{session_cache}@example.com")
    assert me(player).status_code == 200  # the first request caches the user
    with CaptureQueriesContext(connection) as queries:
        response = me(player)
    assert response.status_code == 200
    assert response.json()["email"] == player.email
    assert authentication_queries(queries) == []


@pytest.mark.parametrize("session_cache", ["redis"], indirect=True)  # counts Redis round trips
def test_a_token_is_looked_up_with_one_cache_read(session_cache: str) -> None:
    player = sign_up("one-read@example.com")
    assert me(player).status_code == 200
    with redis_commands() as sent:
        assert me(player).status_code == 200
    session_reads = [command for command in sent if player.token.encode() in command]
    assert len(session_reads) == 1
    assert session_reads[0].split(b"\r\n")[2] == b"GET"  # not EXISTS and then GET


def test_deactivating_a_user_ends_their_tokens_at_once(session_cache: str) -> None:
    player = sign_up(f"deactivated-{session_cache}@example.com")
    assert me(player).status_code == 200
    user = user_of(player)
    user.is_active = False
    user.save()
    assert me(player).status_code == 401


def test_deleting_a_user_ends_their_tokens_at_once(session_cache: str) -> None:
    player = sign_up(f"deleted-{session_cache}@example.com")
    assert me(player).status_code == 200
    user_of(player).delete()
    assert me(player).status_code == 401


def test_closing_the_account_ends_every_token_of_it(session_cache: str) -> None:
    player = sign_up(f"closed-{session_cache}@example.com")
    other = Player(player.client.__class__(), player.email, "")
    login = other.client.post(
        "/_allauth/app/v1/auth/login",
        {"email": player.email, "password": "correct horse battery staple"},
        format="json",
    )
    other.token = login.json()["meta"]["session_token"]
    other.client.credentials(HTTP_X_SESSION_TOKEN=other.token)
    assert me(player).status_code == 200
    assert me(other).status_code == 200
    account_delete(user=user_of(player))
    assert me(player).status_code == 401
    assert me(other).status_code == 401


def test_a_new_password_ends_the_tokens_signed_in_with_the_old_one(session_cache: str) -> None:
    player = sign_up(f"password-{session_cache}@example.com")
    assert me(player).status_code == 200
    user = user_of(player)
    user.set_password("an entirely new password 77")
    user.save()
    assert me(player).status_code == 401


def test_a_new_email_address_shows_at_once(session_cache: str) -> None:
    player = sign_up(f"old-{session_cache}@example.com")
    assert me(player).status_code == 200
    user = user_of(player)
    user.email = f"new-{session_cache}@example.com"
    user.save()
    assert me(player).json()["email"] == f"new-{session_cache}@example.com"


def test_logging_out_ends_a_cached_token(session_cache: str) -> None:
    player = sign_up(f"logout-{session_cache}@example.com")
    assert me(player).status_code == 200
    assert me(player).status_code == 200  # served from the snapshot
    assert player.client.delete("/_allauth/app/v1/auth/session").status_code == 401
    assert me(player).status_code == 401


def _during_the_database_read(
    monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[User], None]
) -> list[int]:
    """Run ``meanwhile`` between a snapshot writer's database read of the user and its write
    of the snapshot: the window in which a concurrent change races it."""
    original = sessions.get_session_user
    calls: list[int] = []

    def racing(session: Any) -> Any:
        user = original(session)
        if user is not None and not calls:
            calls.append(user.pk)
            meanwhile(user)
        return user

    monkeypatch.setattr(sessions, "get_session_user", racing)
    return calls


def test_a_deactivation_racing_the_first_read_does_not_leave_a_snapshot(
    session_cache: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = sign_up(f"race-{session_cache}@example.com")

    def deactivate(user: User) -> None:
        # As another process would: the row changes and the change is announced, after this
        # request read the row and before it caches what it read.
        User.objects.filter(pk=user.pk).update(is_active=False)
        sessions.forget_user(user.pk)

    calls = _during_the_database_read(monkeypatch, deactivate)
    assert me(player).status_code == 200  # it read the user while still active
    assert calls
    assert me(player).status_code == 401  # and did not cache it


def test_a_log_out_racing_the_first_read_is_not_undone(
    session_cache: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = sign_up(f"race-out-{session_cache}@example.com")

    def log_out(user: User) -> None:
        sessions.SessionStore(session_key=player.token).delete()

    calls = _during_the_database_read(monkeypatch, log_out)
    me(player)
    assert calls
    assert me(player).status_code == 401  # the snapshot did not bring the session back


def test_an_unchanged_user_is_cached_again_after_a_save(session_cache: str) -> None:
    player = sign_up(f"again-{session_cache}@example.com")
    assert me(player).status_code == 200
    user_of(player).save()
    assert me(player).status_code == 200  # read from the database, cached again
    with CaptureQueriesContext(connection) as queries:
        assert me(player).status_code == 200
    assert authentication_queries(queries) == []


def test_the_snapshot_is_not_written_to_the_database(session_cache: str) -> None:
    player = sign_up(f"db-{session_cache}@example.com")
    assert me(player).status_code == 200
    store = sessions.SessionStore(session_key=player.token)
    stored = store.decode(store.model.objects.get(session_key=player.token).session_data)
    assert sessions.USER_SNAPSHOT not in stored
    assert settings.SESSION_ENGINE == "accounts.sessions"


@contextlib.contextmanager
def redis_unreachable() -> Iterator[None]:
    """Every command to Redis fails meanwhile while Redis keeps what it holds, as in a network
    partition or with a stalled server (a restart, by contrast, empties it)."""
    import redis.connection

    original = redis.connection.AbstractConnection.send_packed_command

    def fail(self: Any, command: Any, check_health: bool = True) -> None:
        raise redis.ConnectionError("unreachable (test)")

    redis.connection.AbstractConnection.send_packed_command = fail  # type: ignore[method-assign]
    try:
        yield
    finally:
        redis.connection.AbstractConnection.send_packed_command = original  # type: ignore[method-assign]


def test_a_log_out_while_redis_is_unreachable_is_not_undone_when_it_answers_again(
    settings: Any,
) -> None:
    """Measured on gunicorn with its Redis paused (CLIENT PAUSE): the log-out deleted the
    session from the database, the cache's delete failed, and once Redis answered again its
    entry, still signed in, let the token in (200) for the rest of the session's life."""
    require_service("Redis (REDIS_URL)", bool(settings.REDIS_URL))
    player = sign_up("partition@example.com")
    assert me(player).status_code == 200  # the session is cached, with its snapshot
    with redis_unreachable():
        assert player.client.delete("/_allauth/app/v1/auth/session").status_code == 401
        assert me(player).status_code == 401
    assert me(player).status_code == 401


def test_a_deactivation_while_redis_is_unreachable_ends_the_tokens_once_it_answers(
    settings: Any,
) -> None:
    """The deactivation could not drop the player's cached snapshots (nor read which there
    were); once Redis answered, the snapshot still let the token in, up to an hour."""
    require_service("Redis (REDIS_URL)", bool(settings.REDIS_URL))
    player = sign_up("partition-deactivated@example.com")
    assert me(player).status_code == 200  # the session is cached, with its snapshot
    with redis_unreachable():
        user = user_of(player)
        user.is_active = False
        user.save()  # and no request of the player's until Redis answers
    assert me(player).status_code == 401
