"""Deal difficulty (games/engine/difficulty.py): the measures of known deals, the formula's
direction, the bands, determinism, and what a rating refuses."""

from __future__ import annotations

import dataclasses

import pytest

from games.engine.deals import deal_code_for_seed
from games.engine.difficulty import (
    BAND_THRESHOLDS,
    Measures,
    band_for,
    measure,
    rate,
    score,
)
from games.engine.legal import legal_actions
from games.engine.position import deal_position
from games.engine.solver import solve

# Certified deals of the service's own seeds, one per band (bench/difficulty.py rated them).
EASY_SEED = 5  # the simple policy wins 61 of 64 playouts, every first action keeps a win
MEDIUM_SEED = 65
HARD_SEED = 129  # the policy never wins; one first action in four loses


def typical(**changes: int) -> Measures:
    base = Measures(
        first_actions=5,
        first_actions_won=4,
        line_length=52,
        solver_nodes=60,
        playouts=64,
        playout_wins=20,
    )
    return dataclasses.replace(base, **changes)


def test_known_deals_fall_in_the_expected_bands() -> None:
    bands = {seed: rate(deal_code_for_seed(seed)).band for seed in (EASY_SEED, MEDIUM_SEED)}
    hard = rate(deal_code_for_seed(HARD_SEED))
    assert bands == {EASY_SEED: "easy", MEDIUM_SEED: "medium"}
    assert hard.band == "hard"
    assert hard.measures.playout_wins == 0
    assert hard.measures.first_actions_won < hard.measures.first_actions


def test_measures_count_the_first_actions_the_line_and_the_search() -> None:
    code = deal_code_for_seed(EASY_SEED)
    solution = solve(code)
    measures = measure(code, solution=solution)
    assert measures.first_actions == len(legal_actions(deal_position(code)))
    assert 0 < measures.first_actions_won <= measures.first_actions
    assert measures.line_length == len(solution.line)
    assert measures.solver_nodes == solution.nodes
    assert measures.playouts == 64
    assert 0 <= measures.playout_wins <= measures.playouts


def test_a_rating_is_the_same_on_every_run_and_depends_on_the_seed_only_through_playouts() -> None:
    code = deal_code_for_seed(MEDIUM_SEED)
    first, again = rate(code), rate(code)
    assert first == again
    other = measure(code, seed=1)
    assert dataclasses.replace(other, playout_wins=first.measures.playout_wins) == first.measures


def test_the_certificate_saves_a_solve_without_changing_the_rating() -> None:
    code = deal_code_for_seed(HARD_SEED)
    assert rate(code, solution=solve(code, node_budget=300_000)) == rate(code)


def test_more_playout_wins_make_a_deal_easier() -> None:
    scores = [score(typical(playout_wins=wins)) for wins in (0, 16, 32, 48, 64)]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] > scores[-1]


def test_first_actions_that_lose_make_a_deal_harder() -> None:
    assert score(typical(first_actions_won=1)) > score(typical(first_actions_won=5))


def test_a_longer_search_makes_a_deal_harder() -> None:
    assert score(typical(solver_nodes=60_000)) > score(typical(solver_nodes=60))


def test_scores_stay_between_0_and_100() -> None:
    easiest = typical(first_actions_won=5, playout_wins=64, solver_nodes=1, line_length=40)
    hardest = typical(first_actions_won=0, playout_wins=0, solver_nodes=10**9, line_length=70)
    assert score(easiest) == 0
    assert score(hardest) == 100


def test_bands_split_at_the_thresholds() -> None:
    low, high = BAND_THRESHOLDS
    assert [band_for(value) for value in (0, low - 1, low, high - 1, high, 100)] == [
        "easy",
        "easy",
        "medium",
        "medium",
        "hard",
        "hard",
    ]


def test_a_deal_not_proven_winnable_has_no_rating() -> None:
    lost = next(
        code
        for code in map(deal_code_for_seed, range(100))
        if solve(code, node_budget=100_000).lost
    )
    with pytest.raises(ValueError, match="proven winnable"):
        rate(lost)


def test_measures_round_trip_through_their_stored_form() -> None:
    measures = typical()
    stored = measures.to_dict()
    assert stored["first_action_share"] == 0.8
    assert stored["playout_win_rate"] == 0.3125
    assert Measures.from_dict(stored) == measures
