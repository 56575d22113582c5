"""Winning chances per action (games.engine.chances): fair, deterministic, and right where the
answer is known."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.actions import DEAL, Action, Move
from games.engine.cards import card_code, parse_card
from games.engine.chances import (
    ActionChance,
    TimeUp,
    VisibleTable,
    chances,
    sampled_verdicts,
    wilson_interval,
)
from games.engine.deals import SplitMix64, deal_code_for_seed
from games.engine.legal import legal_actions
from games.engine.position import Position, deal_position
from games.engine.solver import Solution, solve
from games.engine.transitions import apply
from tests.data import DEALS
from tests.engine.random_play import Game, games, unseen_cards, with_unseen

_SOME_DEAL = deal_code_for_seed(12345)
# Few samples and a small budget: the property is exact equality, not accuracy.
SAMPLES = 6
BUDGET = 3_000


def _position(game: Game, data: st.DataObject) -> Position:
    positions = game.positions
    return positions[data.draw(st.integers(0, len(positions) - 1))]


@settings(max_examples=25, deadline=None)
@given(games(), st.data(), st.integers(0, 2**64 - 1), st.sampled_from([None, 1, 500, 5_000]))
def test_shuffling_the_unseen_cards_never_changes_the_chances(
    game: Game, data: st.DataObject, seed: int, work: int | None
) -> None:
    # With a work budget too: how many samples are drawn depends on the samples alone.
    position = _position(game, data)
    order = data.draw(st.permutations(unseen_cards(position)))
    shuffled = with_unseen(position, list(order))
    real, other = (
        chances(
            VisibleTable.of(table),
            samples=SAMPLES,
            seed=seed,
            node_budget=BUDGET,
            work_budget=work,
        )
        for table in (position, shuffled)
    )
    assert real == other
    assert sorted(map(repr, (found.action for found in real))) == sorted(
        map(repr, legal_actions(position))
    )


@settings(max_examples=40, deadline=None)
@given(games(), st.data())
def test_the_visible_table_names_no_unseen_card(game: Game, data: st.DataObject) -> None:
    position = _position(game, data)
    table = VisibleTable.of(position)
    assert sorted(table.unseen()) == sorted(unseen_cards(position))
    face_up = {card for column in table.face_up for card in column}
    assert not face_up & set(unseen_cards(position))
    sample = table.sample(SplitMix64(7))
    assert VisibleTable.of(sample) == table
    assert sorted(unseen_cards(sample)) == sorted(unseen_cards(position))


@settings(max_examples=15, deadline=None)
@given(games(), st.data(), st.integers(0, 2**64 - 1))
def test_sharing_the_whole_sample_solve_gives_what_solving_each_action_gives(
    game: Game, data: st.DataObject, seed: int
) -> None:
    # The shortcuts (a lost sample is lost after every action; the winning line's first action
    # wins; the searches of one sample share what they prove lost) must agree, sample by
    # sample and action by action, with solving every action's position on its own.
    position = _position(game, data)
    table = VisibleTable.of(position)
    actions, outcomes = sampled_verdicts(table, seed=seed, node_budget=BUDGET)
    rng = SplitMix64(seed)
    for row in itertools.islice(outcomes, 4):
        sample = table.sample(rng)
        for action, verdict in zip(actions, row, strict=True):
            alone = solve(apply(sample, action)[0], node_budget=BUDGET).verdict
            # An action solve left undecided may be settled by the shared work, never the
            # other way round.
            assert verdict == alone or alone == "unknown", (sample, action)


def test_with_nothing_unseen_the_chance_is_the_solver_verdict() -> None:
    # A won deal followed along its line until the stock is dealt and no card is face down:
    # the player sees everything, every sample is the real position.
    won = DEALS["won"][0]
    position = deal_position(won["code"])
    for command in won["line"]:
        if not position.stock and not any(position.hidden):
            break
        action = (
            DEAL if command["type"] == "deal" else Move(parse_card(command["card"]), command["to"])
        )
        position = apply(position, action)[0]
    assert not VisibleTable.of(position).unseen()
    for entry in chances(VisibleTable.of(position), samples=3, seed=1):
        verdict = solve(apply(position, entry.action)[0]).verdict
        assert entry.wins == (3 if verdict == "won" else 0), entry


def test_same_seed_same_answer_and_another_seed_draws_other_deals() -> None:
    table = VisibleTable.of(deal_position(_SOME_DEAL))
    first = chances(table, samples=5, seed=11, node_budget=BUDGET)
    assert first == chances(table, samples=5, seed=11, node_budget=BUDGET)
    assert table.sample(SplitMix64(11)) != table.sample(SplitMix64(12))


def test_a_spent_work_budget_ends_the_sampling_with_the_samples_drawn_so_far() -> None:
    # A deal's start in Wasp: every sample is a whole deal, each action solved apart, so the
    # work budget binds long before 40 samples (the case it exists for).
    from games.engine.position import deal_position as variant_position
    from games.engine.variants import VARIANTS
    from games.engine.variants import deal_code_for_seed as variant_deal_code

    wasp = VARIANTS["wasp-ii"]  # the layout Wasp had when these deals were picked
    table = VisibleTable.of(variant_position(variant_deal_code(1, wasp), wasp))
    budgeted = chances(table, samples=40, seed=5, node_budget=BUDGET, work_budget=3_000)
    drawn = {entry.samples for entry in budgeted}
    assert len(drawn) == 1  # every action rests on the same samples
    (count,) = drawn
    assert 1 <= count < 40
    # Exactly the first samples of the unbounded stream: a budget drops none from the middle.
    assert budgeted == chances(table, samples=count, seed=5, node_budget=BUDGET)
    # A budget of 1 still takes one whole sample; a budget never reached changes nothing.
    assert {entry.samples for entry in chances(table, samples=40, seed=5, work_budget=1)} == {1}
    assert chances(table, samples=3, seed=5, node_budget=BUDGET, work_budget=10**9) == chances(
        table, samples=3, seed=5, node_budget=BUDGET
    )


def test_the_first_sample_overruns_the_work_budget_by_the_floor_a_solve_at_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Wasp seed 34's deal: its first sample took 6.2 s of CPU, most of it solves of up to 20,000
    # positions each, in a request whose work budget is about 2.4 s.
    from games.engine import chances as module
    from games.engine.position import deal_position as variant_position
    from games.engine.variants import VARIANTS
    from games.engine.variants import deal_code_for_seed as variant_deal_code

    wasp = VARIANTS["wasp-ii"]  # the layout Wasp had when these deals were picked
    table = VisibleTable.of(variant_position(variant_deal_code(34, wasp), wasp))
    seed = 34 * 7919  # a sample whose solves are dear
    solved: list[tuple[int, int, str]] = []
    real_solve = module.solve

    def counted(
        position: Position, *, node_budget: int, time_budget: float | None = None
    ) -> Solution:
        solution = real_solve(position, node_budget=node_budget, time_budget=time_budget)
        solved.append((node_budget, solution.nodes, solution.verdict))
        return solution

    monkeypatch.setattr(module, "solve", counted)
    work_budget = 2_000
    answer = chances(table, samples=10, seed=seed, node_budget=20_000, work_budget=work_budget)
    assert {entry.samples for entry in answer} == {1}
    work = sum(nodes + module.SOLVE_WORK for _budget, nodes, _verdict in solved)
    assert work <= work_budget + len(solved) * (module.FIRST_SAMPLE_SOLVE_FLOOR + module.SOLVE_WORK)
    assert all(budget <= 20_000 for budget, _nodes, _verdict in solved)
    # Uncapped, the same sample's solves search far more; capped, what they leave open is
    # said as undecided, never guessed.
    solved.clear()
    uncapped = chances(table, samples=1, seed=seed, node_budget=20_000)
    assert sum(nodes for _budget, nodes, _verdict in solved) > 4 * work
    by_action = {entry.action: entry for entry in uncapped}
    for entry in answer:
        if entry.undecided == 0:
            assert (entry.wins, entry.losses) == (
                by_action[entry.action].wins,
                by_action[entry.action].losses,
            )


@settings(max_examples=20, deadline=None)
@given(games(), st.data(), st.integers(0, 2**64 - 1), st.sampled_from([0.0, 0.002, 0.05, 60.0]))
def test_a_deadline_gives_the_answer_without_it_or_none(
    game: Game, data: st.DataObject, seed: int, seconds: float
) -> None:
    # The service stores what a request finished before its deadline as the worker's answer:
    # it must be exactly that answer, never one the clock made worse.
    import time

    table = VisibleTable.of(_position(game, data))
    unhurried = chances(table, samples=SAMPLES, seed=seed, node_budget=BUDGET, work_budget=20_000)
    try:
        hurried = chances(
            table,
            samples=SAMPLES,
            seed=seed,
            node_budget=BUDGET,
            work_budget=20_000,
            deadline=time.perf_counter() + seconds,
        )
    except TimeUp:
        assert seconds < 60  # a minute is far more than these small budgets take
        return
    assert seconds > 0  # a deadline already past never answers
    assert hurried == unhurried


@pytest.mark.parametrize("variant", ["scorpion", "wasp"])
def test_a_solve_the_deadline_stopped_abandons_the_estimate(
    monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    # The deadline falls in the middle of a solve, which then says "unknown": counted as
    # undecided it would make a worse answer than the worker's, so there is no answer at all.
    # (Scorpion's samples are solved by a shared search, the other variants' by ``solve``.)
    from games.engine import chances as module
    from games.engine.position import deal_position as variant_position
    from games.engine.variants import VARIANTS
    from games.engine.variants import deal_code_for_seed as variant_deal_code

    clock = [100.0]
    monkeypatch.setattr(module, "perf_counter", lambda: clock[0])
    solves: list[float | None] = []

    def slow(*_: object, node_budget: int, time_budget: float | None = None) -> Solution:
        solves.append(time_budget)
        clock[0] += 1.0  # each solve takes a second of the fake clock
        return Solution("unknown", [], node_budget, 1.0)

    class SlowShared:
        def __init__(self, position: Position) -> None:
            self.solve = slow

    monkeypatch.setattr(module, "solve", slow)
    monkeypatch.setattr(module, "SharedSearch", SlowShared)
    game = VARIANTS[variant]
    table = VisibleTable.of(variant_position(variant_deal_code(12345, game), game))
    with pytest.raises(TimeUp):
        chances(table, samples=3, seed=1, node_budget=BUDGET, deadline=100.5)
    assert solves == [0.5]  # the solve was given what was left, and its verdict dropped


def test_answers_round_trip_through_their_stored_form() -> None:
    for entry in (ActionChance(DEAL, 3, 5, 2), ActionChance(Move(20, 4), 0, 10, 0)):
        assert ActionChance.from_dict(entry.to_dict()) == entry
        assert entry.to_dict()["samples"] == 10


@pytest.mark.parametrize(("wins", "trials"), [(0, 10), (4, 10), (10, 10), (36, 200)])
def test_the_interval_holds_the_estimate_and_stays_in_zero_one(wins: int, trials: int) -> None:
    low, high = wilson_interval(wins, trials)
    assert 0.0 <= low <= wins / trials <= high <= 1.0
    # More samples, a narrower interval.
    wider = wilson_interval(wins // 2, trials // 2)
    assert high - low < wider[1] - wider[0]


def test_zero_samples_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one sample"):
        chances(VisibleTable.of(deal_position(_SOME_DEAL)), samples=0, seed=1)


# Scorpion Tail's solver costs more a position and settles few samples at the root: a smaller
# budget keeps the test short (the property is exact equality at any budget).
@pytest.mark.parametrize(
    ("name", "budget"), [("wasp", BUDGET), ("three-blind-mice", BUDGET), ("scorpion-tail", 300)]
)
@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**63 - 1), st.data())
def test_variant_chances_follow_the_variants_rules_and_stay_fair(
    name: str, budget: int, seed: int, data: st.DataObject
) -> None:
    from games.engine.position import deal_position as variant_position
    from games.engine.variants import VARIANTS
    from games.engine.variants import deal_code_for_seed as variant_deal

    variant = VARIANTS[name]
    position = variant_position(variant_deal(seed, variant), variant)
    for _ in range(data.draw(st.integers(0, 30))):
        actions = legal_actions(position)
        if not actions:
            break
        position = apply(position, actions[data.draw(st.integers(0, len(actions) - 1))])[0]
    table = VisibleTable.of(position)
    assert table.variant is variant
    # Three Blind Mice's reserve is seen, never sampled: only the face-down cards are unseen.
    assert table.reserve == position.reserve
    assert sorted(table.unseen()) == sorted(unseen_cards(position))
    order = data.draw(st.permutations(unseen_cards(position)))
    shuffled = with_unseen(position, list(order))
    sample = table.sample(SplitMix64(seed))
    assert VisibleTable.of(sample) == table
    real = chances(table, samples=3, seed=seed, node_budget=budget)
    assert real == chances(VisibleTable.of(shuffled), samples=3, seed=seed, node_budget=budget)
    # The variant's own legal actions (Wasp: any card may fill an empty column; Three Blind
    # Mice: the reserve cards are played too), not Scorpion's.
    assert sorted(map(repr, (found.action for found in real))) == sorted(
        map(repr, legal_actions(position))
    )


def _double_scorpion_position(seed: int, data: st.DataObject) -> Position:
    from games.engine.position import deal_position as variant_position
    from games.engine.variants import DOUBLE_SCORPION
    from games.engine.variants import deal_code_for_seed as variant_deal

    position = variant_position(variant_deal(seed, DOUBLE_SCORPION), DOUBLE_SCORPION)
    for _ in range(data.draw(st.integers(0, 40))):
        actions = legal_actions(position)
        if not actions:
            break
        position = apply(position, actions[data.draw(st.integers(0, len(actions) - 1))])[0]
    return position


def _copies_swapped(position: Position, faces: set[int]) -> Position:
    """The same game with the two copies of each of ``faces`` trading places: a deal that
    differs only in which copy lies where, which no player can see."""

    def other(card: int) -> int:
        return (card + 52) % 104 if card % 52 in faces else card

    return replace(
        position,
        columns=tuple(tuple(map(other, column)) for column in position.columns),
        stock=tuple(map(other, position.stock)),
        reserve=tuple(map(other, position.reserve)),
    )


def _named(actions: Iterable[tuple[Action, int | None]]) -> list[tuple[str, ...]]:
    """Actions as the API names them: the face, the destination and the source column."""
    return sorted(
        ("deal",)
        if not isinstance(action, Move)
        else (card_code(action.card), str(action.to), str(source))
        for action, source in actions
    )


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**63 - 1), st.data(), st.sets(st.integers(0, 51)))
def test_double_scorpion_chances_name_copies_from_what_the_player_sees(
    seed: int, data: st.DataObject, faces: set[int]
) -> None:
    # In two decks a card int also says which copy of its face it is (the deal's order): the
    # table names the copies from faces and places only, so neither which copy lies where nor
    # the order of the unseen cards can change an answer.
    position = _double_scorpion_position(seed, data)
    table = VisibleTable.of(position)
    assert VisibleTable.of(_copies_swapped(position, faces)) == table
    order = data.draw(st.permutations(unseen_cards(position)))
    shuffled = with_unseen(position, list(order))
    assert VisibleTable.of(shuffled) == table
    assert sorted(card % 52 for card in table.unseen()) == sorted(
        card % 52 for card in unseen_cards(position)
    )
    assert VisibleTable.of(table.sample(SplitMix64(seed))) == table
    real = chances(table, samples=2, seed=seed, node_budget=200)
    assert real == chances(VisibleTable.of(shuffled), samples=2, seed=seed, node_budget=200)
    # Named as the API names them, the actions are the real position's legal ones.
    placed = {
        card: index
        for index, (column, hidden) in enumerate(
            zip(position.columns, position.hidden, strict=True)
        )
        for card in column[hidden:]
    }
    assert _named((found.action, found.source) for found in real) == _named(
        (action, placed.get(action.card) if isinstance(action, Move) else None)
        for action in legal_actions(position)
    )


def test_a_chance_names_the_column_its_card_is_taken_from() -> None:
    position = deal_position(DEALS["won"][0]["code"])
    found = chances(VisibleTable.of(position), samples=2, seed=1, node_budget=BUDGET)
    for entry in found:
        if isinstance(entry.action, Move):
            column = next(
                index for index, cards in enumerate(position.columns) if entry.action.card in cards
            )
            assert entry.source == column
            assert entry.to_dict()["from"] == column
        else:
            assert entry.source is None
            assert "from" not in entry.to_dict()
        assert ActionChance.from_dict(entry.to_dict()) == entry


def _tail_run(draw: st.DrawFn, king: int, left: set[int]) -> tuple[int, ...]:
    """A King-to-Ace run in alternating colours from ``king`` down, of cards still ``left``
    (a card of the other colour one rank lower each time, drawn among the two there are)."""
    from games.engine.variants import is_red

    run = [king]
    for rank in range(11, -1, -1):
        red = not is_red(run[-1])
        run.append(
            draw(st.sampled_from(sorted(c for c in left if c % 13 == rank and is_red(c) == red)))
        )
    left.difference_update(run)
    return tuple(run)


@st.composite
def tail_positions(draw: st.DrawFn) -> tuple[Position, tuple[int, ...]]:
    """A Scorpion Tail position after 0-3 runs were collected, and the cards of those runs.

    The runs alternate colours, so a King's suit does not name its run's cards (a red Queen of
    either suit may have gone with the King of spades). The last run is either gone already or
    collected here by the rules: its King to Two lie face up on top of the first column, its Ace
    on top of the second, and the Ace is played onto the Two. The other cards are dealt at
    random to the columns (a random number face down) and the stock. Not every such position is
    reachable in a game, but each holds every card once, which is all the table reads.
    """
    from games.engine.variants import SCORPION_TAIL

    kings = draw(st.lists(st.sampled_from([12, 25, 38, 51]), unique=True, max_size=3))
    left = set(range(52))
    runs = [_tail_run(draw, king, left) for king in kings]
    play_last = bool(runs) and draw(st.booleans())
    rest = list(draw(st.permutations(sorted(left))))
    stock = tuple(rest[:3]) if draw(st.booleans()) else ()
    rest = rest[len(stock) :]
    cuts = sorted(draw(st.lists(st.integers(0, len(rest)), min_size=6, max_size=6)))
    columns = [list(rest[a:b]) for a, b in zip([0, *cuts], [*cuts, len(rest)], strict=True)]
    hidden = [draw(st.integers(0, max(len(column) - 1, 0))) for column in columns]
    collected = tuple(run[0] // 13 for run in runs)
    if play_last:
        last = runs[-1]
        columns[0] += last[:-1]
        columns[1].append(last[-1])
        collected = collected[:-1]
    position = Position(
        tuple(map(tuple, columns)),
        tuple(hidden),
        stock,
        collected,
        variant=SCORPION_TAIL,
    )
    if play_last:
        position = apply(position, Move(runs[-1][-1], 0))[0]
        assert len(position.collected) == len(runs), "the run was collected"
    assert Position.from_dict(position.to_dict()) == position  # every card once
    return position, tuple(sorted(card for run in runs for card in run))


@settings(max_examples=30, deadline=None)
@given(tail_positions(), st.data(), st.integers(0, 2**64 - 1), st.sampled_from([None, 2_000]))
def test_scorpion_tail_chances_read_the_collected_runs_cards_and_nothing_unseen(
    found: tuple[Position, tuple[int, ...]], data: st.DataObject, seed: int, work: int | None
) -> None:
    position, run_cards = found
    table = VisibleTable.of(position)
    # The collected cards are the runs' own, whatever suits their Kings name.
    assert table.collected_cards == run_cards
    assert sorted(table.unseen()) == sorted(unseen_cards(position))
    order = data.draw(st.permutations(unseen_cards(position)))
    shuffled = with_unseen(position, list(order))
    assert VisibleTable.of(shuffled) == table
    assert VisibleTable.of(table.sample(SplitMix64(seed))) == table
    real, other = (
        chances(VisibleTable.of(each), samples=3, seed=seed, node_budget=300, work_budget=work)
        for each in (position, shuffled)
    )
    assert real == other
    assert sorted(map(repr, (entry.action for entry in real))) == sorted(
        map(repr, legal_actions(position))
    )


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**63 - 1), st.data())
def test_double_scorpion_s_winning_line_shortcut_marks_the_copy_that_moved(
    seed: int, data: st.DataObject
) -> None:
    # A won sample's first line move is counted won without a solve of its own. Its command
    # names the card by its face; the copy is the one in its `from` column. Marking the other
    # copy's move (the face parsed into the first copy's int) would count a move won that may
    # lose: each action's verdict must be what solving it alone gives.
    position = _double_scorpion_position(seed, data)
    table = VisibleTable.of(position)
    actions, outcomes = sampled_verdicts(table, seed=seed, node_budget=2_000)
    rng = SplitMix64(seed)
    for row in itertools.islice(outcomes, 2):
        sample = table.sample(rng, table.unseen())
        for action, verdict in zip(actions, row, strict=True):
            alone = solve(apply(sample, action)[0], node_budget=2_000).verdict
            assert verdict == alone or (verdict == "won" and alone == "unknown"), action


def test_a_winning_line_s_first_move_is_found_by_its_column_among_two_copies() -> None:
    # At Double Scorpion seed 0's deal two copies of a card can go onto one destination: the
    # line's command names the face, and its `from` says which of the two moves.
    from games.engine.chances import _line_start
    from games.engine.position import deal_position as variant_position
    from games.engine.variants import DOUBLE_SCORPION
    from games.engine.variants import deal_code_for_seed as variant_deal

    position = variant_position(variant_deal(0, DOUBLE_SCORPION), DOUBLE_SCORPION)
    table = VisibleTable.of(position)
    actions = legal_actions(table.sample(SplitMix64(1)))
    twins = [
        (one, other)
        for one in actions
        for other in actions
        if isinstance(one, Move)
        and isinstance(other, Move)
        and one.card != other.card
        and one.card % 52 == other.card % 52
        and one.to == other.to
    ]
    assert twins
    for one, _ in twins:
        command = {
            "type": "move",
            "card": card_code(one.card),
            "to": one.to,
            "from": table.source_of(one.card),
        }
        assert _line_start(Solution("won", [command], 1, 0.0), actions, table) == one


def test_the_chances_of_two_copies_in_one_column_name_which_copy_moves() -> None:
    # Double Scorpion seed 4: both copies of 3D face up in one column, and either may move
    # (PySolFC 3.4.0+): each gets its own chance, named as hints name it, never merged.
    from games.engine.position import deal_position as variant_position
    from games.engine.variants import DOUBLE_SCORPION
    from games.engine.variants import deal_code_for_seed as variant_deal

    position = variant_position(variant_deal(4, DOUBLE_SCORPION), DOUBLE_SCORPION)
    table = VisibleTable.of(position)
    answer = chances(table, samples=1, seed=1, node_budget=300)
    named = [entry.to_dict() for entry in answer if entry.copy is not None]
    assert sorted(entry["copy"] for entry in named) == ["lower", "upper"]
    assert len({(entry["card"], entry["from"], entry["to"]) for entry in named}) == 1
    assert len(answer) == len(legal_actions(position))
    stored = [entry.to_dict() for entry in answer]
    assert [ActionChance.from_dict(entry).to_dict() for entry in stored] == stored
