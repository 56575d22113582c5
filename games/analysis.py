"""Post-game analysis of a finished game, with no Django import (like ``games.history``).

Once a game is over, the solver's full knowledge of the deal may be used (docs/rules.md, hidden
information): was the deal winnable from the start, and for a game that was not won, the last
version of its history from which a win was still possible, the event that lost it, and a
winning line from there.

Versions are those of the API: version ``v`` is the state after the first ``v`` events. With
undo and redo, winnability is not monotone along the versions (an undo can bring a winnable
position back), so the versions are examined from the last one backwards until one is found
winnable; positions met again (after an undo) are solved once. Along the way:

- the event after the last winnable version is a move, a deal or a redo: an undo leads back
  to the position the undone action started from, which reaches the (winnable) position it
  left, so it is winnable too; a resign changes no position;
- a winnable version proves the deal winnable (the deal reaches it), whatever the solver said
  of the deal itself within its budget.

Every solver call has a node budget (so the same game gets the same analysis on every machine)
and the whole analysis a total one, both per variant (``analysis_budgets``). A verdict the solver
could not reach within them is said as such: "unknown", never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from games.engine.actions import DEAL, Action
from games.engine.cards import parse_card
from games.engine.position import Position, player_view
from games.engine.resolve import resolve_move
from games.engine.solver import DEFAULT_NODE_BUDGET, Solution, Verdict, compiled, solve
from games.engine.transitions import play
from games.engine.variant_solver import compiled as variants_compiled
from games.engine.variants import SCORPION, VARIANTS
from games.history import GameState, fold_event, new_game_state

__all__ = [
    "ANALYSIS_NODE_BUDGET",
    "ANALYSIS_TOTAL_BUDGET",
    "VARIANT_ANALYSIS_BUDGETS",
    "VARIANT_INLINE_ANALYSIS_BUDGETS",
    "Analysis",
    "Outcome",
    "analyse",
    "analysis_budgets",
    "inline_analysis_budgets",
    "line_steps",
]

# Positions visited per solver call, and in all for one game: Scorpion's. A call may search as
# far as ``solve()`` itself does (DEFAULT_NODE_BUDGET, which decides every deal of seeds
# 0-9,999): with less, an analysis said "unknown" of deals the solver decides (seed 7908 needs
# 1,025,570 positions), and every deal of seeds 0-9,999 analysed from the deal is now decided
# (docs/scaling.md, "Post-game analysis budgets"). The total leaves room for the walk back
# after the dearest deal. The compiled solver visits about 1.2 million positions a second of
# CPU, so an analysis takes at most about 3.5 s; the Python search, without a C compiler, about
# 37,000, so at most about two minutes, within the task's five (games/tasks.py).
ANALYSIS_NODE_BUDGET = DEFAULT_NODE_BUDGET
ANALYSIS_TOTAL_BUDGET = 2 * DEFAULT_NODE_BUDGET
# The other variants are searched on engine positions (games/engine/variant_solver.py): in
# Python at 2,500-9,000 positions a second of CPU, so smaller budgets, and an analysis holds a
# worker (or, without one, a request) for seconds, not minutes: at most about 14 s of CPU a
# game (Double Scorpion with the probes, on a loaded machine), Scorpion Tail about 6 s, Wasp and
# Three Blind Mice well under 1 s. Compiled (games/engine/_variant_c.c, 30-60 times faster, the
# same positions), ten times the positions in less time: at most about 1 s a game, and fewer
# "unknown" (seeds 0-9 resigned after 15 random actions: Double Scorpion's deals 10 of 10
# decided instead of 7, its analyses settled 7 of 10 instead of 4; Scorpion Tail's deals 8
# instead of 7). Measured with bench/analysis.py (docs/benchmarks.md, "Post-game analysis of the
# variants"). A deal they leave undecided is analysed as "unknown", said as such.
VARIANT_ANALYSIS_BUDGETS: dict[str, tuple[int, int]] = dict.fromkeys(
    (name for name in VARIANTS if name != SCORPION.name),
    (250_000, 1_000_000) if variants_compiled() else (25_000, 100_000),
)


# What a request may search when it computes an analysis itself (no live worker): sized to stay
# well under a web worker's timeout (gunicorn's 30 s in docker-compose.yml), about 5 s of CPU at
# most (docs/benchmarks.md, "Post-game analysis in a request"), where the full budgets above may
# take 90 s (Scorpion in Python) or 14 s (Double Scorpion). Never larger than the full ones. A
# request's analysis is stored only when it is ``settled`` (every solver call decided): the search
# is the same whatever its budget, which only cuts it short, so any larger budgets give that very
# analysis.
VARIANT_INLINE_ANALYSIS_BUDGETS: dict[str, tuple[int, int]] = {
    # Compiled, Scorpion's full budgets take about 3.5 s at most: a request computes the worker's
    # very analysis, and never answers 503 (bench/analysis.py, docs/benchmarks.md "Post-game
    # analysis").
    "scorpion": (
        (ANALYSIS_NODE_BUDGET, ANALYSIS_TOTAL_BUDGET) if compiled() else (100_000, 100_000)
    ),
    # Compiled, the variants' full budgets take about 1 s at most: the worker's analysis too.
    **(
        dict(VARIANT_ANALYSIS_BUDGETS)
        if variants_compiled()
        else {
            "wasp": (25_000, 50_000),
            "wasp-ii": (25_000, 50_000),
            "scorpion-tail": (25_000, 50_000),
            "three-blind-mice": (25_000, 50_000),
            "double-scorpion": (25_000, 30_000),
            "double-scorpion-3-2": (25_000, 30_000),
        }
    ),
}


def analysis_budgets(variant: str) -> tuple[int, int]:
    """(positions per solver call, positions in all) for a game of ``variant`` (its slug)."""
    return VARIANT_ANALYSIS_BUDGETS.get(variant, (ANALYSIS_NODE_BUDGET, ANALYSIS_TOTAL_BUDGET))


def inline_analysis_budgets(variant: str) -> tuple[int, int]:
    """The budgets of an analysis computed in a request (``VARIANT_INLINE_ANALYSIS_BUDGETS``),
    never above the variant's full ones."""
    per_call, total = analysis_budgets(variant)
    inline = VARIANT_INLINE_ANALYSIS_BUDGETS.get(variant, (per_call, total))
    return min(per_call, inline[0]), min(total, inline[1])


