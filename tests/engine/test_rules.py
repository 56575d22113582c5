"""One example per rule of docs/rules.md, named for the rule, on tables built by hand."""

from __future__ import annotations

import pytest

from games.engine.actions import DEAL, Collection, Flip, Move
from games.engine.cards import format_deal_code, parse_card
from games.engine.errors import DealCodeError, IllegalMoveError, StockEmptyError
from games.engine.legal import legal_actions, legal_moves, status
from games.engine.position import Position, deal_position, initial_position
from games.engine.resolve import resolve_move
from games.engine.transitions import play, undo
from tests.engine.tables import cards, pictures, run, table


def move(code: str, to: int) -> Move:
    return Move(parse_card(code), to)


def play_card(position: Position, code: str, to: int | None = None) -> Position:
    """Play the move of ``code`` as a player asks for it: by card, ``to`` only if given."""
    after, _ = play(position, resolve_move(position, parse_card(code), to))
    return after


def refusal(position: Position, code: str, to: int | None = None) -> str:
    with pytest.raises(IllegalMoveError) as refused:
        resolve_move(position, parse_card(code), to)
    return str(refused.value)


# --- Cards and deal --------------------------------------------------------------------------


def test_deal_lays_seven_columns_of_seven_with_twelve_face_down() -> None:
    start = initial_position(range(52))

    assert start.columns == tuple(tuple(range(first, first + 7)) for first in range(0, 49, 7))
    assert start.hidden == (3, 3, 3, 3, 0, 0, 0)
    assert sum(start.hidden) == 12
    assert start.stock == (49, 50, 51)
    assert start.collected == ()


def test_deal_code_lists_columns_bottom_to_top_then_the_stock_in_dealing_order() -> None:
    deck = list(range(51, -1, -1))

    start = deal_position(format_deal_code(deck))

    assert start == initial_position(deck)
    assert start.columns[0] == (51, 50, 49, 48, 47, 46, 45)
    assert start.stock == (2, 1, 0)


def test_a_deal_is_52_distinct_cards() -> None:
    with pytest.raises(DealCodeError):
        initial_position([0] * 52)
    with pytest.raises(DealCodeError):
        initial_position(range(51))


# --- Moves -----------------------------------------------------------------------------------


def test_move_carries_every_card_above_the_picked_card_in_whatever_order() -> None:
    position = table("9H", "5C 8H 2S 7D")

    assert pictures(play_card(position, "8H"))[:2] == ["9H 8H 2S 7D", "5C"]


def test_only_the_picked_card_is_checked() -> None:
    # 3C on top of 8H fits nowhere; only 8H has to fit.
    position = table("9H", "5C 8H 3C")

    assert legal_moves(position) == [move("8H", 0)]


def test_card_goes_only_on_its_same_suit_successor() -> None:
    position = table("9S", "9H", "7C", "8H")

    assert legal_moves(position) == [move("8H", 1)]
    assert refusal(position, "8H", 0) == "8H can only go on the exposed 9H, in column 1"
    assert refusal(position, "8H", 2) == "8H can only go on the exposed 9H, in column 1"


def test_card_goes_only_on_an_exposed_card() -> None:
    position = table("9H 4C", "8H")

    assert legal_moves(position) == []
    assert refusal(position, "8H") == "8H can only go on 9H, which is not exposed"


def test_face_down_card_cannot_be_picked() -> None:
    position = table("8H | 5C", "9H")

    assert legal_moves(position) == []
    assert refusal(position, "8H") == "8H is not face up on the table"


def test_ace_goes_on_its_two_and_nothing_goes_on_an_ace() -> None:
    # KS is the card just below AH in the card numbering: it must not go on AH.
    position = table("2S", "QC AS", "AH", "QD KS")

    assert move("AS", 0) in legal_moves(position)
    assert not [m for m in legal_moves(position) if m.to == 2]
    assert refusal(position, "KS", 2) == (
        "a King can only go to an empty column, and column 2 is not empty"
    )


def test_card_cannot_move_onto_its_own_column() -> None:
    position = table("8H 9H", "3C")

    assert legal_moves(position) == []
    assert refusal(position, "8H") == "8H can only go on 9H, which lies above it in its own column"
    assert refusal(position, "8H", 0) == "8H is already in column 0"


def test_non_king_is_named_by_its_card_alone() -> None:
    position = table("7D", "9H", "8H")

    assert resolve_move(position, parse_card("8H")) == move("8H", 1)
    assert resolve_move(position, parse_card("8H"), 1) == move("8H", 1)


def test_column_must_be_0_to_6() -> None:
    position = table("7D", "9H", "8H")

    assert refusal(position, "8H", 7) == "column must be 0-6, not 7"
    assert refusal(position, "8H", -1) == "column must be 0-6, not -1"


