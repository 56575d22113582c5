"""API test helpers: players signed up through allauth's headless app client."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import OperationalError, connection
from rest_framework.test import APIClient

from tests.data import DEALS

WON_DEAL = DEALS["won"][0]

_emails = itertools.count()


class Player:
    """A signed-up player with an API client that sends their session token."""

    def __init__(self, client: APIClient, email: str, token: str) -> None:
        self.client = client
        self.email = email
        self.token = token

    def get(self, path: str, **headers: str) -> Any:
        return _waiting_for_table_locks(lambda: self.client.get(path, headers=headers))

    def post(self, path: str, body: Any = None, **headers: str) -> Any:
        return _waiting_for_table_locks(
            lambda: self.client.post(
                path, body if body is not None else {}, format="json", headers=headers
            )
        )

    def new_game(self, **body: Any) -> dict[str, Any]:
        response = self.post("/api/v1/games/", body)
        assert response.status_code == 201, response.content
        return response.json()

    def command(self, game_id: str, body: dict[str, Any], **headers: str) -> Any:
        return self.post(f"/api/v1/games/{game_id}/commands/", body, **headers)


def _waiting_for_table_locks(send: Callable[[], Any], *, attempts: int = 40) -> Any:
    """Send a request from the test's thread, again while SQLite says a table is locked.

    On SQLite the tests' database is in memory, shared (shared cache) with the threads of the
    live servers of the browser tests, where a page's fetch or live stream may be reading a
    table at the very moment the test writes to it. SQLite then answers "database table is
    locked" at once: its busy timeout, which makes a writer wait for a file database's
    readers (the service's own SQLite, in WAL mode), does not apply to shared-cache table
    locks. So the test waits here as the service's writers wait there (the service writes in
    transactions: the failed attempt was rolled back). PostgreSQL never gets here.
    """
    for attempt in range(attempts):
        try:
            return send()
        except OperationalError as error:
            if connection.vendor != "sqlite" or "is locked" not in str(error):
                raise
            if attempt == attempts - 1:
                raise
            time.sleep(0.05)
    raise AssertionError("unreachable")


def sign_up(email: str, password: str = "correct horse battery staple") -> Player:
    client = APIClient()
    response = client.post(
        "/_allauth/app/v1/auth/signup",
        {"email": email, "password": password},
        format="json",
    )
    assert response.status_code == 200, response.content
    token = response.json()["meta"]["session_token"]
    client.credentials(HTTP_X_SESSION_TOKEN=token)
    return Player(client, email, token)


@pytest.fixture
def make_player(db: None) -> Callable[[], Player]:
    def make() -> Player:
        return sign_up(f"player{next(_emails)}@example.com")

    return make


@pytest.fixture
def player(make_player: Callable[[], Player]) -> Player:
    return make_player()
