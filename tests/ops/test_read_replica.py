"""The read replica on real processes: a primary and a streaming replica made here
(bench/pg_pair.py), migrate on the primary, and gunicorn (the compose web command, one
worker: the replica's state is measured per process, so one process makes the test's
observations one process's) with ``DATABASE_REPLICA_URL``.

What is shown: the reads that may lag come from the replica (a change written straight to the
primary while the replica's replay is paused is not seen there, and is seen by the player's
current game, read on the primary); a replica further behind than REPLICA_MAX_LAG_SECONDS
serves nothing and /healthz/ says so; a player reads their own writes while the replica is
behind (the pin); and a replica stopped mid-run costs no request an error.

Skipped on a laptop without PostgreSQL's programs or Redis; in CI (CI=true) it fails instead.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from django.conf import settings

from bench.pg_pair import Pair, postgres_bin, primary_and_replica
from tests.conftest import require_service
from tests.ops import native
from tests.ops.test_process_commands import HOST, app_environment
from tests.workers.harness import Process, wait_until

pytestmark = [pytest.mark.services]

MAX_LAG = 8
CHECK = 1
PIN = MAX_LAG + CHECK  # the least the settings allow
DATABASE = "scorpion"


@dataclass
class Service:
    pair: Pair
    web: Process
    client: httpx.Client  # a player, signed up
    game: str  # the player's one game

    def primary(self, statement: str) -> str:
        return self.pair.sql(self.pair.primary_port, statement, DATABASE)

    def replica(self, statement: str) -> str:
        return self.pair.sql(self.pair.replica_port, statement, DATABASE)

    def health(self) -> dict[str, Any]:
        answer = self.client.get("/healthz/")
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def listed_created_at(self) -> str:
        listed = self.client.get("/api/v1/games/")
        assert listed.status_code == 200, listed.text
        return str(listed.json()["results"][0]["created_at"])

    def current_created_at(self) -> str:
        current = self.client.get(f"/api/v1/games/{self.game}/")
        assert current.status_code == 200, current.text
        return str(current.json()["created_at"])

    def write_replayed_then_pause(self, created_at: str) -> None:
        """A change on the primary, waited for on the replica, then the replica's replay paused:
        the replica is now exactly as far behind as the time since that change."""
        self.primary(f"UPDATE games_game SET created_at = '{created_at}' WHERE id = '{self.game}'")
        wait_until(
            lambda: self.replica(
                f"SELECT created_at FROM games_game WHERE id = '{self.game}'"
            ).startswith(created_at[:10]),
            60,
            "the replica never replayed the change",
        )
        self.replica("SELECT pg_wal_replay_pause()")

    def resume(self) -> None:
        self.replica("SELECT pg_wal_replay_resume()")
        wait_until(lambda: self.health()["replica"]["ok"], 60, lambda: str(self.health()))


def pin_expires() -> None:
    """The player's last write is older than the pin (a window to pass, nothing measured)."""
    time.sleep(PIN + 0.5)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    require_service("PostgreSQL's programs (apt-get install postgresql)", bool(postgres_bin()))
    require_service("Redis", bool(settings.REDIS_URL))
    with ExitStack() as stack:
        pair = stack.enter_context(primary_and_replica())
        pair.sql(pair.primary_port, f"CREATE DATABASE {DATABASE}")
        user = "postgres@127.0.0.1"
        env = app_environment(
            f"postgres://{user}:{pair.primary_port}/{DATABASE}", tmp_path_factory.mktemp("rr")
        )
        env.update(
            {
                "DATABASE_REPLICA_URL": f"postgres://{user}:{pair.replica_port}/{DATABASE}",
                "DATABASE_POOLER": "",  # straight to the pair
                "REPLICA_MAX_LAG_SECONDS": str(MAX_LAG),
                "REPLICA_CHECK_SECONDS": str(CHECK),
                "REPLICA_PIN_SECONDS": str(PIN),
            }
        )
        native.migrate(env)
        command = native.web_command(workers="1")
        web, web_port = stack.enter_context(native.web(command, env, HOST))
        client = httpx.Client(
            base_url=f"http://127.0.0.1:{web_port}", headers={"Host": HOST}, timeout=120
        )
        signup = client.post(
            "/_allauth/app/v1/auth/signup",
            json={"email": "replica@example.com", "password": "a long password 63"},
        )
        assert signup.status_code == 200, signup.text
        client.headers["X-Session-Token"] = signup.json()["meta"]["session_token"]
        created = client.post("/api/v1/games/", json={"seed": 7})
        assert created.status_code == 201, created.text
        yield Service(pair, web, client, created.json()["id"])
        assert "Traceback" not in web.output, web.output[-5000:]