Outcome = Literal["won", "unwinnable", "slipped", "ended_winnable", "unknown"]


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the solver says about a finished game.

    ``deal``: was the deal winnable from the start ("won", "lost", or "unknown" when the budget
    ran out). ``outcome``:

    - "won": the player won;
    - "unwinnable": the deal could not be won (proven);
    - "slipped": ``last_winnable_version`` could still be won, and the next event (a move, a
      deal or a redo) lost it;
    - "ended_winnable": the game ended (resigned, abandoned) while it could still be won, so
      ``last_winnable_version`` is the last version;
    - "unknown": the solver could not decide within its budget where the game turned.

    ``line``: a winning line (API commands) from ``line_version`` -- the last winnable version,
    or the deal (0) for a won game --, empty when none is known.
    """

    deal: Verdict
    outcome: Outcome
    last_winnable_version: int | None
    line_version: int | None
    line: list[dict[str, Any]]
    nodes: int
    seconds: float
    solved_positions: int = field(default=0)
    # Solver calls the budgets left undecided (or never made, the total spent).
    undecided_calls: int = field(default=0)

    @property
    def settled(self) -> bool:
        """Every solver call was decided within its budget: larger budgets give this very
        analysis (the same calls, each the same search, which a budget only cuts short)."""
        return self.undecided_calls == 0


class _Budget:
    def __init__(self, per_call: int, total: int) -> None:
        self.per_call = per_call
        self.left = total
        self.nodes = 0
        self.seconds = 0.0
        self.calls = 0
        self.undecided = 0
        self.cache: dict[Position, Solution] = {}

    def solve(self, position: Position | Sequence[int]) -> Solution:
        key = position if isinstance(position, Position) else None
        if key is not None and key in self.cache:
            return self.cache[key]
        if self.left <= 0:
            self.undecided += 1
            return Solution("unknown", [], 0, 0.0)
        solution = solve(position, node_budget=min(self.per_call, self.left))
        if solution.verdict == "unknown":
            self.undecided += 1
        self.left -= solution.nodes
        self.nodes += solution.nodes
        self.seconds += solution.seconds
        self.calls += 1
        if key is not None:
            self.cache[key] = solution
        return solution


def analyse(
    deal: Position | Sequence[int],
    events: Iterable[tuple[str, dict[str, Any]]],
    *,
    won: bool,
    node_budget: int = ANALYSIS_NODE_BUDGET,
    total_budget: int = ANALYSIS_TOTAL_BUDGET,
) -> Analysis:
    """Analyse the game dealt ``deal`` (the position as dealt, whose variant it carries, or a
    Scorpion deal's 52 cards) whose log is ``events`` ((type, payload) pairs in order, as
    stored); ``won``: whether the player won it."""
    budget = _Budget(node_budget, total_budget)
    if isinstance(deal, Position):
        state = GameState(position=deal, line=(), redo=())
    else:
        state = new_game_state(deal)
    positions = [state.position]
    for event_type, payload in events:
        state = fold_event(state, event_type, payload)
        positions.append(state.position)

    deal_solution = budget.solve(positions[0])
    if won:
        # The player's own win proves the deal; the solver's line is shown when it found one.
        line = deal_solution.line if deal_solution.won else []
        return _result(budget, "won", "won", None, 0 if line else None, line)
    if deal_solution.lost:
        return _result(budget, "lost", "unwinnable", None, None, [])

    last = len(positions) - 1
    for version in range(last, -1, -1):
        solution = budget.solve(positions[version])
        if solution.won:
            outcome: Outcome = "ended_winnable" if version == last else "slipped"
            return _result(budget, "won", outcome, version, version, solution.line)
        if not solution.lost:
            # Undecided here: a winnable version may still lie anywhere before or at it.
            break
    return _result(budget, deal_solution.verdict, "unknown", None, None, [])


def _result(
    budget: _Budget,
    deal: Verdict,
    outcome: Outcome,
    last_winnable: int | None,
    line_version: int | None,
    line: list[dict[str, Any]],
) -> Analysis:
    return Analysis(
        deal=deal,
        outcome=outcome,
        last_winnable_version=last_winnable,
        line_version=line_version,
        line=list(line),
        nodes=budget.nodes,
        seconds=budget.seconds,
        solved_positions=budget.calls,
        undecided_calls=budget.undecided,
    )


def line_steps(start: Position, line: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each command of a winning line with the table after it (``player_view``: face-down
    cards as counts, like every other table the API draws), for a viewer to step through."""
    steps: list[dict[str, Any]] = []
    position = start
    for command in line:
        position, _ = play(position, _line_action(position, command))
        steps.append(player_view(position))
    return [{"command": dict(command), **table} for command, table in zip(line, steps, strict=True)]


def _line_action(position: Position, command: dict[str, Any]) -> Action:
    """A command of the line as the engine's action, on ``position``, resolved as a player's
    command is (``games.history.apply_command``). In two decks a move names its copy by the
    column it leaves (``from``, which the variants' solver gives): the face alone would take
    the first copy, which may lie elsewhere and not move there (every won Double Scorpion line
    was refused as an illegal move)."""
    if command["type"] == "deal":
        return DEAL
    return resolve_move(
        position,
        parse_card(command["card"]),
        command["to"],
        command.get("from"),
        command.get("copy"),
    )
