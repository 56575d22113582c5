"""The solver on the other variants of the family, checked against a plain exhaustive search.

Small positions: a deal of the variant with all but a few runs' cards taken away (counted as
collected), after the deal, so that the plain search decides them."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import variant_solver
from games.engine._solver_reference import exhaustive_verdict
from games.engine.actions import DEAL, Action
from games.engine.cards import parse_card
from games.engine.legal import legal_actions, status
from games.engine.position import Position, deal_position
from games.engine.resolve import resolve_move
from games.engine.solver import Solution, solve
from games.engine.transitions import apply, play
from games.engine.variant_solver import dead, solve_variant, uses_deadlock_proof
from games.engine.variants import (
    DOUBLE_SCORPION,
    DOUBLE_SCORPION_3_2,
    SCORPION_TAIL,
    THREE_BLIND_MICE,
    WASP,
    WASP_II,
    Variant,
    deal_code_for_seed,
)
from tests.long import sized

# The suits kept on the table, and the runs counted as collected (by their King's suit).
KEPT = {
    WASP: ({0}, (1, 2, 3)),
    SCORPION_TAIL: ({0, 1}, (2, 3)),  # spades and hearts make two alternating runs
    THREE_BLIND_MICE: ({0}, (1, 2, 3)),
    DOUBLE_SCORPION: ({1}, (0, 0, 2, 2, 3, 3, 1)),
    WASP_II: ({0}, (1, 2, 3)),
    DOUBLE_SCORPION_3_2: ({1}, (0, 0, 2, 2, 3, 3, 1)),
}


def small_position(
    variant: Variant, seed: int, kept: dict[Variant, tuple[set[int], tuple[int, ...]]] = KEPT
) -> Position:
    dealt = deal_position(deal_code_for_seed(seed, variant), variant)
    suits, collected = kept[variant]
    columns = []
    hidden = []
    for column, face_down in zip(dealt.columns, dealt.hidden, strict=True):
        kept = tuple(card for card in column if (card // 13) % 4 in suits)
        down = sum(1 for card in column[:face_down] if (card // 13) % 4 in suits)
        columns.append(kept)
        hidden.append(min(down, max(len(kept) - 1, 0)))
    return Position(
        tuple(columns),
        tuple(hidden),
        (),
        collected,
        tuple(card for card in dealt.reserve if (card // 13) % 4 in suits),
        variant,
    )


def replays_to_a_win(position: Position, line: list[dict[str, object]]) -> bool:
    for command in line:
        action: Action
        if command["type"] == "deal":
            action = DEAL
        else:
            source = command.get("from")
            assert isinstance(source, int)
            copy = command.get("copy")
            assert copy in (None, "upper", "lower")
            action = resolve_move(
                position, parse_card(command["card"]), command["to"], source, copy
            )
        position, _ = play(position, action)
    return status(position) == "won"


@pytest.mark.parametrize("variant", list(KEPT), ids=lambda variant: variant.name)
def test_the_solver_agrees_with_an_exhaustive_search(variant: Variant) -> None:
    decided = 0
    for seed in range(8):
        position = small_position(variant, seed)
        solution = solve(position, node_budget=20_000)
        reference, _ = exhaustive_verdict(position, 20_000)
        if "unknown" in (solution.verdict, reference):
            continue
        decided += 1
        assert solution.verdict == reference, seed
        if solution.won:
            assert replays_to_a_win(position, solution.line)
    assert decided >= 3


@pytest.mark.parametrize("variant", list(KEPT), ids=lambda variant: variant.name)
def test_a_deal_of_every_variant_can_be_solved_by_code(variant: Variant) -> None:
    solution = solve(deal_code_for_seed(0, variant), node_budget=300, variant=variant)
    assert solution.verdict in ("won", "lost", "unknown")
    assert solution.nodes <= 301


# --- Deadlock detection (games.engine.variant_solver.dead) --------------------------------------

# Two suits on the table, in the variants where the deadlock proof holds (the search uses it
# in Three Blind Mice only, ``uses_deadlock_proof``): the plain search still decides most of
# these, and deadlocks are common enough to test (about 125 of the 130 Scorpion Tail positions
# below, 100 of the 180 Three Blind Mice ones).
WIDER = {
    SCORPION_TAIL: ({0, 1}, (2, 3)),
    THREE_BLIND_MICE: ({0, 1}, (2, 3)),
}


def positions_along_random_play(variant: Variant, seed: int) -> list[Position]:
    """A small position (``WIDER``) and the positions of a random game played from it, seeded
    so that every run checks the same ones."""
    rng = random.Random(seed)
    position = small_position(variant, seed, WIDER)
    found = [position]
    for _ in range(40):
        actions = legal_actions(position)
        if not actions:
            break
        position = apply(position, rng.choice(actions))[0]
        if status(position) == "won":
            break
        found.append(position)
    return found


@pytest.mark.parametrize("variant", list(WIDER), ids=lambda variant: variant.name)
def test_a_position_called_dead_is_never_won_by_the_exhaustive_search(variant: Variant) -> None:
    dead_and_decided = 0
    lost_seen = 0
    for seed in range(30):
        for position in positions_along_random_play(variant, seed)[::4]:
            reference, _ = exhaustive_verdict(position, 5_000)
            lost_seen += reference == "lost"
            if dead(position):
                assert reference != "won", (seed, position)
                dead_and_decided += reference == "lost"
    # The check has teeth: deadlocks were found among positions the reference decided.
    assert dead_and_decided >= 10, (dead_and_decided, lost_seen)


@pytest.mark.parametrize(
    "variant",
    [variant for variant in WIDER if uses_deadlock_proof(variant)],
    ids=lambda variant: variant.name,
)
def test_the_search_with_deadlock_detection_agrees_with_the_plain_one(variant: Variant) -> None:
    # The plain search is the dear half (1-1.5 s of pure Python per seed it decides or gives up
    # on): 20 seeds compare 16 positions, the long run (tests/long.py) all 30.
    compared = 0
    for seed in range(sized(20, 30)):
        position = small_position(variant, seed, WIDER)
        pruned = solve_variant(position, variant, 20_000, None)
        compared += agrees_with_the_plain_search(position, pruned, 20_000)
    assert compared >= 10


def test_the_search_uses_the_deadlock_proof_where_it_holds_and_pays() -> None:
    # Scorpion Tail: the proof holds, but made each position 2.5-3.5 times dearer for 27 more
    # deals of 1,000 proven lost (variant_solver._DEADLOCK_PROOF_NOT_WORTH_IT).
    assert [variant.name for variant in KEPT if uses_deadlock_proof(variant)] == [
        "three-blind-mice"
    ]


def agrees_with_the_plain_search(position: Position, solution: Solution, budget: int) -> bool:
    """Whether the plain search (``prune=False``) and ``solution`` both decide ``position``;
    if so, asserts that they agree, and that a win's line replays."""
    plain = solve_variant(position, position.variant, budget, None, prune=False)
    if "unknown" in (solution.verdict, plain.verdict):
        return False
    assert solution.verdict == plain.verdict, position
    if solution.won:
        assert replays_to_a_win(position, solution.line)
    return True


