"""The solver on the other variants of the family, checked against a plain exhaustive search.

Small positions: a deal of the variant with all but a few runs' cards taken away (counted as
collected), after the deal, so that the plain search decides them."""

from __future__ import annotations

import pytest

from games.engine._solver_reference import exhaustive_verdict
from games.engine.cards import parse_card
from games.engine.position import DEAL, Action, Position, play, resolve_move, status
from games.engine.solver import solve
from games.engine.variants import (
    DOUBLE_SCORPION,
    SCORPION_TAIL,
    THREE_BLIND_MICE,
    WASP,
    Variant,
    deal_code_for_seed,
    deal_position,
)

# The suits kept on the table, and the runs counted as collected (by their King's suit).
KEPT = {
    WASP: ({0}, (1, 2, 3)),
    SCORPION_TAIL: ({0, 1}, (2, 3)),  # spades and hearts make two alternating runs
    THREE_BLIND_MICE: ({0}, (1, 2, 3)),
    DOUBLE_SCORPION: ({1}, (0, 0, 2, 2, 3, 3, 1)),
}


def small_position(variant: Variant, seed: int) -> Position:
    dealt = deal_position(deal_code_for_seed(seed, variant), variant)
    suits, collected = KEPT[variant]
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
            action = resolve_move(position, parse_card(command["card"]), command["to"], source)
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
