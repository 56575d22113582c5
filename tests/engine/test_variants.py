"""The Scorpion family: each variant's layout and rules (docs/rules.md, "The Scorpion family")."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.engine import deals
from games.engine.actions import DEAL, Collection, Move, Record
from games.engine.cards import SUITS, parse_card
from games.engine.errors import DealCodeError, IllegalMoveError, UnknownVariantError
from games.engine.legal import legal_moves, status
from games.engine.position import Position, deal_position, player_view
from games.engine.resolve import copy_of, resolve_move
from games.engine.transitions import apply, play, replay, undo
from games.engine.variants import (
    DOUBLE_SCORPION,
    DOUBLE_SCORPION_3_2,
    OFFERED_VARIANTS,
    SCORPION,
    SCORPION_TAIL,
    THREE_BLIND_MICE,
    VARIANTS,
    WASP,
    WASP_II,
    Variant,
    deal_code_for_seed,
    format_deal_code,
    get_variant,
    parse_deal_code,
)


def card(code: str) -> int:
    """A card of a test table: ``"9H"``, or ``"9H'"`` for the second copy (two decks)."""
    if code.endswith("'"):
        return parse_card(code[:-1]) + 52
    return parse_card(code)


def vtable(
    variant: Variant,
    *columns: str,
    stock: str = "",
    reserve: str = "",
    collected: str = "",
) -> Position:
    """A position of ``variant`` from column pictures (face-down cards before a ``|``)."""
    pictures = list(columns) + [""] * (variant.column_count - len(columns))
    parsed = [picture.split("|") if "|" in picture else ["", picture] for picture in pictures]
    return Position(
        columns=tuple(
            tuple(card(code) for code in (down + " " + up).split()) for down, up in parsed
        ),
        hidden=tuple(len(down.split()) for down, _ in parsed),
        stock=tuple(card(code) for code in stock.split()),
        collected=tuple(SUITS.index(suit) for suit in collected),
        reserve=tuple(card(code) for code in reserve.split()),
        variant=variant,
    )


def refusal(position: Position, code: str, to: int | None = None, source: int | None = None):
    with pytest.raises(IllegalMoveError) as refused:
        resolve_move(position, parse_card(code), to, source)
    return refused.value


# --- The registry and the deals ------------------------------------------------------------


def test_the_family_has_six_variants_offered_and_one_kept_known_by_their_slugs() -> None:
    assert list(VARIANTS) == [
        "scorpion",
        "wasp",
        "wasp-ii",
        "scorpion-tail",
        "three-blind-mice",
        "double-scorpion",
        "double-scorpion-3-2",
    ]
    assert list(OFFERED_VARIANTS) == list(VARIANTS)[:-1]
    assert get_variant("wasp") is WASP
    assert get_variant("scorpion") is SCORPION
    assert get_variant("double-scorpion-3-2") is DOUBLE_SCORPION_3_2


def test_wasp_is_dealt_as_pysolfc_3_4_deals_it_with_scorpions_face_down_cards() -> None:
    # PySolFC 3.4.0 (commit 12118d12): Wasp as Scorpion, columns 1-4 three face down each.
    position = deal_position(deal_code_for_seed(3, WASP), WASP)
    assert position.hidden == (3, 3, 3, 3, 0, 0, 0)
    assert tuple(len(column) for column in position.columns) == (7,) * 7
    assert len(position.stock) == 3
    # The layout Wasp had up to 3.2.0 is PySolFC's Wasp II: face down in columns 1-3 only.
    old = deal_position(deal_code_for_seed(3, WASP_II), WASP_II)
    assert old.hidden == (3, 3, 3, 0, 0, 0, 0)
    assert old.columns == position.columns
    assert WASP_II.empty_column == WASP.empty_column == "any"


def test_double_scorpion_is_ten_by_ten_with_a_stock_of_four_dealt_onto_columns_1_to_4() -> None:
    code = deal_code_for_seed(0, DOUBLE_SCORPION)
    cards = parse_deal_code(code, DOUBLE_SCORPION)
    position = deal_position(code, DOUBLE_SCORPION)
    assert tuple(len(column) for column in position.columns) == (10,) * 10
    assert position.hidden == (4,) * 5 + (0,) * 5
    assert position.stock == cards[100:]
    after, record = play(position, DEAL)
    assert record.dealt == cards[100:]
    assert [column[-1] for column in after.columns[:4]] == list(cards[100:])
    assert after.columns[4:] == position.columns[4:]
    assert not after.stock
    # Dealing it at once lays out the table Double Scorpion had up to PySolFC 3.2.0 (kept as
    # double-scorpion-3-2 for the games begun in it): the same cards in the same places.
    old = deal_position(
        format_deal_code(
            [card for column in after.columns for card in column], DOUBLE_SCORPION_3_2
        ),
        DOUBLE_SCORPION_3_2,
    )
    assert [[c % 52 for c in column] for column in old.columns] == [
        [c % 52 for c in column] for column in after.columns
    ]
    assert old.hidden == after.hidden
    assert not old.stock


def test_an_unknown_variant_is_refused_with_the_known_names() -> None:
    with pytest.raises(UnknownVariantError) as refused:
        get_variant("tarantula")
    assert (
        "scorpion, wasp, wasp-ii, scorpion-tail, three-blind-mice, double-scorpion, "
        "double-scorpion-3-2" in str(refused.value)
    )
    assert refused.value.details["reason"] == "unknown_variant"
    assert refused.value.code == "validation_error"


def test_variants_compare_by_identity_so_positions_hash_fast() -> None:
    assert WASP != SCORPION
    assert hash(WASP) == object.__hash__(WASP)


@pytest.mark.parametrize("seed", [0, 1, 7908, 2**63 - 1])
def test_scorpion_deal_codes_are_unchanged(seed: int) -> None:
    assert deal_code_for_seed(seed) == deals.deal_code_for_seed(seed)
    assert deal_code_for_seed(seed, SCORPION) == deals.deal_code_for_seed(seed)


def test_a_scorpion_position_is_stored_exactly_as_before() -> None:
    position = deal_position(deal_code_for_seed(5))
    assert set(position.to_dict()) == {"columns", "stock", "collected"}
    assert set(player_view(position)) == {"columns", "stock", "collected"}


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=list(VARIANTS))
def test_every_variant_deals_its_layout(variant: Variant) -> None:
    position = deal_position(deal_code_for_seed(3, variant), variant)
    assert tuple(len(column) for column in position.columns) == variant.column_sizes
    assert position.hidden == variant.hidden
    assert len(position.stock) == variant.stock_size
    assert len(position.reserve) == variant.reserve_size
    assert position.variant is variant
    assert Position.from_dict(position.to_dict()) == position


def test_one_deck_variants_read_the_scorpion_shuffle_with_their_own_layout() -> None:
    code = deal_code_for_seed(11, THREE_BLIND_MICE)
    assert code == deals.deal_code_for_seed(11)
    position = deal_position(code, THREE_BLIND_MICE)
    assert position.columns[0] == parse_deal_code(code)[:5]
    assert position.reserve == parse_deal_code(code)[50:]


def test_a_two_deck_deal_code_is_104_cards_each_face_twice() -> None:
    code = deal_code_for_seed(0, DOUBLE_SCORPION)
    assert len(code) == 208
    cards = parse_deal_code(code, DOUBLE_SCORPION)
    assert sorted(cards) == list(range(104))
    first = code[:2]
    assert cards[0] == parse_card(first)
    second = next(index for index in range(1, 104) if code[2 * index : 2 * index + 2] == first)
    assert cards[second] == parse_card(first) + 52
    assert format_deal_code(cards, DOUBLE_SCORPION) == code
    assert deal_code_for_seed(0, DOUBLE_SCORPION) != deal_code_for_seed(1, DOUBLE_SCORPION)


def test_a_two_deck_deal_code_with_a_card_three_times_is_refused() -> None:
    code = "AS" * 3 + deal_code_for_seed(0, DOUBLE_SCORPION)[6:]
    with pytest.raises(DealCodeError, match="AS appears more than 2 times"):
        parse_deal_code(code, DOUBLE_SCORPION)
    with pytest.raises(DealCodeError, match="208 characters"):
        parse_deal_code(deal_code_for_seed(0), DOUBLE_SCORPION)


# --- Wasp -------------------------------------------------------------------------------------


def test_wasp_lets_any_card_fill_an_empty_column() -> None:
    position = vtable(WASP, "9H 3D 8C", "")
    assert Move(parse_card("3D"), 1) in legal_moves(position)
    after, _ = play(position, resolve_move(position, parse_card("3D"), 1))
    assert after.columns[1] == (parse_card("3D"), parse_card("8C"))


def test_wasp_moves_a_card_with_no_place_to_go_into_an_empty_column_when_no_column_is_named() -> (
    None
):
    position = vtable(WASP, "9H 3D", "")
    assert resolve_move(position, parse_card("3D")) == Move(parse_card("3D"), 1)


def test_scorpion_still_refuses_a_non_king_in_an_empty_column() -> None:
    assert refusal(vtable(SCORPION, "9H 3D", ""), "3D", 1).details["reason"] == "not_a_king"


def test_wasp_does_not_move_a_whole_column_to_an_empty_one() -> None:
    position = vtable(WASP, "3D 8C", "")
    assert refusal(position, "3D", 1).details["reason"] == "already_at_bottom"
    assert all(move.card != parse_card("3D") for move in legal_moves(position))


# --- Scorpion Tail ----------------------------------------------------------------------------


def test_scorpion_tail_builds_down_in_alternate_colours() -> None:
    position = vtable(SCORPION_TAIL, "9S", "9C", "4D 8H 2C")
    moves = legal_moves(position)
    assert Move(parse_card("8H"), 0) in moves
    assert Move(parse_card("8H"), 1) in moves
    assert resolve_move(position, parse_card("8H"), 1) == Move(parse_card("8H"), 1)


def test_scorpion_tail_refuses_the_same_colour() -> None:
    position = vtable(SCORPION_TAIL, "9H", "4D 8D")
    refused = refusal(position, "8D", 0)
    assert refused.details["reason"] == "wrong_column" or refused.details["reason"] == (
        "onto_not_exposed"
    )
    assert str(refused) == "8D can only go on 9S or 9C, which is not exposed"
    assert refused.details["onto"] == ["9S", "9C"]


def test_scorpion_tail_collects_an_alternating_king_to_ace_run() -> None:
    run = "KS QH JC TD 9S 8H 7C 6D 5S 4H 3C 2D"
    position = vtable(SCORPION_TAIL, run, "5C AS")
    after, record = play(position, resolve_move(position, parse_card("AS"), 0))
    assert after.columns[0] == ()
    assert after.collected == (0,)
    [step] = record.auto
    assert isinstance(step, Collection)
    assert len(step.cards) == 13
    assert undo(after, record) == position


# --- Three Blind Mice -------------------------------------------------------------------------


def test_three_blind_mice_plays_a_reserve_card_onto_the_table_and_undo_puts_it_back() -> None:
    position = vtable(THREE_BLIND_MICE, "9H", reserve="KC 8H")
    move = resolve_move(position, parse_card("8H"), 0)
    after, record = play(position, move)
    assert after.reserve == (parse_card("KC"),)
    assert after.columns[0] == (parse_card("9H"), parse_card("8H"))
    assert record.from_col == 11  # reserve slot 2, numbered after the ten columns
    assert undo(after, record) == position
    assert replay(position, record) == after


def test_a_three_blind_mice_reserve_king_may_go_to_an_empty_column() -> None:
    position = vtable(THREE_BLIND_MICE, "9H", reserve="KC")
    assert Move(parse_card("KC"), 1) in legal_moves(position)
    assert "reserve" in player_view(position)
    assert player_view(position)["reserve"] == ["KC"]


def test_three_blind_mice_has_no_stock_to_deal() -> None:
    position = deal_position(deal_code_for_seed(0, THREE_BLIND_MICE), THREE_BLIND_MICE)
    assert position.stock == ()
    assert position.hidden == (0,) * 7 + (3, 3, 3)


# --- Double Scorpion --------------------------------------------------------------------------


def test_double_scorpion_builds_on_either_copy_of_the_next_card() -> None:
    position = vtable(DOUBLE_SCORPION, "9H", "9H'", "4D 8H")
    moves = legal_moves(position)
    assert Move(parse_card("8H"), 0) in moves
    assert Move(parse_card("8H"), 1) in moves


def test_two_copies_that_can_both_move_need_the_source_column() -> None:
    position = vtable(DOUBLE_SCORPION, "9H", "4D 8H", "5C 8H'")
    refused = refusal(position, "8H", 0)
    assert refused.details == {"reason": "ambiguous", "card": "8H", "columns": [2, 3]}
    move = resolve_move(position, parse_card("8H"), 0, source=2)
    assert move == Move(parse_card("8H") + 52, 0)
    after, record = play(position, move)
    assert record.card == parse_card("8H") + 52
    assert record.to_dict()["ids"] == [parse_card("8H") + 52]
    assert undo(after, type(record).from_dict(record.to_dict())) == position


def test_only_one_copy_that_can_move_is_not_ambiguous() -> None:
    position = vtable(DOUBLE_SCORPION, "9H", "4D 8H", "8H' | 3C")
    assert resolve_move(position, parse_card("8H"), 0) == Move(parse_card("8H"), 0)


def test_double_scorpion_is_won_with_eight_runs() -> None:
    run = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
    position = vtable(DOUBLE_SCORPION, run, "3D AS'", collected="SHHDDCC")
    after, record = play(position, resolve_move(position, parse_card("AS"), 0))
    assert after.collected == (0, 1, 1, 2, 2, 3, 3, 0)
    assert status(after) == "won"
    assert undo(after, record) == position


def test_collected_cards_of_one_copy_leave_the_other_copy_playable() -> None:
    position = vtable(DOUBLE_SCORPION, "9H'", "4D 8H'", collected="H")
    assert resolve_move(position, parse_card("8H"), 0) == Move(parse_card("8H") + 52, 0)


def test_a_move_is_refused_only_in_words_about_the_face() -> None:
    position = vtable(DOUBLE_SCORPION, "9H", "4D 8H' 3C")
    moved, _ = apply(position, Move(parse_card("8H") + 52, 0))
    assert player_view(moved)["columns"][0]["cards"] == ["9H", "8H", "3C"]


def test_two_deck_seeds_match_the_golden_vectors_of_the_docs() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "deals.md").read_text()
    for seed in (0, 42):
        assert (
            f"| double-scorpion | {seed} | `{deal_code_for_seed(seed, DOUBLE_SCORPION)}` |" in text
        )


def test_either_face_up_copy_in_one_column_moves_as_in_pysolfc() -> None:
    position = vtable(DOUBLE_SCORPION, "9H", "4D 8H 3C 8H'")
    lower, upper = Move(parse_card("8H"), 0), Move(parse_card("8H") + 52, 0)
    assert [move for move in legal_moves(position) if move.to == 0] == [lower, upper]
    # The column names the upper copy; ``copy`` names either.
    assert resolve_move(position, parse_card("8H"), 0, source=1) == upper
    assert resolve_move(position, parse_card("8H"), 0, 1, "upper") == upper
    assert resolve_move(position, parse_card("8H"), 0, 1, "lower") == lower
    assert resolve_move(position, parse_card("8H"), None, None, "lower") == lower
    after, record = play(position, lower)
    assert record.count == 3
    assert player_view(after)["columns"][0]["cards"] == ["9H", "8H", "3C", "8H"]
    assert player_view(after)["columns"][1]["cards"] == ["4D"]
    assert undo(after, record) == position
    assert replay(position, Record.from_dict(record.to_dict())) == after
    assert copy_of(position, parse_card("8H")) == "lower"
    assert copy_of(position, parse_card("8H") + 52) == "upper"
    assert copy_of(position, parse_card("3C")) is None


def test_a_lone_copy_has_no_lower_copy_to_name() -> None:
    position = vtable(DOUBLE_SCORPION, "9H", "4D 8H 3C")
    assert resolve_move(position, parse_card("8H"), 0, 1, "upper") == Move(parse_card("8H"), 0)
    with pytest.raises(IllegalMoveError) as refused:
        resolve_move(position, parse_card("8H"), 0, 1, "lower")
    assert refused.value.details["reason"] == "no_lower_copy"


def test_games_begun_in_double_scorpion_3_2_keep_only_the_upper_copy_moving() -> None:
    position = vtable(DOUBLE_SCORPION_3_2, "9H", "4D 8H 3C 8H'")
    assert [move for move in legal_moves(position) if move.to == 0] == [
        Move(parse_card("8H") + 52, 0)
    ]
    assert resolve_move(position, parse_card("8H"), 0, source=1) == Move(parse_card("8H") + 52, 0)
    with pytest.raises(IllegalMoveError) as refused:
        resolve_move(position, parse_card("8H"), 0, 1, "lower")
    assert refused.value.details["reason"] == "upper_copy_only"
    # The exact lower card asked for is refused too, in words about the face.
    with pytest.raises(IllegalMoveError):
        play(position, Move(parse_card("8H"), 0))
