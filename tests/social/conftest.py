"""Helpers for the social tests: players with names, finished games, the feed's notices."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User

from accounts.names import display_name
from games.broadcast.hub import Message
from tests.api.conftest import WON_DEAL, Player, make_player, player, sign_up

LINE = WON_DEAL["line"]
_names = itertools.count()


def named(player: Player, name: str | None = None) -> str:
    """Give the player a display name; answers it as boards show it (with its tag)."""
    name = name or f"Friend{next(_names)}"
    response = player.client.patch("/api/v1/me/", {"display_name": name}, format="json")
    assert response.status_code == 200, response.content
    user = User.objects.get(email=player.email)
    return display_name(user_id=user.pk, email=user.email, name=name)


def finished_game(player: Player, *, win: bool = False) -> dict[str, Any]:
    """A game of the won deal, won by its line or resigned after one move."""
    game = player.new_game(code=WON_DEAL["code"])
    steps = LINE if win else [LINE[0], {"type": "resign"}]
    body: dict[str, Any] = {}
    for step in steps:
        response = player.command(game["id"], step)
        assert response.status_code == 200, response.content
        body = response.json()
    return body


def play_out(player: Player, game_id: str, *, win: bool) -> dict[str, Any]:
    steps = LINE if win else [LINE[0], {"type": "resign"}]
    body: dict[str, Any] = {}
    for step in steps:
        response = player.command(game_id, step)
        assert response.status_code == 200, response.content
        body = response.json()
    return body


@pytest.fixture
def two_players(make_player: Callable[[], Player]) -> tuple[Player, Player]:
    return make_player(), make_player()


class FeedSpy:
    """Every message published on a player's feed (the hub's user channels)."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, Message]] = []

    def publish(self, channel: str, message: Message) -> None:
        self.messages.append((channel, message))

    def events(self, name: str) -> list[tuple[str, Message]]:
        return [(channel, m) for channel, m in self.messages if m.event == name]


@pytest.fixture
def feed(monkeypatch: pytest.MonkeyPatch) -> FeedSpy:
    spy = FeedSpy()
    monkeypatch.setattr("social.services.notices.get_hub", lambda: spy)
    return spy


__all__ = ["Player", "make_player", "player", "sign_up"]
