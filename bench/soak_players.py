"""The soak's simulated players (bench/soak.py): each a thread playing one game after another
through the proxy, recording what it was told; some follow their games' live streams."""

from __future__ import annotations

import argparse
import json
import random
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

RANKS = {name: value for value, name in enumerate("A23456789TJQK", start=1)}


NAMES = {value: name for name, value in RANKS.items()}


@dataclass
class Record:
    """What the players did and were told (one per thread, merged at the end)."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)
    acknowledged: list[tuple[str, int, str, str]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # games of commands with no answer
    created: list[str] = field(default_factory=list)
    transport_errors: int = 0
    examples: list[str] = field(default_factory=list)

    def merge(self, other: Record) -> None:
        for kind, values in other.latencies.items():
            self.latencies.setdefault(kind, []).extend(values)
        self.statuses.update(other.statuses)
        self.acknowledged.extend(other.acknowledged)
        self.unknown.extend(other.unknown)
        self.created.extend(other.created)
        self.transport_errors += other.transport_errors
        self.examples.extend(other.examples[: max(0, 10 - len(self.examples))])


def card_rank(card: str) -> tuple[int, str]:
    return RANKS[card[:-1]], card[-1]


def legal_moves(game: dict[str, Any]) -> list[dict[str, Any]]:
    """The legal moves of the visible table (docs/rules.md): a face-up card, with what lies on
    it, onto its successor of the same suit at the top of another column; a King into an
    empty column."""
    columns = [column["cards"] for column in game["columns"]]
    tops = {cards[-1]: index for index, cards in enumerate(columns) if cards}
    empty = [index for index, cards in enumerate(columns) if not cards]
    moves: list[dict[str, Any]] = []
    for index, cards in enumerate(columns):
        for position, card in enumerate(cards):
            rank, suit = card_rank(card)
            if rank == 13:
                at_bottom = position == 0 and not game["columns"][index]["hidden"]
                if empty and not at_bottom:
                    moves.append({"type": "move", "card": card, "to": empty[0]})
                continue
            target = tops.get(f"{NAMES[rank + 1]}{suit}")
            if target is not None and target != index:
                moves.append({"type": "move", "card": card})
    return moves


class Player:
    def __init__(self, index: int, token: str, base_url: str, arguments: argparse.Namespace):
        self.index = index
        self.random = random.Random(index)
        self.think = arguments.think
        self.address = f"10.7.{index // 250}.{index % 250 + 1}"
        self.client = httpx.Client(
            base_url=base_url,
            headers={"X-Session-Token": token, "X-Forwarded-For": self.address},
            timeout=30,
        )
        self.record = Record()
        self.game: dict[str, Any] | None = None
        self.budget = 0

    def send(
        self, kind: str, method: str, path: str, body: Any = None, key: str | None = None
    ) -> httpx.Response | None:
        """One request, sent again (same key) after a transport error, up to 3 times."""
        headers = {"Idempotency-Key": key} if key else {}
        for _attempt in range(3):
            started = time.perf_counter()
            try:
                response = self.client.request(method, path, json=body, headers=headers)
            except httpx.TransportError as error:
                self.record.transport_errors += 1
                self.note(f"{kind}: {type(error).__name__} {error}")
                time.sleep(0.2)
                continue
            self.record.latencies.setdefault(kind, []).append(
                (time.perf_counter() - started) * 1000
            )
            self.record.statuses[str(response.status_code)] += 1
            if response.status_code >= 500 or response.status_code == 429:
                self.note(f"{kind}: {response.status_code} {response.text[:200]}")
            return response
        return None

    def note(self, what: str) -> None:
        if len(self.record.examples) < 10:
            self.record.examples.append(what)

    def new_game(self) -> None:
        key = uuid.uuid4().hex
        body = {"seed": self.random.randrange(2**40)}
        response = self.send("create", "POST", "/api/v1/games/", body, key)
        if response is not None and response.status_code == 201:
            self.game = response.json()
            self.record.created.append(self.game["id"])
            self.budget = self.random.randint(40, 160)

    def command(self, body: dict[str, Any]) -> None:
        assert self.game is not None
        game_id = self.game["id"]
        key = uuid.uuid4().hex
        kind = body["type"] if body["type"] in ("move", "undo") else "other command"
        response = self.send(
            kind,
            "POST",
            f"/api/v1/games/{game_id}/commands/",
            {**body, "expected_version": self.game["version"]},
            key,
        )
        if response is None:
            self.record.unknown.append(game_id)
            self.refresh()
            return
        if response.status_code == 200:
            answer = response.json()
            event = answer["event"]
            self.record.acknowledged.append((game_id, event["seq"], event["type"], key))
            self.game = answer
            self.budget -= 1
        else:
            if response.status_code not in (400, 409, 422):
                self.note(f"{body}: {response.status_code} {response.text[:200]}")
            self.refresh()

    def refresh(self) -> None:
        assert self.game is not None
        response = self.send("game", "GET", f"/api/v1/games/{self.game['id']}/")
        if response is not None and response.status_code == 200:
            self.game = response.json()

    def step(self) -> None:
        if self.game is None or self.game["status"] in ("won", "resigned"):
            self.new_game()
            return
        game_id, version = self.game["id"], self.game["version"]
        roll = self.random.random()
        if roll < 0.04:
            self.send("hints", "GET", f"/api/v1/games/{game_id}/hints/")
        elif roll < 0.08:
            self.refresh()
        elif roll < 0.11:
            after = max(0, version - 20)
            self.send(
                "events page", "GET", f"/api/v1/games/{game_id}/events/?after={after}&limit=20"
            )
        elif roll < 0.13:
            start = max(0, version - 10)
            self.send(
                "states page", "GET", f"/api/v1/games/{game_id}/states/?start={start}&limit=10"
            )
        elif roll < 0.21 and self.game.get("can_undo"):
            self.command({"type": "undo"})
        elif roll < 0.25 and self.game.get("can_redo"):
            self.command({"type": "redo"})
        else:
            moves = legal_moves(self.game)
            can_deal = self.game["stock"] > 0
            stuck = not moves and not can_deal
            if (
                self.budget > 0
                and stuck
                and self.game.get("can_undo")
                and self.random.random() < 0.8
            ):
                self.command({"type": "undo"})  # back out of the dead end, try another line
            elif self.budget <= 0 or stuck:
                self.command({"type": "resign"})
            elif can_deal and (not moves or self.random.random() < 0.05):
                self.command({"type": "deal"})
            else:
                self.command(self.random.choice(moves))

    def run(self, until: float, stop: threading.Event) -> None:
        while time.monotonic() < until and not stop.is_set():
            try:
                self.step()
            except (KeyError, ValueError, TypeError) as error:  # a surprising answer
                self.note(f"step: {type(error).__name__} {error}")
                self.game = None
            if self.think:
                time.sleep(self.random.expovariate(1 / self.think))
        self.client.close()


class Reader(Player):
    """A player between games (``--readers``): plays a short game (a few commands, then
    resigns), then browses for 20-60 s what may be a little behind, the reads the router may
    send to the replica: the history list, the statistics, today's leaderboard, and the events,
    states, replay state, result and export of the games it finished. Its reads in the first
    REPLICA_PIN_SECONDS after its last command are the primary's (read-your-writes)."""

    def __init__(self, index: int, token: str, base_url: str, arguments: argparse.Namespace):
        super().__init__(index, token, base_url, arguments)
        self.finished: list[tuple[str, int]] = []  # (game, version)
        self.browse_until = 0.0

    def new_game(self) -> None:
        super().new_game()
        self.budget = self.random.randint(3, 12)

    def step(self) -> None:
        now = time.monotonic()
        if now < self.browse_until:
            self.browse()
            return
        game = self.game
        just_finished = game is not None and game["status"] in ("won", "resigned")
        if (
            game is not None
            and just_finished
            and self.finished[-1:] != [(game["id"], game["version"])]
        ):
            self.finished.append((game["id"], game["version"]))
            self.browse_until = now + self.random.uniform(20, 60)
            self.browse()
            return
        super().step()

    def browse(self) -> None:
        game_id, version = self.random.choice(self.finished[-5:])
        roll = self.random.random()
        if roll < 0.2:
            self.send("history list", "GET", "/api/v1/games/?status=resigned")
        elif roll < 0.35:
            self.send("statistics", "GET", "/api/v1/stats/")
        elif roll < 0.5:
            today = time.strftime("%Y-%m-%d", time.gmtime())
            self.send("leaderboard", "GET", f"/api/v1/daily/{today}/leaderboard/")
        elif roll < 0.65:
            self.send("replay events", "GET", f"/api/v1/games/{game_id}/events/?limit=50")
        elif roll < 0.8:
            start = self.random.randrange(version + 1)
            self.send(
                "replay states", "GET", f"/api/v1/games/{game_id}/states/?start={start}&limit=10"
            )
        elif roll < 0.9:
            at = self.random.randrange(version + 1)
            self.send("replay state", "GET", f"/api/v1/games/{game_id}/states/{at}/")
        elif roll < 0.96:
            self.send("game result", "GET", f"/api/v1/games/{game_id}/result/")
        else:
            self.send("export", "GET", f"/api/v1/games/{game_id}/events/export/")


