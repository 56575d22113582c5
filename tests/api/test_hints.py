"""The hints answer of the API depends only on what the player can see."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games.engine.actions import Deal
from games.engine.cards import card_code, format_deal_code
from games.models import Game as GameRow
from tests.api.conftest import Player
from tests.engine.random_play import Game, deal_with_unseen, games, unseen_cards, with_unseen


def command_of(step_action: Any) -> dict[str, Any]:
    if isinstance(step_action, Deal):
        return {"type": "deal"}
    return {"type": "move", "card": card_code(step_action.card), "to": step_action.to}


def play_through_the_api(
    player: Player, deal: tuple[int, ...], commands: list[dict[str, Any]]
) -> str:
    game = player.new_game(code=format_deal_code(deal))
    for command in commands:
        response = player.command(game["id"], command)
        assert response.status_code == 200, response.content
    return str(game["id"])


@settings(
    max_examples=20,
    deadline=None,
    # One signed-up player serves every example: each example makes two games of its own.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(games(), st.data())
def test_the_hints_answer_never_depends_on_an_unseen_card(
    player: Player, game: Game, data: st.DataObject
) -> None:
    """Two games reach the same visible table, one with the face-down cards and the stock of
    the other shuffled: their hints answers are equal in every field."""
    played = data.draw(st.integers(0, len(game.steps)), label="actions played")
    position = game.positions[played]
    unseen = unseen_cards(position)
    order = data.draw(st.permutations(unseen), label="unseen cards reshuffled")
    assume(order != unseen)  # two unseen cards at least, in another order
    commands = [command_of(step.action) for step in game.steps[:played]]
    other_deal = deal_with_unseen(game.deal, position, order)

    # Each game is read while it is in play: the second, of the same kind, leaves the first
    # behind (abandoned) as it is created.
    ids, states, tables, answers = [], [], [], []
    for deal in (game.deal, other_deal):
        game_id = play_through_the_api(player, deal, commands)
        ids.append(game_id)
        states.append(GameRow.objects.get(pk=game_id).state["position"])
        tables.append(player.get(f"/api/v1/games/{game_id}/").json())
        answers.append(player.get(f"/api/v1/games/{game_id}/hints/"))

    # The server holds the two positions: the same visible table, different unseen cards.
    assert states == [position.to_dict(), with_unseen(position, order).to_dict()]
    visible = ("status", "version", "columns", "stock", "collected", "moves")
    assert [{key: table[key] for key in visible} for table in tables] == [
        {key: tables[0][key] for key in visible}
    ] * 2

    assert [answer.status_code for answer in answers] == [200, 200]
    assert answers[0].json() == answers[1].json()
    # Every field of the answer is covered: a new one must be proven blind to unseen cards too.
    assert set(answers[0].json()) == {"version", "moves", "deal"}
