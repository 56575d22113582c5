"""Hints: every legal action, best first, from what the player can see."""

from __future__ import annotations

from games.engine.actions import DEAL, Action, Move
from games.engine.cards import parse_card
from games.engine.deals import deal_code_for_seed
from games.engine.hints import Hint, ranked_hints
from games.engine.legal import legal_actions
from games.engine.position import Position, deal_position
from tests.engine.tables import run, table


def move(code: str, to: int) -> Move:
    return Move(parse_card(code), to)


def ranking(position: Position) -> list[Action]:
    return [hint.action for hint in ranked_hints(position)]


def test_hints_list_every_legal_action_once() -> None:
    position = table("4D 9C | 8H", "9H", "5S", "6S", "3C KD", "", "QH", stock="2C 7C 8C")

    assert sorted(map(repr, ranking(position))) == sorted(map(repr, legal_actions(position)))


def test_turning_a_face_down_card_up_ranks_above_a_plain_move() -> None:
    position = table("5S", "6S", "4D 9C | 8H", "9H")

    assert ranking(position) == [move("8H", 3), move("5S", 1)]


def test_digging_into_the_column_that_hides_more_ranks_first() -> None:
    position = table("4D | 8H", "9H", "4C 5C 2D | 5S", "6S")

    assert ranking(position) == [move("5S", 3), move("8H", 1)]


def test_completing_a_run_ranks_above_everything() -> None:
    position = table("4D 9C | 8H", "9H", run("S", "K", "2"), "7D AS")

    assert ranking(position)[0] == move("AS", 2)
    assert "completes the run of spades" in ranked_hints(position)[0].reason


def test_emptying_a_column_ranks_above_a_plain_move() -> None:
    position = table("4D 5S", "6S", "8H", "7C 9H")

    assert ranking(position) == [move("8H", 3), move("5S", 1)]


def test_deal_ranks_last() -> None:
    position = table("5S", "6S", stock="2C 7C 8C")

    assert ranking(position) == [move("5S", 1), DEAL]


def test_king_carrying_more_cards_in_order_ranks_higher() -> None:
    position = table("3C KD 9S", "4C KH QH JH", "", "5C 6C 7C 8C")

    empty_columns = (2, 4, 5, 6)
    assert ranking(position) == [move("KH", to) for to in empty_columns] + [
        move("KD", to) for to in empty_columns
    ]


def test_hints_never_depend_on_face_down_cards_or_the_stock() -> None:
    seen = table("4D 9C | 8H", "9H", "5S", "6S", "3C KD", "", stock="2C 7C 8C")
    differently_hidden = table("7C 2C | 8H", "9H", "5S", "6S", "3C KD", "", stock="9C 8C 4D")

    assert [hint.to_dict() for hint in ranked_hints(seen)] == [
        hint.to_dict() for hint in ranked_hints(differently_hidden)
    ]


def test_hint_to_dict() -> None:
    assert Hint(move("8H", 3), 1010, "turns a face-down card face up").to_dict() == {
        "type": "move",
        "card": "8H",
        "to": 3,
        "reason": "turns a face-down card face up",
        "details": [],
    }
    assert Hint(DEAL, -1, "deal").to_dict() == {"type": "deal", "reason": "deal", "details": []}


def test_hint_details_say_the_reason_with_columns_numbered_1_to_7() -> None:
    for seed in range(20):
        for hint in ranked_hints(deal_position(deal_code_for_seed(seed))):
            words = hint.reason.split("; ")
            assert len(hint.details) == len(words), hint
            for detail, said in zip(hint.details, words, strict=True):
                if "column" in detail and detail["reason"] != "frees":
                    assert f"column {detail['column'] - 1}" in said
                if detail["reason"] == "frees":
                    assert f"frees {detail['card']}" in said


def test_the_deal_hint_names_the_columns_the_stock_goes_to() -> None:
    # Double Scorpion's stock of four goes onto columns 0-3 (PySolFC 3.4.0+), Scorpion's three
    # onto columns 0-2, as the hint has always said.
    from games.engine.position import deal_position
    from games.engine.variants import DOUBLE_SCORPION, deal_code_for_seed

    double = deal_position(deal_code_for_seed(0, DOUBLE_SCORPION), DOUBLE_SCORPION)
    (deal,) = [hint for hint in ranked_hints(double) if hint.action == DEAL]
    assert deal.reason == "deal the four stock cards onto columns 0, 1, 2 and 3"
    assert deal.details == ({"reason": "deal", "columns": [1, 2, 3, 4]},)
    scorpion = deal_position(deal_code_for_seed(0))
    (deal,) = [hint for hint in ranked_hints(scorpion) if hint.action == DEAL]
    assert deal.reason == "deal the three stock cards onto columns 0, 1 and 2"
    assert deal.details == ({"reason": "deal", "columns": [1, 2, 3]},)