class Follower:
    """Follows one player's games on their live streams (through nginx to the stream
    process), each from its first event (``?since=0``) to its ``end``, and keeps what came."""

    def __init__(self, player: Player, token: str, base_url: str):
        self.player = player
        self.client = httpx.Client(
            base_url=base_url,
            headers={"X-Session-Token": token, "X-Forwarded-For": player.address},
            timeout=httpx.Timeout(30.0, read=40.0),
        )
        self.received: dict[str, list[tuple[int, str]]] = {}
        self.ended: set[str] = set()
        self.resynced: set[str] = set()
        self.errors: list[str] = []
        self.lock = threading.Lock()

    def run(self, until: float) -> None:
        followed: set[str] = set()
        while time.monotonic() < until:
            game = self.player.game
            if game is None or game["id"] in followed:
                time.sleep(0.1)
                continue
            followed.add(game["id"])
            try:
                self.follow(game["id"], until)
            except httpx.HTTPError as error:
                if time.monotonic() < until and len(self.errors) < 5:
                    self.errors.append(f"{game['id']}: {type(error).__name__} {error}")

    def follow(self, game_id: str, until: float) -> None:
        with self.client.stream("GET", f"/api/v1/games/{game_id}/stream/?since=0") as response:
            if response.status_code != 200:
                self.errors.append(f"{game_id}: stream answered {response.status_code}")
                return
            kind, data = "", ""
            for line in response.iter_lines():
                if line.startswith("event: "):
                    kind = line.removeprefix("event: ")
                elif line.startswith("data: "):
                    data = line.removeprefix("data: ")
                elif line == "" and kind:
                    with self.lock:
                        if kind == "command":
                            event = json.loads(data)["event"]
                            self.received.setdefault(game_id, []).append(
                                (event["seq"], event["type"])
                            )
                        elif kind == "resync":
                            self.resynced.add(game_id)
                        elif kind == "end":
                            self.ended.add(game_id)
                            return
                    kind, data = "", ""
                if time.monotonic() > until + 5:
                    return


@dataclass
class Streamed:
    """What the followers received, merged."""

    received: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    ended: list[str] = field(default_factory=list)
    resynced: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def add(self, follower: Follower) -> None:
        self.received.update({game: list(events) for game, events in follower.received.items()})
        self.ended.extend(follower.ended)
        self.resynced.extend(follower.resynced)
        self.errors.extend(follower.errors)

    @property
    def events(self) -> int:
        return sum(len(events) for events in self.received.values())
