"""The solver: verdicts on known deals, winning lines that replay, and the reductions checked
against a plain exhaustive search (games/engine/_solver_reference.py)."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine._solver_reference import exhaustive_verdict
from games.engine.actions import DEAL, Action, Move
from games.engine.cards import parse_card, parse_deal_code
from games.engine.deals import deal_code_for_seed
from games.engine.errors import DealCodeError
from games.engine.legal import legal_actions, status
from games.engine.position import Position, deal_position
from games.engine.resolve import resolve_move
from games.engine.solver import (
    SharedSearch,
    Solution,
    _OutOfBudget,
    _read_position,
    _Search,
    solve,
)
from games.engine.transitions import apply, play
from tests.data import DEALS
from tests.engine.random_play import Game, games
from tests.engine.tables import table

# Exhaustive searches in these tests stop after this many positions (then they do not count).
REFERENCE_BUDGET = 5_000
# A deal whose proof takes thousands of positions (for the budget tests).
HARD_SEED = 8


def play_line(start: Position, line: list[dict[str, Any]]) -> Position:
    """Play API commands as a player would: each one is checked by the engine."""
    position = start
    for command in line:
        assert status(position) == "playing"
        action: Action
        if command["type"] == "deal":
            assert set(command) == {"type"}
            action = DEAL
        else:
            assert set(command) == {"type", "card", "to"}
            action = resolve_move(position, parse_card(command["card"]), command["to"])
        position, _ = play(position, action)
    return position


def searcher(position: Position) -> _Search:
    return _Search(*_read_position(position), node_budget=10, deadline=None)


def exhaustive(position: Position) -> str:
    return exhaustive_verdict(position, REFERENCE_BUDGET)[0]


def command_action(position: Position, command: dict[str, Any]) -> Action:
    if command["type"] == "deal":
        return DEAL
    return resolve_move(position, parse_card(command["card"]), command["to"])


# --- Known deals ---------------------------------------------------------------------------


@pytest.mark.parametrize("deal", DEALS["won"], ids=lambda deal: deal["code"][:12])
def test_won_deals_are_won_and_the_line_wins(deal: dict[str, Any]) -> None:
    solution = solve(deal["code"])

    assert solution.verdict == "won"
    assert solution.won
    assert not solution.lost
    assert status(play_line(deal_position(deal["code"]), solution.line)) == "won"
    assert solution.nodes >= len(solution.line)
    assert solution.seconds >= 0


@pytest.mark.parametrize("deal", DEALS["lost"], ids=lambda deal: deal["code"][:12])
def test_lost_deals_are_lost(deal: dict[str, Any]) -> None:
    solution = solve(deal["code"])

    assert solution.verdict == "lost"
    assert solution.line == []


def test_the_line_is_also_available_as_engine_actions() -> None:
    code = DEALS["won"][3]["code"]
    solution = solve(code)
    position = deal_position(code)

    for action in solution.actions():
        position, _ = play(position, action)

    assert status(position) == "won"
    assert [
        DEAL if command["type"] == "deal" else Move(parse_card(command["card"]), command["to"])
        for command in solution.line
    ] == solution.actions()


def test_a_deal_is_accepted_as_cards_as_a_code_and_as_a_position() -> None:
    code = DEALS["won"][0]["code"]
    cards = parse_deal_code(code)

    verdicts = {solve(code).verdict, solve(cards).verdict, solve(list(cards)).verdict}
    verdicts.add(solve(deal_position(code)).verdict)

    assert verdicts == {"won"}


def test_anything_else_is_refused() -> None:
    cards = list(parse_deal_code(DEALS["won"][0]["code"]))
    with pytest.raises(ValueError, match="52 distinct"):
        solve(cards[:51])
    with pytest.raises(ValueError, match="52 distinct"):
        solve([*cards[:51], cards[0]])
    with pytest.raises(DealCodeError):
        solve("not a deal code")
    broken = Position(columns=((),) * 7, hidden=(0,) * 7, stock=(), collected=(0, 1))
    with pytest.raises(ValueError, match="exactly once"):
        solve(broken)


# --- Budgets -------------------------------------------------------------------------------


def test_running_out_of_nodes_gives_unknown() -> None:
    code = deal_code_for_seed(HARD_SEED)

    solution = solve(code, node_budget=100)

    assert solution.verdict == "unknown"
    assert solution.line == []
    assert solution.nodes == 101
    assert solve(DEALS["won"][0]["code"], node_budget=1).verdict == "unknown"


def test_running_out_of_time_gives_unknown() -> None:
    solution = solve(deal_code_for_seed(HARD_SEED), time_budget=0.0)

    assert solution.verdict == "unknown"
    assert solution.line == []


def test_the_hard_deal_is_decided_within_the_default_budget() -> None:
    solution = solve(deal_code_for_seed(HARD_SEED))

    assert solution.verdict == "lost"
    assert solution.nodes > 1_000


# --- Mid-game positions --------------------------------------------------------------------


@pytest.mark.parametrize("played", [1, 10, 22, 23, 30, 45])
def test_a_position_along_a_winning_line_is_won_and_its_line_wins(played: int) -> None:
    deal = DEALS["won"][0]
    position = play_line(deal_position(deal["code"]), deal["line"][:played])

    solution = solve(position)

    assert solution.verdict == "won"
    assert status(play_line(position, solution.line)) == "won"


def test_a_won_position_needs_no_line() -> None:
    position = play_line(deal_position(DEALS["won"][0]["code"]), DEALS["won"][0]["line"])

    solution = solve(position)

    assert (solution.verdict, solution.line, solution.nodes) == ("won", [], 0)
    assert isinstance(solution, Solution)


def test_a_hand_built_position_one_move_from_the_win() -> None:
    position = table("KC QC JC TC 9C 8C 7C", "6C 5C 4C 3C 2C AC", collected="SHD")

    solution = solve(position)

    assert solution.line == [{"type": "move", "card": "6C", "to": 0}]
    assert status(play_line(position, solution.line)) == "won"


def test_a_hand_built_position_that_is_lost() -> None:
    # The Ace lies on its face-down 2: it can never be picked again, so the 2 never turns up.
    position = table("2C | AC", "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C", collected="SHD")

    assert solve(position).verdict == "lost"
    assert exhaustive(position) == "lost"


def test_a_king_that_will_be_collected_is_not_stuck() -> None:
    # Regression: KD lies on the face-down TS with no empty column to come; KD still leaves,
    # when the diamonds are collected, and that turns the TS up: the position is won.
    position = table(
        "7H 6H 5H 4H 3H 2H AH",
        "QS TC TS | KD QD JD QH",
        "8C 7S | 4S 3S TD 9D 8D 7D 6D 5D 2S",
        "AS | 7C 6C 5C 4C QC JC",
        "KH",
        "KC 9C 3C 2C AC 9S 4D 3D 2D AD",
        "KS JH TH 9H 8H 6S 5S JS 8S",
    )

    solution = solve(position)

    assert solution.verdict == "won"
    assert status(play_line(position, solution.line)) == "won"
    assert not searcher(position)._dead()


def test_a_hand_made_position_is_settled_first() -> None:
    # A finished run left on top is collected before anything else, as after any action.
    position = table("KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C AC", collected="SHD")

    assert solve(position).verdict == "won"
    assert solve(position).line == []


def test_a_position_with_the_stock_still_full() -> None:
    code = DEALS["won"][1]["code"]
    line = DEALS["won"][1]["line"]
    before_deal = line.index({"type": "deal"})
    position = play_line(deal_position(code), line[: before_deal // 2])
    assert position.stock

    solution = solve(position)

    assert solution.verdict == "won"
    assert {"type": "deal"} in solution.line
    assert status(play_line(position, solution.line)) == "won"


# --- The reductions against a plain exhaustive search --------------------------------------


def sample_positions(seeds: range, per_deal: int) -> list[Position]:
    """Positions from random deals: along winning lines and one step off them (won deals),
    or from a random playout (lost deals), ``per_deal`` of each kind."""
    positions: list[Position] = []
    for seed in seeds:
        rng = random.Random(seed)
        code = deal_code_for_seed(seed)
        solution = solve(code)
        position = deal_position(code)
        if solution.won:
            steps = set(rng.sample(range(len(solution.line)), per_deal))
            for index, command in enumerate(solution.line):
                if index in steps:
                    positions.append(position)
                    actions = legal_actions(position)
                    positions.append(apply(position, rng.choice(actions))[0])
                position, _ = play(position, command_action(position, command))
        else:
            playout = []
            while actions := legal_actions(position):
                position, _ = apply(position, rng.choice(actions))
                playout.append(position)
            # The later positions: the earlier ones take the exhaustive search too long.
            positions += rng.sample(playout[len(playout) // 3 :], min(per_deal, len(playout) // 2))
    return positions


# Seeds from 0-399 whose whole deal a plain exhaustive search decides within 6,000 positions
# (130 of them, 49 won): cheap enough to compare whole deals in a unit test.
SMALL_DEALS = (
    5, 6, 11, 13, 15, 16, 27, 32, 38, 46, 48, 53, 57, 62, 64, 65, 67, 72, 73, 76, 79, 80, 83,
    87, 91, 93, 97, 98, 101, 105, 110, 112, 113, 115, 118, 125, 129, 132, 135, 136, 138, 140,
    150, 153, 166, 169, 170, 172, 173, 178, 180, 183, 188, 190, 191, 195, 198, 201, 202, 203,
    205, 207, 208, 211, 213, 214, 216, 217, 218, 220, 226, 228, 230, 231, 232, 233, 234, 235,
    237, 238, 240, 242, 243, 249, 250, 261, 262, 263, 265, 269, 270, 271, 275, 276, 284, 290,
    292, 301, 303, 304, 306, 314, 318, 324, 326, 330, 333, 334, 338, 339, 341, 342, 343, 347,
    350, 354, 358, 363, 365, 371, 374, 377, 380, 381, 384, 385, 387, 390, 391, 392,
)  # fmt: skip


def test_whole_deals_agree_with_a_plain_exhaustive_search() -> None:
    # The same move generation and keys without any reduction (no deadlock detection, no
    # safe moves); the move generation itself is compared with the engine's just below.
    verdicts = {"won": 0, "lost": 0}
    for seed in SMALL_DEALS:
        code = deal_code_for_seed(seed)
        plain = _Search(*_read_position(code), node_budget=10_000, deadline=None, prune=False)
        reference = "won" if plain.run() else "lost"
        solution = solve(code)
        assert solution.verdict == reference, seed
        verdicts[reference] += 1
        if solution.won:
            assert status(play_line(deal_position(code), solution.line)) == "won"

    assert verdicts == {"won": 49, "lost": 81}


def test_the_solver_agrees_with_an_exhaustive_search() -> None:
    # Mid-game positions, won and lost (whole deals mostly take the exhaustive search too long).
    positions = sample_positions(range(0, 120), per_deal=3)
    compared = {"won": 0, "lost": 0}
    for position in positions:
        reference = exhaustive(position)
        if reference == "unknown":
            continue
        solution = solve(position)
        assert solution.verdict == reference, position
        compared[reference] += 1
        if solution.won:
            assert status(play_line(position, solution.line)) == "won"

    assert compared["won"] >= 40
    assert compared["lost"] >= 200


def test_deadlock_detection_never_gives_up_a_won_position() -> None:
    # Every position along a winning line is won: none may be called deadlocked. One step off
    # the line, each position called deadlocked must be lost for the exhaustive search.
    checked_dead = 0
    codes = [deal["code"] for deal in DEALS["won"]]
    codes += [code for code in map(deal_code_for_seed, range(0, 50)) if solve(code).won]
    for code in codes:
        position = deal_position(code)
        for command in solve(code).line:
            assert not searcher(position)._dead(), position
            for action in legal_actions(position):
                after = apply(position, action)[0]
                if searcher(after)._dead():
                    assert exhaustive(after) != "won", after
                    checked_dead += 1
            position, _ = play(position, command_action(position, command))

    assert checked_dead >= 50


def test_safe_moves_keep_the_verdict() -> None:
    checked = 0
    for position in sample_positions(range(200, 400), per_deal=4):
        if position.stock:
            continue
        actions = searcher(position)._actions()
        if len(actions) != 1 or len(legal_actions(position)) == 1:
            continue
        before = exhaustive(position)
        after = exhaustive(apply(position, Move(*actions[0]))[0])
        if "unknown" not in (before, after):
            assert before == after, position
            checked += 1

    assert checked >= 100


def _shape(search: _Search) -> object:
    """The position a search stands on, up to the columns that are interchangeable."""
    columns = [
        (tuple(column), hidden) for column, hidden in zip(search.cols, search.hidden, strict=True)
    ]
    if search.stock:
        # Before the deal, columns 0-2 differ (the deal lands there), 3-6 do not.
        return (columns[:3], sorted(columns[3:]), tuple(search.stock))
    return sorted(columns)


class _RecordingSearch(_Search):
    """Records, for every key the search uses, the position it stood for."""

    def __init__(self, position: Position, node_budget: int) -> None:
        super().__init__(*_read_position(position), node_budget=node_budget, deadline=None)
        self.positions: dict[int, object] = {}
        self.meetings = 0

    def _dfs(self, check: bool) -> bool:
        key = self.moved | self.extra
        shape = _shape(self)
        if key in self.positions:
            self.meetings += 1
            assert self.positions[key] == shape, "two positions share a key"
        self.positions[key] = shape
        return super()._dfs(check)


@pytest.mark.parametrize("seed", [HARD_SEED, 374])
def test_a_key_stands_for_one_position(seed: int) -> None:
    search = _RecordingSearch(deal_position(deal_code_for_seed(seed)), node_budget=5_000)
    with contextlib.suppress(_OutOfBudget):
        search.run()

    # Different move orders meet in one position, and then they share its key.
    assert search.meetings > 0


# --- Searches from one root that share what they prove lost ---------------------------------


def _fresh_and_shared(position: Position, budget: int) -> list[tuple[Solution, Solution]]:
    """Each action's position solved with a fresh table and by a ``SharedSearch`` of the
    position (after the search of the position itself, as the chances do)."""
    shared = SharedSearch(position)
    shared.solve(node_budget=budget)
    return [
        (
            solve(apply(position, action)[0], node_budget=budget),
            shared.solve(action, node_budget=budget),
        )
        for action in legal_actions(position)
    ]


@settings(max_examples=60, deadline=None)
@given(games(), st.data(), st.sampled_from([20, 300, 3_000]))
def test_a_shared_search_decides_whatever_a_fresh_one_decides_and_alike(
    game: Game, data: st.DataObject, budget: int
) -> None:
    # Skipping positions proven lost only leaves out what a fresh search would search and
    # find lost: the same verdict and line, in no more positions. The won line and the path
    # where a budget ran out are not proven lost: kept, they would make a won action "lost".
    position = game.positions[data.draw(st.integers(0, len(game.positions) - 1))]
    for fresh, shared in _fresh_and_shared(position, budget):
        if fresh.verdict != "unknown":
            assert (shared.verdict, shared.line) == (fresh.verdict, fresh.line)
            assert shared.nodes <= fresh.nodes


def test_a_shared_search_never_turns_an_unknown_into_a_wrong_verdict() -> None:
    # At a deal's start, with a budget small enough that fresh searches of the actions often
    # give up: where the shared table lets one decide within it, a win's line wins and a loss
    # is the plain exhaustive search's verdict.
    decided = {"won": 0, "lost": 0}
    for seed in SMALL_DEALS:
        position = deal_position(deal_code_for_seed(seed))
        for action, (fresh, shared) in zip(
            legal_actions(position), _fresh_and_shared(position, 50), strict=True
        ):
            if fresh.verdict != "unknown" or shared.verdict == "unknown":
                continue
            after = apply(position, action)[0]
            if shared.won:
                assert status(play_line(after, shared.line)) == "won"
            else:
                assert exhaustive_verdict(after, 20_000)[0] == "lost", (seed, action)
            decided[shared.verdict] += 1

    assert decided["won"] >= 15
    assert decided["lost"] >= 2


def test_a_shared_search_keeps_no_unfinished_position_as_lost() -> None:
    # A won deal: the search of the deal itself stops on its winning line, so the first
    # action of that line must still be found won by the next search, and so must an action
    # whose search ran out of budget on its way to the win.
    code = DEALS["won"][0]["code"]
    position = deal_position(code)
    shared = SharedSearch(position)
    first = shared.solve().actions()[0]
    assert shared.solve(first, node_budget=1).verdict == "unknown"
    assert shared.solve(first).won
    assert shared.solve(first).won
    assert not SharedSearch(position).solve(first, time_budget=0.0).lost


def _recorded_shared_searches(position: Position, budget: int) -> int:
    """Run the searches of a SharedSearch of ``position`` (the root's, then each action's),
    asserting that a key met by any of them always stands for one position; the number of
    times a key was met again."""
    from games.engine import solver

    shapes: dict[int, object] = {}
    meetings = [0]

    class Recording(_Search):
        def _dfs(self, check: bool) -> bool:
            key = self.moved | self.extra
            shape = _shape(self)
            meetings[0] += key in shapes
            assert shapes.setdefault(key, shape) == shape, "two positions share a key"
            return super()._dfs(check)

    with pytest.MonkeyPatch.context() as patch:
        # The Python search, whose keys it can watch (the compiled one visits the same
        # positions: tests/engine/test_solver_c.py).
        patch.setattr(solver, "_solver_c", None)
        patch.setattr(solver, "_Search", Recording)
        shared = SharedSearch(position)
        shared.solve(node_budget=budget)
        for action in legal_actions(position):
            shared.solve(action, node_budget=budget)
    return meetings[0]


def _won_deal_played(steps: int) -> Position:
    won = DEALS["won"][0]
    return play_line(deal_position(won["code"]), won["line"][:steps])


def _moved_without_dealing(seed: int, steps: int) -> Position:
    """A deal played at random (``random.Random(seed)``), never dealing the stock."""
    rng = random.Random(seed)
    position = deal_position(deal_code_for_seed(seed))
    for _ in range(steps):
        position = apply(position, rng.choice([a for a in legal_actions(position) if a != DEAL]))[0]
    return position


@pytest.mark.parametrize(
    "position",
    [
        pytest.param(lambda: deal_position(deal_code_for_seed(HARD_SEED)), id="hard-deal"),
        pytest.param(lambda: deal_position(deal_code_for_seed(374)), id="deal-374"),
        *(pytest.param(lambda s=s: _won_deal_played(s), id=f"won-{s}") for s in (0, 12, 30, 40)),
        # Two empty columns before the deal, one of 0-2 and one of 3-6: a King may go to
        # either, a different position with the same cards moved.
        pytest.param(lambda: _moved_without_dealing(169, 16), id="king-columns-169"),
        pytest.param(lambda: _moved_without_dealing(192, 13), id="king-columns-192"),
    ],
)
def test_a_key_stands_for_one_position_in_all_the_searches_from_one_root(
    position: Callable[[], Position],
) -> None:
    # The searches of a SharedSearch skip each other's keys: a key must stand for one position
    # whichever search meets it -- before the deal (King columns), after it (what the stock
    # cards were dealt onto) and across collections.
    _recorded_shared_searches(position(), 3_000)


def test_the_searches_from_one_root_meet_each_others_positions() -> None:
    # What the sharing is for: at a deal's start, the actions' searches reach positions that
    # the root's search or an earlier action's reached already.
    assert _recorded_shared_searches(deal_position(deal_code_for_seed(HARD_SEED)), 3_000) > 100


@settings(max_examples=150, deadline=None)
@given(games(), st.data())
def test_a_key_stands_for_one_position_in_the_searches_from_a_random_root(
    game: Game, data: st.DataObject
) -> None:
    # Random play reaches what the deals above may not: empty columns before the deal (a King
    # moved into column 0-2 or 3-6), Kings dealt from the stock, collections.
    position = game.positions[data.draw(st.integers(0, len(game.positions) - 1))]
    _recorded_shared_searches(position, 300)
