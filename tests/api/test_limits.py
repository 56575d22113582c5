"""Rate limits: the API's throttles, allauth's limits on sign-up and log-in, the admin's log-in,
the client's address behind proxies, and what holds while Redis is down."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection
from django.test import Client, override_settings
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

import scorpion_site.settings as production
from infrastructure import db_routing
from infrastructure.cache import incr_counter, local_limits
from tests.api.conftest import Player, sign_up
from tests.conftest import require_service

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"
LOGIN = "/_allauth/app/v1/auth/login"
SIGNUP = "/_allauth/app/v1/auth/signup"
PROBLEM = "application/problem+json"


@pytest.fixture
def low_rates(monkeypatch: pytest.MonkeyPatch) -> None:
    # DRF reads the rates once at import; patch the class attribute the throttles consult.
    monkeypatch.setattr(
        SimpleRateThrottle, "THROTTLE_RATES", {"anon": "2/min", "user": "3/min", "ip": "5/min"}
    )


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The throttles' clock, frozen until a test moves it: no window ends by chance."""
    now = [1_000_000.0]
    monkeypatch.setattr(SimpleRateThrottle, "timer", staticmethod(lambda: now[0]))
    return now


@pytest.fixture
def production_login_limits() -> Iterator[None]:
    # The test settings raise allauth's limits out of the way of sign-ups; these are the real ones.
    with override_settings(ACCOUNT_RATE_LIMITS=production.ACCOUNT_RATE_LIMITS):
        yield


def log_in(client: Any, email: str, password: str, **extra: Any) -> Any:
    return client.post(LOGIN, {"email": email, "password": password}, format="json", **extra)


def assert_throttled(response: Any, *, at_most: int) -> int:
    assert response.status_code == 429, response.content
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["code"] == "throttled"
    assert body["status"] == 429
    wait = int(response["Retry-After"])
    assert 1 <= wait <= at_most
    return wait


# --- the API's throttles -------------------------------------------------------------------


