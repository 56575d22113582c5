"""A plain exhaustive search, the yardstick the solver's reductions are tested against.

No pruning of any kind: depth-first over ``games.engine.transitions`` (the engine's own rules,
an implementation independent of the solver's), every legal action tried, a visited set of
exact positions. Slow (tens of thousands of positions a second), so only for tests and for
checking the solver offline.
"""

from __future__ import annotations

from typing import Literal

from games.engine.legal import legal_actions
from games.engine.position import Position
from games.engine.transitions import apply

ReferenceVerdict = Literal["won", "lost", "unknown"]


def exhaustive_verdict(position: Position, node_budget: int) -> tuple[ReferenceVerdict, int]:
    """("won" | "lost" | "unknown", positions visited) by plain exhaustive search."""
    seen: set[Position] = {position}
    if len(position.collected) == position.variant.runs:
        return "won", 1
    # An explicit stack, not recursion: in Wasp cards move more than once, so lines can be
    # longer than Python's recursion limit.
    stack = [iter(legal_actions(position))]
    current = [position]
    while stack:
        for action in stack[-1]:
            after = apply(current[-1], action)[0]
            if after in seen:
                continue
            seen.add(after)
            if len(seen) > node_budget:
                return "unknown", len(seen)
            if len(after.collected) == after.variant.runs:
                return "won", len(seen)
            stack.append(iter(legal_actions(after)))
            current.append(after)
            break
        else:
            stack.pop()
            current.pop()
    return "lost", len(seen)
