"""Properties that hold for every deal and every line of legal play (games drawn as
``tests.engine.random_play`` describes)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from games.engine.actions import DEAL, Deal, Move, Record
from games.engine.cards import DECK_SIZE, card_code
from games.engine.errors import IllegalMoveError
from games.engine.hints import ranked_hints
from games.engine.legal import legal_actions, status
from games.engine.position import COLUMN_COUNT, Position, player_view
from games.engine.resolve import resolve_move
from games.engine.transitions import apply, completed_suit, play, replay, undo
from tests.engine.random_play import Game, games, unseen_cards, with_unseen

PROPERTY_SETTINGS = settings(max_examples=60, deadline=None)


@PROPERTY_SETTINGS
@given(games())
def test_every_position_holds_52_cards_with_face_down_cards_as_a_prefix(game: Game) -> None:
    for position in game.positions:
        on_table = [card for column in position.columns for card in column]
        collected = [suit * 13 + rank for suit in position.collected for rank in range(13)]
        assert sorted(on_table + list(position.stock) + collected) == list(range(DECK_SIZE))
        assert len(position.columns) == len(position.hidden) == COLUMN_COUNT
        for column, hidden in zip(position.columns, position.hidden, strict=True):
            assert 0 <= hidden <= len(column)
            assert hidden < len(column) or not column, "a face-down card is never left on top"
            assert completed_suit(column[hidden:]) is None, "a complete run never stays"
        assert len(position.stock) in (0, 3)


@PROPERTY_SETTINGS
@given(games())
def test_undo_restores_the_position_exactly(game: Game) -> None:
    for step in game.steps:
        assert undo(step.after, step.record) == step.before


@PROPERTY_SETTINGS
@given(games())
def test_replaying_all_records_from_the_deal_reproduces_the_position(game: Game) -> None:
    position = game.start
    for step in game.steps:
        position = replay(position, step.record)
        assert position == step.after


@PROPERTY_SETTINGS
@given(games())
def test_records_round_trip_through_json(game: Game) -> None:
    for step in game.steps:
        stored = json.loads(json.dumps(step.record.to_dict()))
        assert Record.from_dict(stored) == step.record


@PROPERTY_SETTINGS
@given(games())
def test_positions_round_trip_through_json(game: Game) -> None:
    for position in game.positions:
        assert Position.from_dict(json.loads(json.dumps(position.to_dict()))) == position


@PROPERTY_SETTINGS
@given(games())
def test_player_view_never_shows_a_face_down_or_stock_card(game: Game) -> None:
    for position in game.positions:
        view = player_view(position)
        shown = [code for column in view["columns"] for code in column["cards"]]
        assert not set(shown) & {card_code(card) for card in unseen_cards(position)}
        face_up = [
            c
            for column, h in zip(position.columns, position.hidden, strict=True)
            for c in column[h:]
        ]
        assert shown == [card_code(card) for card in face_up]
        assert [column["hidden"] for column in view["columns"]] == list(position.hidden)
        assert view["stock"] == len(position.stock)


@PROPERTY_SETTINGS
@given(games())
def test_won_exactly_when_four_suits_are_collected(game: Game) -> None:
    for position in game.positions:
        assert (status(position) == "won") == (len(position.collected) == 4)


@PROPERTY_SETTINGS
@given(games())
def test_stuck_only_when_the_stock_is_dealt_and_no_move_is_left(game: Game) -> None:
    for position in game.positions:
        if status(position) == "stuck":
            assert position.stock == ()
            assert legal_actions(position) == []
        if status(position) == "playing":
            assert legal_actions(position)


@PROPERTY_SETTINGS
@given(games(), st.data())
def test_legal_actions_are_exactly_what_the_rules_accept(game: Game, data: st.DataObject) -> None:
    position = data.draw(st.sampled_from(game.positions))
    actions = legal_actions(position)
    assert len(set(actions)) == len(actions)
    assert (DEAL in actions) == bool(position.stock)
    for action in actions:
        after, record = play(position, action)
        assert after != position, "a listed action always changes something"
        assert (after, record) == apply(position, action)
    accepted = set()
    for card in range(DECK_SIZE):
        for to in [None, *range(COLUMN_COUNT)]:
            try:
                move = resolve_move(position, card, to)
            except IllegalMoveError:
                continue
            assert to is None or move.to == to
            accepted.add(move)
    assert accepted == {action for action in actions if isinstance(action, Move)}


@PROPERTY_SETTINGS
@given(games(), st.data())
def test_errors_about_unseen_cards_never_say_where_they_are(
    game: Game, data: st.DataObject
) -> None:
    position = data.draw(st.sampled_from(game.positions))
    for card in unseen_cards(position):
        for to in (None, data.draw(st.integers(0, COLUMN_COUNT - 1))):
            with pytest.raises(IllegalMoveError) as refused:
                resolve_move(position, card, to)
            assert str(refused.value) == f"{card_code(card)} is not face up on the table"


@PROPERTY_SETTINGS
@given(games(), st.data())
def test_hints_rank_every_legal_action(game: Game, data: st.DataObject) -> None:
    position = data.draw(st.sampled_from(game.positions))
    hints = ranked_hints(position)
    assert Counter(hint.action for hint in hints) == Counter(legal_actions(position))
    assert all(not isinstance(hint.action, Deal) for hint in hints[:-1])


@settings(max_examples=300, deadline=None)
@given(games(), st.data())
def test_hints_never_depend_on_an_unseen_card(game: Game, data: st.DataObject) -> None:
    """The same visible table with its face-down cards and stock in any other order gets
    the same hints, field for field: actions, order, scores and reasons."""
    position = data.draw(st.sampled_from(game.positions))
    unseen = unseen_cards(position)
    order = data.draw(st.permutations(unseen))
    assume(order != unseen)  # two unseen cards at least, in another order
    other = with_unseen(position, order)
    assert player_view(other) == player_view(position)
    assert other != position

    assert ranked_hints(other) == ranked_hints(position)


def _refusal(position: Position, card: int, to: int | None) -> tuple[str, dict[str, object]]:
    try:
        resolve_move(position, card, to)
    except IllegalMoveError as error:
        return str(error), error.details
    return "legal", {}


@settings(max_examples=150, deadline=None)
@given(games(), st.data())
def test_refusals_and_their_details_never_depend_on_an_unseen_card(
    game: Game, data: st.DataObject
) -> None:
    """Every move the player could ask for, on the same visible table with the face-down cards
    and the stock in another order, gets the same answer, message and details alike: a move
    naming a face-down card is refused as one naming a stock card, and the details never say
    where an unseen card lies."""
    position = data.draw(st.sampled_from(game.positions))
    unseen = unseen_cards(position)
    order = data.draw(st.permutations(unseen))
    assume(order != unseen)
    other = with_unseen(position, order)
    for card in range(DECK_SIZE):
        for to in (None, *range(COLUMN_COUNT)):
            assert _refusal(other, card, to) == _refusal(position, card, to)
    for card in unseen:
        _message, details = _refusal(position, card, None)
        assert details == {"reason": "not_face_up", "card": card_code(card)}
