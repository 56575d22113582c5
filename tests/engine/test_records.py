"""Records and positions as stored: their JSON shapes, round trips, and replay."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.engine.actions import DEAL, Move, Record
from games.engine.cards import parse_card
from games.engine.errors import IllegalMoveError
from games.engine.position import Position, initial_position
from games.engine.transitions import play, replay, undo
from tests.engine.tables import run, table


def test_move_record_to_dict() -> None:
    position = table("4D 9C | 8H 3S", "9H")

    _, record = play(position, Move(parse_card("8H"), 1))

    assert record.to_dict() == {
        "type": "move",
        "card": "8H",
        "from": 0,
        "to": 1,
        "count": 2,
        "dealt": [],
        "flipped": [{"column": 0, "card": "9C"}],
        "collected": [],
        "auto": [{"step": "flip", "column": 0, "card": "9C"}],
    }


def test_deal_record_to_dict_keeps_the_order_of_automatic_steps() -> None:
    position = table(f"9C 8C | {run('S', 'K', '2')}", stock="AS 3H 4H")

    _, record = play(position, DEAL)

    assert record.to_dict() == {
        "type": "deal",
        "card": None,
        "from": None,
        "to": None,
        "count": 3,
        "dealt": ["AS", "3H", "4H"],
        "flipped": [{"column": 0, "card": "8C"}],
        "collected": [{"column": 0, "suit": "S"}],
        "auto": [
            {"step": "collect", "column": 0, "suit": "S"},
            {"step": "flip", "column": 0, "card": "8C"},
        ],
    }


def test_record_round_trips_through_json() -> None:
    position = table(f"9C 8C | {run('S', 'K', '2')}", stock="AS 3H 4H")
    _, record = play(position, DEAL)

    assert Record.from_dict(json.loads(json.dumps(record.to_dict()))) == record


def test_position_to_dict_holds_every_card_for_the_server() -> None:
    position = initial_position(range(52))

    stored = position.to_dict()

    assert stored["columns"][0] == {
        "hidden": 3,
        "cards": ["AS", "2S", "3S", "4S", "5S", "6S", "7S"],
    }
    assert stored["stock"] == ["JC", "QC", "KC"]
    assert stored["collected"] == []
    assert Position.from_dict(json.loads(json.dumps(stored))) == position


def _stored(**changes: Any) -> dict[str, Any]:
    stored = initial_position(range(52)).to_dict()
    stored.update(changes)
    return stored


@pytest.mark.parametrize(
    ("stored", "problem"),
    [
        pytest.param(
            _stored(stock=["JC", "QC"]), "the stock holds 3 cards or none", id="short-stock"
        ),
        pytest.param(_stored(stock=["JC", "QC", "JC"]), "exactly once", id="a-card-twice"),
        pytest.param(_stored(collected=["C"]), "exactly once", id="collected-suit-on-table"),
        pytest.param(
            _stored(columns=[{"hidden": 3, "cards": ["AS", "2S", "3S", "4S", "5S", "6S", "7S"]}]),
            "a position has 7 columns",
            id="one-column",
        ),
    ],
)
def test_position_from_dict_refuses_what_no_game_can_reach(
    stored: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        Position.from_dict(stored)


def test_position_from_dict_refuses_a_face_down_card_on_top() -> None:
    stored = initial_position(range(52)).to_dict()
    stored["columns"][4]["hidden"] = 7

    with pytest.raises(ValueError, match="column 4 cannot have 7 face-down cards"):
        Position.from_dict(stored)


def test_replay_does_what_the_record_says() -> None:
    position = table("4D 9C | 8H", "9H")
    after, record = play(position, Move(parse_card("8H"), 1))

    assert replay(position, record) == after


def test_replay_refuses_a_record_of_another_position() -> None:
    _, record = play(table("4D 9C | 8H", "9H"), Move(parse_card("8H"), 1))

    with pytest.raises(ValueError, match="does not fit"):
        replay(table("4D 3C | 8H", "9H"), record)
    with pytest.raises(IllegalMoveError):
        replay(table("9H 8H"), record)


def test_undo_refuses_a_record_of_another_position() -> None:
    _, record = play(table("4D 9C | 8H", "9H"), Move(parse_card("8H"), 1))

    with pytest.raises(ValueError, match="does not fit"):
        undo(table("9H 7C"), record)


def _two_runs_at_once() -> Position:
    """A move of AH from column 4 (index 3) onto column 1's KH..2H completes hearts there and
    uncovers a complete spade run under it in column 4: one action, two runs."""
    return table(run("H", "K", "2"), "", "", f"{run('S')} AH")


def test_runs_collected_by_one_action_are_listed_in_column_order() -> None:
    position = _two_runs_at_once()
    after, record = play(position, Move(parse_card("AH"), 0))

    # PySolFC's order: the leftmost column's run first, whichever the card left.
    assert [(step.column, step.suit) for step in record.collected] == [(0, 1), (3, 0)]
    assert after.collected == (1, 0)
    assert undo(after, record) == position


def test_a_record_stored_with_the_source_run_first_replays_to_the_state_it_had() -> None:
    position = _two_runs_at_once()
    after, record = play(position, Move(parse_card("AH"), 0))
    stored = record.to_dict()
    # As this service recorded it before runs were listed in column order: the source first.
    stored["auto"] = list(reversed(stored["auto"]))
    stored["collected"] = list(reversed(stored["collected"]))
    old = Record.from_dict(stored)

    then = replay(position, old)

    assert then.collected == (0, 1)  # the order the game had then
    assert then.columns == after.columns
    assert then.hidden == after.hidden
    assert undo(then, old) == position
    # Steps that are not the same steps still do not fit.
    stored["auto"] = stored["auto"][:1]
    with pytest.raises(ValueError, match="does not fit"):
        replay(position, Record.from_dict(stored))