def test_the_column_a_card_is_picked_from_is_checked_as_in_every_variant() -> None:
    # One check for every variant: Scorpion's `from` was refused in words of its own, naming
    # where the card lies rather than the column asked for, and before `to` was checked.
    position = table("7D", "9H", "8H")

    assert resolve_move(position, parse_card("8H"), 1, source=2) == move("8H", 1)
    with pytest.raises(IllegalMoveError) as refused:
        resolve_move(position, parse_card("8H"), 1, source=0)
    assert str(refused.value) == "8H is not face up in column 0"
    assert refused.value.details == {"reason": "not_in_column", "card": "8H", "column": 1}
    with pytest.raises(IllegalMoveError) as refused:
        resolve_move(position, parse_card("8H"), 1, source=7)
    assert str(refused.value) == "the card must be picked from column 0-6, not 7"
    with pytest.raises(IllegalMoveError) as refused:
        resolve_move(position, parse_card("8H"), 9, source=0)
    assert str(refused.value) == "column must be 0-6, not 9"


def test_empty_column_takes_only_a_king() -> None:
    position = table("9H 8H", "", "4C KS")

    assert legal_moves(position) == [move("KS", 1)] + [move("KS", to) for to in (3, 4, 5, 6)]
    assert refusal(position, "8H", 1) == "only a King can go to an empty column, not 8H"


def test_king_carries_disordered_group_into_empty_column() -> None:
    position = table("5C KS 2D 9H", "")

    assert pictures(play_card(position, "KS", 1))[:2] == ["5C", "KS 2D 9H"]


def test_king_may_go_to_each_empty_column() -> None:
    position = table("5C KS", "", "", "7D", "", "", "")

    assert legal_moves(position) == [move("KS", to) for to in (1, 2, 4, 5, 6)]


def test_king_without_a_column_named_goes_to_the_leftmost_empty_column() -> None:
    position = table("5C KS", "7D", "", "", "8D", "", "")

    assert resolve_move(position, parse_card("KS")) == move("KS", 2)
    assert resolve_move(position, parse_card("KS"), 5) == move("KS", 5)


def test_king_goes_only_to_an_empty_column() -> None:
    position = table("5C KS", "7D", "")

    assert refusal(position, "KS", 1) == (
        "a King can only go to an empty column, and column 1 is not empty"
    )


def test_there_is_no_empty_column_for_a_king() -> None:
    position = table("5C KS", "7D", "8C", "9S", "TH", "JD", "QC")

    assert legal_moves(position) == []
    assert refusal(position, "KS") == "there is no empty column for KS"


def test_noop_king_moves_not_listed() -> None:
    position = table("KS 7D", "")

    assert legal_moves(position) == []
    assert refusal(position, "KS") == "KS already lies at the bottom of its column"
    assert refusal(position, "KS", 1) == "KS already lies at the bottom of its column"


def test_king_on_face_down_cards_is_not_at_the_bottom() -> None:
    position = table("3D 4D | KS", "")

    assert legal_moves(position) == [move("KS", to) for to in range(1, 7)]
    assert pictures(play_card(position, "KS"))[:2] == ["3D | 4D", "KS"]


# --- Deal ------------------------------------------------------------------------------------


def test_deal_puts_the_three_stock_cards_on_columns_0_1_2() -> None:
    position = table("5C", "6C", "7C", "8C", stock="2H 9S 4D")

    after, record = play(position, DEAL)

    assert pictures(after)[:4] == ["5C 2H", "6C 9S", "7C 4D", "8C"]
    assert after.stock == ()
    assert record.dealt == cards("2H 9S 4D")


def test_deal_onto_empty_columns() -> None:
    position = table("", "", "9C", "KH", stock="2H 3H 4H")

    after, _ = play(position, DEAL)

    assert pictures(after)[:4] == ["2H", "3H", "9C 4H", "KH"]


def test_deal_is_allowed_whatever_the_tableau_and_listed_after_the_moves() -> None:
    position = table("9H", "8H", "", stock="2C 3C 4C")

    assert legal_actions(position) == [move("8H", 0), DEAL]


def test_deal_only_once() -> None:
    after, _ = play(table("5C", stock="2H 9S 4D"), DEAL)

    assert DEAL not in legal_actions(after)
    with pytest.raises(StockEmptyError, match=r"^the stock has already been dealt$"):
        play(after, DEAL)


def test_deal_that_completes_a_run() -> None:
    position = table(run("S", "K", "2"), "5C", stock="AS 3H 4H")

    after, record = play(position, DEAL)

    assert pictures(after)[:3] == ["", "5C 3H", "4H"]
    assert after.collected == (0,)
    assert record.auto == (Collection(0, 0),)