def test_health_shows_a_replica_serving_reads(live: Service) -> None:
    wait_until(lambda: live.health()["replica"]["ok"], 60, lambda: str(live.health()))
    body = live.health()
    assert body["status"] == "ok"
    assert body["replica"]["configured"] is True
    assert body["replica"]["serving_reads"] is True
    assert body["replica"]["lag_seconds"] <= MAX_LAG


def test_reads_that_may_lag_come_from_the_replica_until_it_lags_too_far(live: Service) -> None:
    pin_expires()
    live.write_replayed_then_pause("2001-01-01T00:00:00+00:00")
    try:
        # Written straight to the primary: no player is pinned by it.
        live.primary(f"UPDATE games_game SET created_at = '2002-02-02' WHERE id = '{live.game}'")
        # The history page (may lag) still shows the replica's value; the player's current
        # game (never on the replica) the primary's.
        assert live.listed_created_at().startswith("2001-01-01")
        assert live.current_created_at().startswith("2002-02-02")
        # Paused, the replica falls behind: past the allowed lag it serves nothing, the
        # history page is read on the primary, and the health check says why.
        wait_until(
            lambda: live.health()["replica"].get("error") == "lagging",
            120,
            lambda: str(live.health()),
        )
        body = live.health()
        assert body["status"] == "degraded"
        assert body["replica"]["serving_reads"] is False
        assert body["replica"]["lag_seconds"] > MAX_LAG
        time.sleep(CHECK + 0.5)  # the web process's own look at the replica is renewed
        assert live.listed_created_at().startswith("2002-02-02")
    finally:
        live.resume()
    assert live.listed_created_at().startswith("2002-02-02")


def test_a_player_reads_their_own_writes_while_the_replica_is_behind(live: Service) -> None:
    pin_expires()
    # The replica is barely behind (within the allowed lag: it would serve reads) and misses
    # whatever is written from now on.
    live.write_replayed_then_pause("2003-03-03T00:00:00+00:00")
    try:
        dealt = live.client.post(f"/api/v1/games/{live.game}/commands/", json={"type": "deal"})
        assert dealt.status_code == 200, dealt.text
        version = dealt.json()["version"]
        # At once, the player's reads that may lag come from the primary: the pin.
        events = live.client.get(f"/api/v1/games/{live.game}/events/")
        assert events.status_code == 200, events.text
        assert [event["type"] for event in events.json()["results"]][-1] == "deal"
        state = live.client.get(f"/api/v1/games/{live.game}/states/{version}/")
        assert state.status_code == 200, state.text
        assert state.json()["version"] == version
        # The replica indeed lacks the deal.
        assert live.replica(f"SELECT version FROM games_game WHERE id = '{live.game}'") != str(
            version
        )
    finally:
        live.resume()


def test_a_replica_stopped_mid_run_costs_no_request_an_error(live: Service) -> None:
    pin_expires()
    wait_until(lambda: live.health()["replica"]["ok"], 60, lambda: str(live.health()))
    live.listed_created_at()  # the process's look at the replica: well
    live.pair.stop("replica", "immediate")
    # The first read may still be sent to the replica: it fails there and is read again on
    # the primary. None of them is an error.
    for _ in range(3):
        assert live.listed_created_at().startswith("2003-03-03")
        events = live.client.get(f"/api/v1/games/{live.game}/events/")
        assert events.status_code == 200, events.text
    body = live.health()
    assert body["status"] == "degraded"
    assert body["replica"]["ok"] is False
    assert body["replica"]["error"] == "OperationalError"
    # Commands go on, on the primary.
    undone = live.client.post(f"/api/v1/games/{live.game}/commands/", json={"type": "undo"})
    assert undone.status_code == 200, undone.text
