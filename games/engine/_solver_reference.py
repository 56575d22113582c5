"""A plain exhaustive search, the yardstick the solver's reductions are tested against.

No pruning of any kind: depth-first over ``games.engine.position`` (the engine's own rules,
an implementation independent of the solver's), every legal action tried, a visited set of
exact positions. Slow (tens of thousands of positions a second), so only for tests and for
checking the solver offline.
"""

from __future__ import annotations

from typing import Literal

from games.engine.position import Position, apply, legal_actions

ReferenceVerdict = Literal["won", "lost", "unknown"]


class _OutOfBudget(Exception):
    pass


def exhaustive_verdict(position: Position, node_budget: int) -> tuple[ReferenceVerdict, int]:
    """("won" | "lost" | "unknown", positions visited) by plain exhaustive search."""
    seen: set[Position] = set()

    def search(current: Position) -> bool:
        if current in seen:
            return False
        seen.add(current)
        if len(seen) > node_budget:
            raise _OutOfBudget
        if len(current.collected) == 4:
            return True
        return any(search(apply(current, action)[0]) for action in legal_actions(current))

    # A game has at most 52 moves and a deal, so the recursion stays shallow.
    try:
        verdict: ReferenceVerdict = "won" if search(position) else "lost"
    except _OutOfBudget:
        verdict = "unknown"
    return verdict, len(seen)