# --- Probes (games.engine.variant_solver._VariantSearch.run) ------------------------------------

PROBED = [WASP, SCORPION_TAIL, DOUBLE_SCORPION]


@pytest.mark.parametrize("variant", PROBED, ids=lambda variant: variant.name)
@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 10**6), probe_nodes=st.integers(1, 40))
def test_short_probes_agree_with_the_exhaustive_search(
    variant: Variant, seed: int, probe_nodes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Probes of a few positions each, so that these small positions take many of them: a probe
    # that wins gives a line that replays, one that ends before its size proves the loss.
    monkeypatch.setattr(variant_solver, "_PROBE_NODES", probe_nodes)
    position = small_position(variant, seed, WIDER if variant in WIDER else KEPT)
    solution = solve_variant(position, variant, 3_000, None)
    reference, _ = exhaustive_verdict(position, 3_000)
    if "unknown" not in (solution.verdict, reference):
        assert solution.verdict == reference
    if solution.won:
        assert replays_to_a_win(position, solution.line)


@pytest.mark.parametrize("variant", PROBED, ids=lambda variant: variant.name)
def test_probes_agree_with_the_plain_search_and_repeat(
    variant: Variant, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(variant_solver, "_PROBE_NODES", 10)
    probed = 0
    compared = 0
    for seed in range(16):
        position = small_position(variant, seed, WIDER if variant in WIDER else KEPT)
        solution = solve_variant(position, variant, 5_000, None)
        # The same position and budget give the same answer (the probes are seeded).
        again = solve_variant(position, variant, 5_000, None)
        assert (again.verdict, again.line, again.nodes) == (
            solution.verdict,
            solution.line,
            solution.nodes,
        )
        probed += solution.nodes > 10  # more than one probe ran
        compared += agrees_with_the_plain_search(position, solution, 5_000)
    # Small Scorpion Tail positions are mostly decided at the root (no move, or a deadlock).
    assert probed >= (0 if variant is SCORPION_TAIL else 4), probed
    assert compared >= 6, compared


@pytest.mark.parametrize("variant", PROBED, ids=lambda variant: variant.name)
def test_the_probes_winning_lines_on_whole_deals_replay(variant: Variant) -> None:
    won = 0
    for seed in range(6):
        code = deal_code_for_seed(seed, variant)
        solution = solve(code, node_budget=1_500, variant=variant)
        if solution.won:
            won += 1
            assert replays_to_a_win(deal_position(code, variant), solution.line)
    assert won >= 1