# --- What happens by itself ------------------------------------------------------------------


def test_face_down_card_left_on_top_turns_face_up() -> None:
    position = table("4D 9C | 8H", "9H")

    after, record = play(position, move("8H", 1))

    assert pictures(after)[:2] == ["4D | 9C", "9H 8H"]
    assert record.auto == (Flip(0, parse_card("9C")),)


def test_run_completes_in_destination_column() -> None:
    position = table(run("H", "K", "2"), "5C AH")

    after, record = play(position, move("AH", 0))

    assert pictures(after)[:2] == ["", "5C"]
    assert after.collected == (1,)
    assert record.auto == (Collection(0, 1),)


def test_run_completes_in_source_column_when_cards_lifted_off() -> None:
    position = table(f"{run('H')} 5C", "6C")

    after, record = play(position, move("5C", 1))

    assert pictures(after)[:2] == ["", "6C 5C"]
    assert record.auto == (Collection(0, 1),)


def test_runs_complete_in_both_columns_of_one_move() -> None:
    position = table(f"{run('H')} 2S AS", run("S", "K", "3"))

    after, record = play(position, move("2S", 1))

    assert pictures(after)[:2] == ["", ""]
    assert after.collected == (1, 0)
    assert record.auto == (Collection(0, 1), Collection(1, 0))


def test_disordered_group_is_not_collected() -> None:
    # All thirteen hearts, King at the bottom and Ace on top, but 3H and 2H swapped.
    position = table("5C KH QH JH TH 9H 8H 7H 6H 5H 4H 2H 3H AH", "")

    after, record = play(position, move("KH", 1))

    assert pictures(after)[1] == "KH QH JH TH 9H 8H 7H 6H 5H 4H 2H 3H AH"
    assert after.collected == ()
    assert record.auto == ()


def test_run_over_a_face_down_king_is_not_collected() -> None:
    position = table(f"KS | {run('S', 'Q', '2')}", "7D AS")

    after, _ = play(position, move("AS", 0))

    assert after.collected == ()
    assert pictures(after)[0] == f"KS | {run('S', 'Q', 'A')}"


def test_automatic_steps_repeat_until_nothing_changes() -> None:
    position = table(f"9C | {run('D', 'K', '2')}", "AD")

    after, record = play(position, move("AD", 0))

    assert pictures(after)[:2] == ["9C", ""]
    assert record.auto == (Collection(0, 2), Flip(0, parse_card("9C")))


# --- End of the game -------------------------------------------------------------------------


def test_won_when_all_four_suits_are_collected() -> None:
    position = table(run("C", "K", "2"), "AC", collected="SHD")

    assert status(position) == "playing"
    after = play_card(position, "AC")
    assert status(after) == "won"
    assert after.collected == (0, 1, 2, 3)
    assert after.columns == ((),) * 7


def test_stuck_only_after_stock_dealt() -> None:
    position = table("5C", "7D", stock="2H 9S 4D")

    assert legal_moves(position) == []
    assert status(position) == "playing"
    after, _ = play(position, DEAL)
    assert legal_actions(after) == []
    assert status(after) == "stuck"


def test_noop_king_move_does_not_count_against_stuck() -> None:
    assert status(table("KS QS", "")) == "stuck"


def test_playing_while_a_move_remains() -> None:
    assert status(table("9H", "8H")) == "playing"


# --- Undo ------------------------------------------------------------------------------------


def test_undo_restores_hidden_card() -> None:
    position = table("4D 9C | 8H", "9H")
    after, record = play(position, move("8H", 1))

    assert undo(after, record) == position


def test_undo_restores_collected_run() -> None:
    position = table(f"9C | {run('D', 'K', '2')}", "AD", collected="S")
    after, record = play(position, move("AD", 0))

    assert undo(after, record) == position


def test_undo_restores_both_runs_of_one_move_in_order() -> None:
    position = table(f"{run('H')} 2S AS", run("S", "K", "3"))
    after, record = play(position, move("2S", 1))

    assert undo(after, record) == position


def test_undo_of_deal_returns_cards_to_stock() -> None:
    position = table("5C", "", "7C", stock="2H 9S 4D")
    after, record = play(position, DEAL)

    assert undo(after, record) == position


def test_undo_of_deal_that_completed_a_run() -> None:
    position = table(f"9C 8C | {run('S', 'K', '2')}", "5C", stock="AS 3H 4H")
    after, record = play(position, DEAL)

    assert pictures(after)[0] == "9C | 8C"
    assert undo(after, record) == position