@pytest.mark.usefixtures("low_rates")
def test_per_user_throttle_answers_429_with_retry_after(player: Player) -> None:
    statuses = [player.get("/api/v1/me/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert_throttled(player.get("/api/v1/me/"), at_most=60)


@pytest.mark.usefixtures("low_rates")
def test_anonymous_callers_are_throttled_per_address() -> None:
    client = APIClient()
    statuses = [client.get("/api/v1/games/").status_code for _ in range(3)]
    assert statuses == [401, 401, 429]


@pytest.mark.usefixtures("low_rates")
def test_many_accounts_on_one_address_share_the_address_limit(
    make_player: Callable[[], Player],
) -> None:
    players = [make_player() for _ in range(3)]
    statuses = [p.get("/api/v1/me/").status_code for p in players for _ in range(2)]
    assert statuses.count(429) == 1  # the sixth request from the address is over 5/min


def test_retry_after_is_the_time_to_the_end_of_the_window(
    player: Player, clock: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    rates = {"anon": "1000/min", "user": "3/min", "ip": "1000/min"}  # the user's limit only
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    for _ in range(3):
        assert player.get("/api/v1/me/").status_code == 200
    clock[0] += 10  # ten seconds into the window (or into the next one: either is fine)
    refused = player.get("/api/v1/me/")
    if refused.status_code == 200:  # the window ended within those ten seconds
        for _ in range(2):
            player.get("/api/v1/me/")
        refused = player.get("/api/v1/me/")
    wait = assert_throttled(refused, at_most=60)
    clock[0] += wait - 1
    assert player.get("/api/v1/me/").status_code == 429  # still the same window
    clock[0] += 1
    assert player.get("/api/v1/me/").status_code == 200  # a new window, a new count


@pytest.mark.usefixtures("low_rates")
def test_anonymous_ipv6_callers_are_counted_by_their_64_bit_prefix() -> None:
    client = APIClient()
    # One subscriber's /64 holds 2^64 addresses: a fresh one per request must not help.
    statuses = [
        client.get("/api/v1/games/", REMOTE_ADDR=f"2001:db8:1:2::{i}").status_code
        for i in range(1, 4)
    ]
    assert statuses == [401, 401, 429]
    other = client.get("/api/v1/games/", REMOTE_ADDR="2001:db8:1:3::1")
    assert other.status_code == 401  # another subscriber's /64 has its own limit


# --- X-Forwarded-For and NUM_PROXIES -------------------------------------------------------


@pytest.mark.usefixtures("low_rates")
def test_a_spoofed_forwarded_for_does_not_reset_the_anonymous_limit() -> None:
    assert settings.NUM_PROXIES == 0  # the default: the header is trusted from nobody
    client = APIClient()
    statuses = [
        client.get("/api/v1/games/", headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code
        for i in range(3)
    ]
    assert statuses == [401, 401, 429]


@pytest.mark.usefixtures("low_rates")
def test_a_spoofed_forwarded_for_does_not_reset_the_address_limit(
    make_player: Callable[[], Player],
) -> None:
    players = [make_player() for _ in range(3)]
    statuses = [
        p.get("/api/v1/me/", **{"X-Forwarded-For": f"198.51.100.{n}"}).status_code
        for n, p in enumerate(p for p in players for _ in range(2))
    ]
    assert statuses.count(429) == 1


@pytest.mark.usefixtures("low_rates")
@override_settings(NUM_PROXIES=1)
def test_behind_one_proxy_the_right_most_forwarded_entry_is_the_client() -> None:
    client = APIClient()

    def get(forwarded: str) -> int:
        return int(client.get("/api/v1/games/", headers={"X-Forwarded-For": forwarded}).status_code)

    # What the client wrote (left) changes every time; what our proxy wrote (right) does not.
    assert [get(f"203.0.113.{i}, 192.0.2.7") for i in range(3)] == [401, 401, 429]
    # Another client behind the same proxy has a limit of its own.
    assert get("203.0.113.1, 192.0.2.8") == 401
    # A request that did not come through the proxy is counted by its own address.
    assert client.get("/api/v1/games/").status_code == 401


def test_a_spoofed_forwarded_for_does_not_reset_the_signup_limit() -> None:
    client = APIClient()
    with override_settings(ACCOUNT_RATE_LIMITS={"signup": "2/m/ip"}):
        statuses = [
            client.post(
                SIGNUP,
                {"email": f"spoof{i}@example.com", "password": "a long password 99"},
                format="json",
                headers={"X-Forwarded-For": f"203.0.113.{i}"},
            ).status_code
            for i in range(3)
        ]
    assert statuses == [200, 200, 429]


@override_settings(NUM_PROXIES=1, ACCOUNT_RATE_LIMITS={"signup": "2/m/ip"})
def test_behind_one_proxy_allauth_counts_the_right_most_forwarded_entry() -> None:
    client = APIClient()

    def signup(n: int, forwarded: str) -> int:
        return int(
            client.post(
                SIGNUP,
                {"email": f"proxied{n}@example.com", "password": "a long password 99"},
                format="json",
                headers={"X-Forwarded-For": forwarded},
            ).status_code
        )

    assert [signup(i, f"203.0.113.{i}, 192.0.2.7") for i in range(3)] == [200, 200, 429]
    assert signup(3, "192.0.2.8") == 200


# --- atomic counters -----------------------------------------------------------------------


def race(threads: int, work: Callable[[], Any]) -> list[Any]:
    """Run ``work`` on ``threads`` threads started at the same moment; return what each did."""
    barrier = threading.Barrier(threads)
    results: list[Any] = [None] * threads

    def body(index: int) -> None:
        try:
            barrier.wait()
            results[index] = work()
        except Exception as exc:
            results[index] = exc
        finally:
            connection.close()

    started = [threading.Thread(target=body, args=(i,)) for i in range(threads)]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join(timeout=120)
    return results


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("clock")
def test_eight_threads_of_one_user_do_not_overshoot_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require_service("Redis", bool(settings.REDIS_URL))
    limit = 60
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {"anon": "100000/min", "user": f"{limit}/min", "ip": "100000/min"},
    )
    player = sign_up("crowd@example.com")

    def hammer() -> list[int]:
        client = APIClient()
        client.credentials(HTTP_X_SESSION_TOKEN=player.token)
        return [client.get("/api/v1/me/").status_code for _ in range(20)]

    results = race(8, hammer)
    statuses = [status for result in results for status in result]
    assert len(statuses) == 160, results
    assert set(statuses) == {200, 429}
    # Every request is one atomic INCR: exactly the limit gets through, not one more.
    assert statuses.count(200) == limit


def test_in_memory_counters_are_atomic_under_threads() -> None:
    # The embedded default (no Redis) counts in LocMemCache with add + incr under its lock.
    results = race(
        8, lambda: [incr_counter(local_limits, "throttle:t:x", ttl=60) for _ in range(500)]
    )
    counts = [count for result in results for count in result]
    assert sorted(counts) == list(range(1, 4001))  # every count handed out exactly once


# --- allauth: sign-up, log-in, failed log-ins ----------------------------------------------


def test_signup_is_rate_limited_with_a_problem_and_retry_after() -> None:
    client = APIClient()
    with override_settings(ACCOUNT_RATE_LIMITS={"signup": "2/m/ip"}):
        statuses = [
            client.post(
                SIGNUP,
                {"email": f"flood{i}@example.com", "password": "a long password 99"},
                format="json",
            ).status_code
            for i in range(2)
        ]
        refused = client.post(
            SIGNUP, {"email": "flood9@example.com", "password": "a long password 99"}, format="json"
        )
    assert statuses == [200, 200]
    assert_throttled(refused, at_most=60)


def test_login_attempts_are_rate_limited_with_a_problem_and_retry_after() -> None:
    client = APIClient()
    with override_settings(ACCOUNT_RATE_LIMITS={"login": "2/m/ip"}):
        for _ in range(2):
            assert log_in(client, "nobody@example.com", "wrong password").status_code == 400
        refused = log_in(client, "nobody@example.com", "wrong password")
    assert_throttled(refused, at_most=60)


@pytest.mark.usefixtures("production_login_limits")
def test_failed_logins_lock_the_account_with_429_and_retry_after() -> None:
    player = sign_up("guessed@example.com", password=PASSWORD)
    client = APIClient()
    # "5/5m/key": five wrong passwords for one account, from any address, then it is locked.
    for n in range(5):
        wrong = log_in(client, player.email, f"guess {n}", REMOTE_ADDR=f"192.0.2.{n}")
        assert wrong.status_code == 400, wrong.content
    refused = log_in(client, player.email, "guess 5", REMOTE_ADDR="192.0.2.99")
    wait = assert_throttled(refused, at_most=300)
    assert wait > 240  # the lock lasts five minutes from the first failure
    # Locked means locked: the right password does not get in either, and says so alike.
    assert_throttled(log_in(client, player.email, PASSWORD, REMOTE_ADDR="192.0.2.98"), at_most=300)


@pytest.mark.usefixtures("production_login_limits")
def test_the_browser_client_gets_the_same_429() -> None:
    client = APIClient()
    for n in range(10):  # "10/m/ip" failed log-ins from one address, whatever the accounts
        log_in(client, f"user{n}@example.com", "wrong", REMOTE_ADDR="192.0.2.1")
    refused = client.post(
        "/_allauth/browser/v1/auth/login",
        {"email": "user99@example.com", "password": "wrong"},
        format="json",
        REMOTE_ADDR="192.0.2.1",
    )
    assert_throttled(refused, at_most=60)


# --- the admin's log-in --------------------------------------------------------------------


def staff_user(email: str = "staff@example.com") -> User:
    return User.objects.create_user(
        username=email, email=email, password=PASSWORD, is_staff=True, is_superuser=True
    )


def admin_log_in(client: Client, email: str, password: str, **extra: Any) -> Any:
    """Log in through whatever form /admin/login/ leads to: Django's own before the fix,
    allauth's after (the fields of both are sent)."""
    page = client.get("/admin/login/?next=/admin/", follow=True, **extra)
    assert page.status_code in (200, 429)
    url = page.redirect_chain[-1][0] if page.redirect_chain else "/admin/login/?next=/admin/"
    fields = {"username": email, "login": email, "password": password}
    return client.post(url, fields, **extra)


def test_staff_log_in_to_the_admin_through_allauth() -> None:
    staff = staff_user()
    client = Client()
    response = admin_log_in(client, staff.email, PASSWORD)
    assert response.status_code == 302
    assert response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


@pytest.mark.usefixtures("production_login_limits")
def test_forty_wrong_admin_passwords_lock_the_admin_log_in() -> None:
    staff = staff_user()
    client = Client()
    statuses = [admin_log_in(client, staff.email, f"guess {n}").status_code for n in range(40)]
    assert set(statuses) <= {200, 429}  # the form again, or the lock
    assert client.get("/admin/").status_code == 302  # not in
    # Now the right password, from a fresh address: the account is locked, it does not get in.
    elsewhere = admin_log_in(client, staff.email, PASSWORD, REMOTE_ADDR="192.0.2.200")
    assert client.get("/admin/").status_code == 302, "signed in despite 40 wrong passwords"
    assert elsewhere.status_code == 200
    assert "Too many failed login attempts" in elsewhere.content.decode()
    # From the guessing address, the log-in page itself is shut for a while.
    assert 429 in statuses  # "30/m/ip"
    refused = admin_log_in(client, staff.email, PASSWORD)
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert client.get("/admin/").status_code == 302


def test_django_admin_login_form_no_longer_checks_passwords() -> None:
    staff = staff_user()
    client = Client()
    response = client.post("/admin/login/", {"username": staff.email, "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert client.get("/admin/").status_code == 302  # a redirect to the log-in, not signed in


# --- while Redis is down -------------------------------------------------------------------


def dead_port() -> int:
    with socket.socket() as sock:  # a port nobody listens on once closed
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def redis_down() -> Iterator[None]:
    """The cache on a Redis that refuses every connection, as during an outage."""
    dead = {
        "default": {
            "BACKEND": "infrastructure.cache.FailOpenRedisCache",
            "LOCATION": f"redis://127.0.0.1:{dead_port()}/0",
            "KEY_PREFIX": "scorpion",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    local_limits.clear()
    with override_settings(CACHES=dead, ACCOUNT_RATE_LIMITS=production.ACCOUNT_RATE_LIMITS):
        assert cache.get("anything", "missed") == "missed"  # really down, and failing open
        yield
    local_limits.clear()


def test_log_in_limits_hold_while_redis_is_down(redis_down: None) -> None:
    email = "outage@example.com"
    User.objects.create_user(username=email, email=email, password=PASSWORD)
    client = APIClient()
    for n in range(5):
        assert log_in(client, email, f"guess {n}").status_code == 400
    assert_throttled(log_in(client, email, "guess 5"), at_most=300)
    assert_throttled(log_in(client, email, PASSWORD), at_most=300)


@pytest.mark.usefixtures("low_rates")
def test_api_throttles_hold_while_redis_is_down(redis_down: None) -> None:
    client = APIClient()
    statuses = [client.get("/api/v1/games/").status_code for _ in range(3)]
    assert statuses == [401, 401, 429]


def test_a_write_pins_its_player_to_the_primary_in_this_process_while_redis_is_down(
    redis_down: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read-your-writes with a read replica: the pin lives in the cache, and with Redis down a
    dropped pin sent the player's next history read to a replica that may not have the move
    yet, even on the process that made it (docs/architecture.md, "Read replica")."""
    monkeypatch.setattr(db_routing, "replica_configured", lambda: True)
    player = sign_up("pinned@example.com")
    user_id = User.objects.get(email=player.email).pk
    assert not db_routing.player_pinned(user_id)
    player.new_game()
    assert db_routing.player_pinned(user_id)
