"""The replay viewer: staff step through a game's history and see every card."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.engine.actions import DEAL as DEAL_ACTION
from games.engine.actions import Move
from games.engine.cards import card_code, parse_deal_code
from games.engine.position import Position, initial_position
from games.engine.transitions import play
from games.history import Command
from games.models import Game
from games.replay import Replay
from tests.admin.conftest import WON, as_command, make_user, new_game
from tests.admin.conftest import play as play_steps

pytestmark = pytest.mark.django_db

DEAL = WON[0]


def url(game: Game, version: int | str | None = None) -> str:
    base = reverse("staff:replay", args=[game.pk])
    return base if version is None else f"{base}?version={version}"


def engine_position(code: str, steps: list[dict[str, Any]]) -> Position:
    """The position after ``steps``, computed with the engine alone (no log, no Django)."""
    position = initial_position(parse_deal_code(code))
    for step in steps:
        command = as_command(step)
        if command.type == "deal":
            position, _ = play(position, DEAL_ACTION)
        else:
            assert command.card is not None
            assert command.to is not None
            position, _ = play(position, Move(command.card, command.to))
    return position


def shown(replay: Replay) -> tuple[list[list[tuple[str, bool]]], list[str], int]:
    """What the viewer shows: each column's (card, face down), the stock, collected runs."""
    columns = [
        [(card.code, card.face_down) for card in column.cards] for column in replay.position.columns
    ]
    return columns, [card.code for card in replay.position.stock], len(replay.position.collected)


def expected(position: Position) -> tuple[list[list[tuple[str, bool]]], list[str], int]:
    columns = [
        [(card_code(card), index < hidden) for index, card in enumerate(column)]
        for column, hidden in zip(position.columns, position.hidden, strict=True)
    ]
    return columns, [card_code(card) for card in position.stock], len(position.collected)


@pytest.fixture
def owner() -> Any:
    return make_user("replayed@example.com")


@pytest.fixture
def game(owner: Any) -> Game:
    return play_steps(owner, new_game(owner, code=DEAL["code"]), DEAL["line"][:12])


@pytest.mark.parametrize("who", ["anonymous", "player"])
def test_non_staff_are_sent_to_the_login(
    who: str, client: Client, player_client: Client, game: Game
) -> None:
    response = (client if who == "anonymous" else player_client).get(url(game, 3))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


@pytest.mark.parametrize("version", [0, 1, 5, 12])
def test_shows_the_position_at_a_version(admin_client: Client, game: Game, version: int) -> None:
    response = admin_client.get(url(game, version))
    assert response.status_code == 200
    replay: Replay = response.context["replay"]
    assert replay.version == version
    assert shown(replay) == expected(engine_position(DEAL["code"], DEAL["line"][:version]))


def test_version_zero_shows_the_deal_face_down_cards_and_stock(
    admin_client: Client, game: Game
) -> None:
    response = admin_client.get(url(game, 0))
    replay: Replay = response.context["replay"]
    assert replay.step is None
    assert replay.position.face_down == 12
    code = DEAL["code"]
    stock = [code[i : i + 2] for i in range(98, 104, 2)]
    assert [card.code for card in replay.position.stock] == stock
    body = response.content.decode()
    assert body.count("(face down)") == 12
    for card in stock:
        assert f'title="{card}"' in body
    assert "the deal as dealt" in body
    assert 'rel="prev"' not in body
    assert 'rel="first"' not in body
    assert 'href="?version=1" rel="next"' in body
    assert f'href="?version={game.version}" rel="last"' in body


def test_shows_the_event_of_each_step(admin_client: Client, game: Game) -> None:
    for version in (1, 7):
        response = admin_client.get(url(game, version))
        step = response.context["replay"].step
        command = DEAL["line"][version - 1]
        assert step.seq == version
        assert step.type == command["type"]
        assert step.card == command["card"]
        assert step.to_col == command["to"]
        event = game.events.get(seq=version)
        assert step.from_col == event.payload["from"]
        assert [card for _column, card in step.flipped] == [
            flip["card"] for flip in event.payload["flipped"]
        ]
        body = response.content.decode()
        assert f"Event {version}: move {command['card']}" in body
        assert f'href="?version={version - 1}" rel="prev"' in body
        assert f'href="?version={version + 1}" rel="next"' in body


def test_undo_and_redo_steps(admin_client: Client, owner: Any, game: Game) -> None:
    for kind in ("undo", "redo", "undo"):
        services.game_execute_command(owner=owner, game_id=game.pk, command=Command(kind))
    game.refresh_from_db()
    assert game.version == 15
    before_undo = admin_client.get(url(game, 11)).context["replay"]
    after_undo = admin_client.get(url(game, 13)).context["replay"]
    assert after_undo.step.type == "undo"
    assert after_undo.step.card == DEAL["line"][11]["card"]
    assert after_undo.step.summary.startswith("undo of move")
    assert shown(after_undo) == shown(before_undo)
    redone = admin_client.get(url(game, 14)).context["replay"]
    assert redone.step.type == "redo"
    assert shown(redone) == shown(admin_client.get(url(game, 12)).context["replay"])


def test_a_won_game_replays_to_the_end(admin_client: Client, owner: Any) -> None:
    game = play_steps(owner, new_game(owner, code=DEAL["code"]), DEAL["line"])
    response = admin_client.get(url(game))
    replay: Replay = response.context["replay"]
    assert replay.version == game.version == len(DEAL["line"])
    assert replay.status == "won"
    assert len(replay.position.collected) == 4
    assert 'rel="next"' not in response.content.decode()


@pytest.mark.parametrize(("raw", "version"), [("abc", 12), ("999", 12), ("-4", 0), (None, 12)])
def test_out_of_range_versions_are_clamped(
    admin_client: Client, game: Game, raw: str | None, version: int
) -> None:
    response = admin_client.get(url(game, raw))
    assert response.status_code == 200
    assert response.context["replay"].version == version


def test_a_missing_game_is_404(admin_client: Client) -> None:
    response = admin_client.get(
        reverse("staff:replay", args=["00000000-0000-0000-0000-000000000000"])
    )
    assert response.status_code == 404


def test_replay_is_linked_from_events(admin_client: Client, game: Game) -> None:
    body = admin_client.get(reverse("admin:games_gameevent_changelist")).content.decode()
    assert f"{url(game)}?version=3" in body
