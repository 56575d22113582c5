"""Nothing the player cannot see leaks: not through errors, not through the player's view."""

from __future__ import annotations

import pytest

from games.engine.cards import parse_card
from games.engine.errors import EngineError, IllegalMoveError
from games.engine.position import Position, player_view
from games.engine.resolve import resolve_move
from tests.engine.tables import table


def refusal(position: Position, code: str, to: int | None = None) -> str:
    with pytest.raises(IllegalMoveError) as refused:
        resolve_move(position, parse_card(code), to)
    return str(refused.value)


def test_face_down_and_stock_cards_give_the_same_error() -> None:
    position = table("8H 3D | 5C", "9H", stock="8S 2D 4D")

    face_down = refusal(position, "8H")
    in_stock = refusal(position, "8S")

    assert face_down == "8H is not face up on the table"
    assert in_stock == face_down.replace("8H", "8S")


@pytest.mark.parametrize(
    "position",
    [
        pytest.param(table("9H 3D | 5C", "8H"), id="successor-face-down"),
        pytest.param(table("3D", "8H", stock="9H 2C 4D"), id="successor-in-stock"),
        pytest.param(table("9H 3D", "8H"), id="successor-covered"),
    ],
)
def test_unexposed_successor_gives_the_same_error_wherever_it_lies(position: Position) -> None:
    assert refusal(position, "8H") == "8H can only go on 9H, which is not exposed"
    assert refusal(position, "8H", 0) == "8H can only go on 9H, which is not exposed"


def test_cards_of_a_collected_suit_are_named_as_collected() -> None:
    position = table("9S", collected="H")

    assert refusal(position, "8H") == "8H has already been collected"


def test_engine_errors_carry_their_api_code() -> None:
    with pytest.raises(EngineError) as refused:
        resolve_move(table("8H"), parse_card("8H"))

    assert refused.value.code == "illegal_move"


def test_player_view_shows_face_up_cards_and_counts_only() -> None:
    position = table("4D 9C | 8H 3S", "", "KH", stock="2H 9S 4C", collected="C")

    assert player_view(position) == {
        "columns": [
            {"hidden": 2, "cards": ["8H", "3S"]},
            {"hidden": 0, "cards": []},
            {"hidden": 0, "cards": ["KH"]},
        ]
        + [{"hidden": 0, "cards": []}] * 4,
        "stock": 3,
        "collected": ["C"],
    }
