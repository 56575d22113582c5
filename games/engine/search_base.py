"""What Scorpion's search (games/engine/solver.py) and the other variants' search
(games/engine/variant_solver.py) share: the answer (``Solution``, ``Verdict``), what a
position must offer to be solved (``PositionLike``), the budget's exception, and the loading of
their compiled modules as SCORPION_SOLVER chooses. Both searches import this; neither imports
the other's internals, so the one import between them runs one way (solver.solve hands the
other variants to variant_solver.solve_variant)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal, Protocol

from games.engine.actions import DEAL, Action, Move
from games.engine.cards import parse_card

# The same search compiled (games/engine/_solver_c.c, built by setup.py where a C compiler is
# at hand): it visits the same positions in the same order, finds the same line and counts the
# same nodes, about 45 times faster, and without holding the GIL. Without it, the search below.
# SCORPION_SOLVER chooses: "compiled" (fail at import if it was not built: a production image
# must not fall back unnoticed), "python" (the search below, e.g. for a benchmark side by side),
# or unset/empty (compiled where built).
SOLVER_ENVIRONMENT = "SCORPION_SOLVER"


def _load_compiled(choice: str, name: str = "_solver_c") -> ModuleType | None:
    """The compiled module ``games.engine.<name>`` (built from games/engine/<name>.c) as
    SOLVER_ENVIRONMENT chooses; variant_solver.py loads its own (``_variant_c``) alike."""
    if choice not in ("", "compiled", "python"):
        raise ImproperlyConfiguredSolver(
            f'{SOLVER_ENVIRONMENT} is "compiled", "python" or empty, not {choice!r}'
        )
    if choice == "python":
        return None
    try:
        module = importlib.import_module(f"games.engine.{name}")
    except ImportError as error:
        if choice == "compiled":
            raise ImproperlyConfiguredSolver(
                f"{SOLVER_ENVIRONMENT}=compiled, but games/engine/{name}.c was not built "
                f"(no C compiler at install time?): {error}"
            ) from error
        return None
    return module


class ImproperlyConfiguredSolver(RuntimeError):
    """SCORPION_SOLVER asks for what cannot be had."""


Verdict = Literal["won", "lost", "unknown"]
_VERDICTS: dict[int, Verdict] = {1: "won", 0: "lost", -1: "unknown"}
# How many positions a search visits between two looks at the clock (a time budget).
_CHECK_CLOCK_EVERY = 256


class PositionLike(Protocol):
    """What ``solve`` reads from a mid-game position (``games.engine.position.Position``)."""

    @property
    def columns(self) -> Sequence[Sequence[int]]: ...

    @property
    def hidden(self) -> Sequence[int]: ...

    @property
    def stock(self) -> Sequence[int]: ...

    @property
    def collected(self) -> Sequence[int]: ...


@dataclass(frozen=True, slots=True)
class Solution:
    """The verdict on a position, with a winning line when there is one.

    ``line`` is a list of API commands (``{"type": "move", "card": "8H", "to": 3}``,
    ``{"type": "deal"}``; ``to`` is the 0-based destination column), the format of
    tests/data/deals.json, to be played from the position that was solved. Empty unless ``verdict``
    is "won". ``nodes`` is the number of distinct positions visited, ``seconds`` the time taken.
    """

    verdict: Verdict
    line: list[dict[str, Any]]
    nodes: int
    seconds: float

    @property
    def won(self) -> bool:
        return self.verdict == "won"

    @property
    def lost(self) -> bool:
        return self.verdict == "lost"

    def actions(self) -> list[Action]:
        """The line as engine actions (``Move``, ``DEAL``), for ``games.engine.transitions.play``.
        A command names a card by its face: in two decks the card is the copy its ``from``
        column holds (``games.engine.resolve.resolve_move``), which this does not look up."""
        return [
            DEAL if command["type"] == "deal" else Move(parse_card(command["card"]), command["to"])
            for command in self.line
        ]


class _OutOfBudget(Exception):
    pass
