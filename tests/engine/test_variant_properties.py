"""Properties of random play in every variant of the family, as tests/engine/test_properties.py
checks them for Scorpion: cards are conserved, undo and replay are exact, storage round-trips,
the player's view and the refusals never depend on a card the player cannot see."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games.engine.actions import Move, Record
from games.engine.cards import card_code, parse_card
from games.engine.errors import EngineError, IllegalMoveError
from games.engine.hints import PER_CARD_CARRIED_IN_ORDER, ranked_hints
from games.engine.legal import face_up_cards, legal_actions, legal_moves, variant_actions
from games.engine.position import Position, deal_position, player_view
from games.engine.resolve import Copy, _face_up_copies, copy_of, resolve_move
from games.engine.resolve import source_of as card_source
from games.engine.transitions import apply, replay, undo
from games.engine.variants import (
    DOUBLE_SCORPION,
    FACES,
    SCORPION,
    SCORPION_TAIL,
    VARIANTS,
    Variant,
    deal_code_for_seed,
)
from tests.engine.random_play import unseen_cards, with_unseen

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclass(frozen=True)
class Played:
    start: Position
    steps: tuple[tuple[Position, Record, Position], ...]

    @property
    def positions(self) -> list[Position]:
        return [self.start] + [after for _, _, after in self.steps]


@st.composite
def played(draw: st.DrawFn, variants: st.SearchStrategy[Variant] | None = None) -> Played:
    if variants is None:
        variants = st.sampled_from(list(VARIANTS.values()))
    variant: Variant = draw(variants)
    seed = draw(st.integers(0, 2**63 - 1))
    position = start = deal_position(deal_code_for_seed(seed, variant), variant)
    steps = []
    for _ in range(150):
        actions = legal_actions(position)
        if not actions or draw(st.integers(0, 30)) == 0:
            break
        after, record = apply(position, actions[draw(st.integers(0, len(actions) - 1))])
        steps.append((position, record, after))
        position = after
    return Played(start, tuple(steps))


@SETTINGS
@given(played())
def test_every_position_holds_every_card_once(game: Played) -> None:
    for position in game.positions:
        assert Position.from_dict(position.to_dict()) == position  # checks the cards too
        on_table = sum(len(column) for column in position.columns)
        total = on_table + len(position.stock) + len(position.reserve)
        assert total + 13 * len(position.collected) == position.variant.deck_size


@SETTINGS
@given(played())
def test_undo_restores_and_replay_reproduces_exactly(game: Played) -> None:
    for before, record, after in game.steps:
        stored = Record.from_dict(record.to_dict())
        assert stored == record
        assert undo(after, stored) == before
        assert replay(before, stored) == after


@SETTINGS
@given(played())
def test_runs_collected_by_one_action_are_listed_in_column_order(game: Played) -> None:
    # PySolFC's order: the leftmost column's run first, whichever column the card left; the
    # position lists the collected suits in that order too.
    for before, record, after in game.steps:
        columns = [step.column for step in record.collected]
        assert columns == sorted(columns)
        assert after.collected == before.collected + tuple(s.suit for s in record.collected)


@SETTINGS
@given(played())
def test_player_view_never_shows_a_face_down_or_stock_card(game: Played) -> None:
    for position in game.positions:
        view = player_view(position)
        for column, shown in zip(position.columns, view["columns"], strict=True):
            assert shown["cards"] == [card_code(c) for c in column[shown["hidden"] :]]
        assert view["stock"] == len(position.stock)


@SETTINGS
@given(played(), st.data())
def test_hints_rank_every_legal_action(game: Played, data: st.DataObject) -> None:
    position = data.draw(st.sampled_from(game.positions))
    assert Counter(h.action for h in ranked_hints(position)) == Counter(legal_actions(position))


def _answer(position: Position, card: int, to: int | None) -> tuple[str, dict[str, object]]:
    try:
        move = resolve_move(position, card, to)
    except IllegalMoveError as error:
        return str(error), error.details
    return f"legal {card_code(move.card)} to {move.to}", {}


@SETTINGS
@given(played(), st.data())
def test_refusals_and_hints_never_depend_on_an_unseen_card(
    game: Played, data: st.DataObject
) -> None:
    position = data.draw(st.sampled_from(game.positions))
    hidden_cards = unseen_cards(position)
    order = data.draw(st.permutations(hidden_cards))
    assume(order != hidden_cards)
    other = with_unseen(position, order)
    assert player_view(other) == player_view(position)
    for face in range(52):
        for to in (None, *range(position.variant.column_count)):
            assert _answer(other, face, to) == _answer(position, face, to)
    assert [(h.score, h.reason, h.details) for h in ranked_hints(other)] == [
        (h.score, h.reason, h.details) for h in ranked_hints(position)
    ]


def with_copies_swapped(position: Position, faces: set[int]) -> Position:
    """The same table with, for each face in ``faces``, its two copies' card ints exchanged:
    the deal as it would be had the other copy been dealt first. Which copy is which is what
    the records keep (``ids``) and what says where an unseen copy lies; nothing a player is
    shown may change with it."""

    def relabel(card: int) -> int:
        return (card + FACES) % (2 * FACES) if card % FACES in faces else card

    return Position(
        tuple(tuple(relabel(card) for card in column) for column in position.columns),
        position.hidden,
        tuple(relabel(card) for card in position.stock),
        position.collected,
        tuple(relabel(card) for card in position.reserve),
        position.variant,
    )


def _answer_from(
    position: Position, face: int, to: int | None, source: int | None
) -> tuple[str, dict[str, object]]:
    try:
        move = resolve_move(position, face, to, source)
    except IllegalMoveError as error:
        return str(error), error.details
    return f"legal {card_code(move.card)} from {card_source(position, move.card)} to {move.to}", {}


def _shown(position: Position) -> list[tuple[object, ...]]:
    """Every hint as the API serves it: the face, its source column, the target, and why."""
    return [
        (
            card_code(hint.action.card) if isinstance(hint.action, Move) else "deal",
            card_source(position, hint.action.card) if isinstance(hint.action, Move) else None,
            hint.action.to if isinstance(hint.action, Move) else None,
            hint.score,
            hint.reason,
            hint.details,
        )
        for hint in ranked_hints(position)
    ]


def _on_table(position: Position, face: int) -> bool:
    """Both copies of ``face`` are on the table, the stock or the reserve (none collected)."""
    placed = {card for column in position.columns for card in column}
    placed |= set(position.stock) | set(position.reserve)
    return face in placed and face + FACES in placed


def _public(record: Record) -> dict[str, object]:
    return {key: value for key, value in record.to_dict().items() if key != "ids"}


TWO_DECKS = [variant for variant in VARIANTS.values() if variant.decks > 1]


@SETTINGS
@given(played(st.sampled_from(TWO_DECKS)), st.data())
def test_which_copy_of_a_two_deck_card_is_which_changes_no_answer(
    game: Played, data: st.DataObject
) -> None:
    position = data.draw(st.sampled_from(game.positions))
    # Faces with one copy in sight and the other unseen: which of the two was dealt first
    # (which is which) is then unknown to the player. (With both in sight the player saw
    # where each was dealt; with both unseen a swap is a shuffle of unseen cards.)
    hidden = set(unseen_cards(position))
    split = sorted(face for face in range(FACES) if (face in hidden) != (face + FACES in hidden))
    split = [face for face in split if _on_table(position, face)]
    assume(split)
    faces = set(data.draw(st.sets(st.sampled_from(split), min_size=1)))
    other = with_copies_swapped(position, faces)
    assert player_view(other) == player_view(position)
    places = position.variant.column_count + position.variant.reserve_size
    for face in range(FACES):
        for to in (None, *range(position.variant.column_count)):
            for source in (None, *range(places)):
                assert _answer_from(other, face, to, source) == _answer_from(
                    position, face, to, source
                )
    assert _shown(other) == _shown(position)
    # What each legal action's record shows (its public fields) is the same too.
    for action in legal_actions(position):
        mirrored = action
        if isinstance(action, Move):
            mirrored = resolve_move(
                other,
                action.card % FACES,
                action.to,
                card_source(position, action.card),
                copy_of(position, action.card),
            )
        assert _public(apply(other, mirrored)[1]) == _public(apply(position, action)[1])


def _any_answer(
    position: Position,
    card: int,
    to: int | None,
    source: int | None,
    copy: Copy | None = None,
    *,
    shortcut: bool,
) -> tuple[object, ...]:
    try:
        move = resolve_move(position, card, to, source, copy, shortcut=shortcut)
    except EngineError as error:
        return type(error).__name__, str(error), error.details
    return "legal", move


@SETTINGS
@given(played(), st.data())
def test_resolve_moves_early_returns_change_no_answer(game: Played, data: st.DataObject) -> None:
    # resolve_move answers the common case (one face-up copy; a move onto an exposed card)
    # early: every request, legal or not, in range or not, is answered as without the early
    # returns, and the face-up copies it looks up are those of the table of every face-up card.
    position = data.draw(st.sampled_from(game.positions))
    variant = position.variant
    face_up = face_up_cards(position)
    for face in range(FACES):
        expected = sorted(
            (
                (copy, *face_up[copy])
                for copy in range(face, variant.deck_size, FACES)
                if copy in face_up
            ),
            key=lambda found: (found[1], -found[2]),
        )
        assert _face_up_copies(position, face) == expected
    # Every card int (and one past each end), every target (likewise), picked from nowhere
    # named, from where each face-up copy lies, and from a random place (maybe none).
    places = variant.column_count + variant.reserve_size
    copy = data.draw(st.sampled_from([None, "upper", "lower"]))
    for card in range(-1, variant.deck_size + 1):
        lying = [column for _, column, _ in _face_up_copies(position, card % FACES)]
        for source in {None, *lying, data.draw(st.integers(-1, places))}:
            for to in (None, *range(-1, variant.column_count + 1)):
                assert _any_answer(position, card, to, source, copy, shortcut=True) == _any_answer(
                    position, card, to, source, copy, shortcut=False
                ), (
                    card,
                    to,
                    source,
                    copy,
                )


@SETTINGS
@given(played(st.sampled_from(TWO_DECKS)), st.data())
def test_every_legal_move_is_named_by_its_face_column_and_copy(
    game: Played, data: st.DataObject
) -> None:
    # Either face-up copy may move (PySolFC 3.4.0+; not in double-scorpion-3-2): a player names
    # a move by the face, the column it leaves and, of two copies there, which one; that name
    # gives back exactly the legal move, and every face-up copy that can move has its moves.
    position = data.draw(st.sampled_from(game.positions))
    moves = legal_moves(position)
    for move in moves:
        named = resolve_move(
            position,
            move.card % FACES,
            move.to,
            card_source(position, move.card),
            copy_of(position, move.card),
        )
        assert named == move
    # Where the upper of two copies in one column goes onto a card, the lower one may too
    # (it carries more cards: another move), unless the variant keeps the older rule.
    for move in moves:
        if copy_of(position, move.card) == "upper" and position.columns[move.to]:
            lower = Move((move.card + FACES) % (2 * FACES), move.to)
            assert (lower in moves) == position.variant.either_copy


@SETTINGS
@given(
    played(st.sampled_from([variant for variant in VARIANTS.values() if variant is not SCORPION])),
    st.data(),
)
def test_the_variant_solver_lists_the_legal_actions_from_its_own_face_up_table(
    game: Played, data: st.DataObject
) -> None:
    # The variant solver builds the table of face-up cards once a position, to score the moves
    # and to list them: the list is the rules' own, in their order.
    position = data.draw(st.sampled_from(game.positions))
    assert variant_actions(position, face_up_cards(position)) == legal_actions(position)


def test_a_king_carries_either_copy_of_its_queen_in_order() -> None:
    """The property's falsifying example, reduced: a King moving to an empty column with a
    Queen of its suit on it counts the Queen as in order whichever copy each card is. With the
    other King face down below, the player cannot tell which King was dealt first; comparing
    card ints (King 12 on Queen 11, but not King 64 on Queen 11) scored the hint 20 lower for
    one of the two deals of the same table."""
    king, queen = parse_card("KS"), parse_card("QS")
    other_queen = queen + FACES
    empty: tuple[tuple[int, ...], ...] = ((),) * (DOUBLE_SCORPION.column_count - 1)

    def with_first_column(*cards: int) -> Position:
        return Position(
            ((king, *cards), *empty),  # the face-down King under the face-up cards
            (1,) + (0,) * len(empty),
            (),
            (),
            variant=DOUBLE_SCORPION,
        )

    position = with_first_column(king + FACES, queen)
    assert _shown(with_copies_swapped(position, {king})) == _shown(position)
    # Scored as a King carrying the Queen of its own copy is.
    same_copy = with_first_column(king + FACES, other_queen)
    assert [hint.score for hint in ranked_hints(position)] == [
        hint.score for hint in ranked_hints(same_copy)
    ]


def test_a_king_to_an_empty_column_counts_its_run_by_the_variants_rule() -> None:
    # Scorpion Tail builds in alternating colours: a King carrying a red Queen carries a run
    # (scored like one), and one carrying the Queen of its own suit does not.
    king = parse_card("KS")
    empty: tuple[tuple[int, ...], ...] = ((),) * (SCORPION_TAIL.column_count - 1)

    def king_carrying(queen: str) -> int:
        position = Position(
            ((parse_card("2C"), king, parse_card(queen)), *empty),
            (0,) * SCORPION_TAIL.column_count,
            (),
            (),
            variant=SCORPION_TAIL,
        )
        # One score, whichever empty column it goes to.
        (score,) = {
            hint.score
            for hint in ranked_hints(position)
            if isinstance(hint.action, Move) and hint.action.card == king
        }
        return score

    assert king_carrying("QH") - king_carrying("QS") == PER_CARD_CARRIED_IN_ORDER
