"""Erasing a player's data, or the whole account, while they keep playing on another device.

Real threads on PostgreSQL, through the whole HTTP stack (each thread its own client and its
own database connection): one device plays (creates, moves, undoes, restarts, asks for hints,
resigns and so finishes games, which writes statistics) while the other deletes. Before the
deletion took its locks, 10 of 16 erasures and 4 of 6 account closures answered 500
(an integrity error on a row the deletion had not seen, or a deadlock).

What must hold, every round: no 5xx anywhere; the deletion succeeds; each of the player's
requests either lands before it or gets a clean 404 (the game is gone) / 401 (the account is
gone) after it; what is left is consistent (statistics equal their recomputation, no row refers
to a deleted account).
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from rest_framework.test import APIClient

from games.models import Game
from stats import services as stats_services
from stats.models import PlayerStats
from tests.api.conftest import Player
from tests.conftest import require_service
from tests.stats.conftest import CODE, LINE
from tests.stats.test_my_data import rows_referring_to

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"
# Answers a request of the playing device may get while its data or account goes away.
ALLOWED = {
    200,
    201,
    401,  # the account (and so the session token) is gone
    404,  # the game is gone
    409,  # a command racing another command of the same device (version_conflict)
    422,  # a command the game no longer allows (e.g. undo on a fresh restart)
}


@pytest.fixture
def postgres() -> None:
    require_service("PostgreSQL", connection.vendor == "postgresql")


def second_device(player: Player) -> APIClient:
    client = APIClient()
    response = client.post(
        "/_allauth/app/v1/auth/login", {"email": player.email, "password": PASSWORD}, format="json"
    )
    assert response.status_code == 200, response.content
    client.credentials(HTTP_X_SESSION_TOKEN=response.json()["meta"]["session_token"])
    return client


class Device:
    """A client that plays on and on, recording every status it is answered with."""

    def __init__(self, client: APIClient, seed: int) -> None:
        self.client = client
        self.random = random.Random(seed)
        self.statuses: Counter[int] = Counter()
        self.errors: list[str] = []
        self.answered = 0

    def request(self, method: str, path: str, body: Any = None) -> Any:
        try:
            response = self.client.generic(
                method, path, b"" if body is None else _json(body), content_type="application/json"
            )
        except Exception as exc:  # the test client re-raises what a view raised: a 500
            self.statuses[500] += 1
            self.answered += 1
            self.errors.append(f"{method} {path}: {exc!r}")
            return None
        self.statuses[response.status_code] += 1
        self.answered += 1
        if response.status_code not in ALLOWED:
            self.errors.append(
                f"{method} {path}: {response.status_code} {response.content[:300]!r}"
            )
        return response

    def play(self, stop: threading.Event) -> None:
        """Until ``stop``, and a few requests beyond it: games begun, played, finished."""
        extra = 2
        while extra > 0:
            if stop.is_set():
                extra -= 1
            created = self.request("POST", "/api/v1/games/", {"code": CODE})
            if created is None or created.status_code != 201:
                continue
            game = created.json()["id"]
            commands = f"/api/v1/games/{game}/commands/"
            for step in LINE[: self.random.randint(1, 6)]:
                self.request("POST", commands, step)
            self.request("POST", commands, {"type": "undo"})
            self.request("GET", f"/api/v1/games/{game}/hints/")
            choice = self.random.random()
            if choice < 0.4:
                self.request("POST", commands, {"type": "resign"})  # writes statistics
            elif choice < 0.7:
                self.request("POST", f"/api/v1/games/{game}/restart/")
            else:
                self.request("GET", f"/api/v1/games/{game}/states/1/")


def _json(body: Any) -> bytes:
    import json

    return json.dumps(body).encode()


def race_deletion(
    player: Player, delete: Callable[[APIClient], Any], rounds_seed: int
) -> tuple[list[Device], Any]:
    """Two devices of the player play while a third client of theirs deletes."""
    devices = [Device(second_device(player), rounds_seed * 10 + i) for i in range(2)]
    deleter = second_device(player)
    stop = threading.Event()
    outcome: dict[str, Any] = {}

    def run_device(device: Device) -> None:
        try:
            device.play(stop)
        finally:
            connection.close()

    def run_deleter() -> None:
        try:
            # Strike at a different point of play each round.
            wanted = random.Random(rounds_seed).randint(2, 40)
            deadline = time.monotonic() + 30
            while sum(d.answered for d in devices) < wanted and time.monotonic() < deadline:
                time.sleep(0.005)
            outcome["response"] = delete(deleter)
        except Exception as exc:
            outcome["response"] = exc
        finally:
            stop.set()
            connection.close()

    threads = [threading.Thread(target=run_device, args=(d,)) for d in devices]
    threads.append(threading.Thread(target=run_deleter))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return devices, outcome.get("response")


def assert_no_server_error(devices: list[Device], deletion: Any) -> None:
    assert not isinstance(deletion, Exception), repr(deletion)
    assert deletion.status_code == 200, deletion.content
    errors = [error for device in devices for error in device.errors]
    assert not errors, errors


@pytest.mark.usefixtures("postgres")
def test_erasing_my_data_while_playing_on_another_device(
    make_player: Callable[[], Player],
) -> None:
    for round_ in range(8):
        player = make_player()
        user = User.objects.get(email=player.email)
        devices, deletion = race_deletion(player, lambda c: c.delete("/api/v1/me/data/"), round_)
        assert_no_server_error(devices, deletion)
        assert sum(d.statuses[200] for d in devices) > 0  # they did play
        # Whatever landed after the erasure is consistent: the statistics are exactly what the
        # games left say (a game finished before the erasure left no statistics behind).
        stored = {
            row.mode: (row.won, row.resigned) for row in PlayerStats.objects.filter(user=user)
        }
        recomputed = {
            mode: (row.won, row.resigned)
            for mode, row in stats_services.stats_recompute(user=user).items()
        }
        assert {m: v for m, v in stored.items() if v != (0, 0)} == {
            m: v for m, v in recomputed.items() if v != (0, 0)
        }
        assert player.get("/api/v1/me/").status_code == 200  # the account stays


@pytest.mark.usefixtures("postgres")
def test_closing_the_account_while_playing_on_another_device(
    make_player: Callable[[], Player],
) -> None:
    for round_ in range(6):
        player = make_player()
        user_id = User.objects.get(email=player.email).pk
        devices, deletion = race_deletion(player, lambda c: c.delete("/api/v1/me/"), round_)
        assert_no_server_error(devices, deletion)
        assert not User.objects.filter(pk=user_id).exists()
        assert not Game.objects.filter(owner_id=user_id).exists()
        assert rows_referring_to(user_id, []) == {}
        assert all(d.statuses[401] > 0 for d in devices)  # after it, nobody is signed in


@pytest.mark.usefixtures("postgres")
def test_a_statistics_rebuild_racing_the_account_closing_gives_up_quietly() -> None:
    from players import services as player_services
    from tests.api.test_event_store import race

    for round_ in range(6):
        user = User.objects.create_user(f"rebuilt{round_}", f"rebuilt{round_}@example.com", "pw")
        results = race(
            [
                lambda u=user: player_services.account_delete(user=u),
                *[lambda u=user: stats_services.stats_recompute(user=u) for _ in range(3)],
            ]
        )
        assert not any(isinstance(result, Exception) for result in results), results
        assert not PlayerStats.objects.filter(user_id=user.pk).exists()
