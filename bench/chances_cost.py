"""What a winning-chances answer costs a worker: CPU per answer at a game's start, compiled and
in Python side by side.

Run from the repository root: ``.venv/bin/python bench/chances_cost.py [--positions 60]
[--start-seed 5000] [--samples 200] [--python]``.

Positions: the Scorpion deal of each seed ``start_seed, start_seed + 1, ...``, played for 0-11
moves (``random.Random(seed)`` draws how many) along the first hint (``ranked_hints``), as the
players of bench/chances.py open their games; a position with no move left is skipped. Each is
answered as the hints worker answers it (``games.engine.chances.chances`` on the visible table,
the service's budgets: ``CHANCE_SAMPLES`` samples, ``CHANCE_NODE_BUDGET`` positions a solve,
``CHANCE_WORK_BUDGET`` in all, the seed the game's), CPU time (``time.process_time``).

Prints the command, machine and load, then the CPU per answer: median, mean, p90 and max, the
share of answers under 0.1 s and 0.3 s (a request computes those itself:
``CHANCES_REQUEST_MS``), the share of the CPU in answers over 0.5 s, and the mean, which sets
how many cores the workers need (docs/scaling.md). ``--python`` also answers every position with
the Python search, alternately first, and checks that the answers are the same.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import machine_description
from games.engine import solver
from games.engine.chances import ActionChance, VisibleTable, chances
from games.engine.deals import deal_code_for_seed
from games.engine.hints import ranked_hints
from games.engine.legal import legal_actions
from games.engine.position import Position, deal_position
from games.engine.transitions import apply

# The service's budgets (games/services/chances.py), repeated so that the bench needs no Django.
CHANCE_NODE_BUDGET = 20_000
CHANCE_WORK_BUDGET = 500_000


def opening(seed: int) -> Position | None:
    position = deal_position(deal_code_for_seed(seed))
    for _ in range(random.Random(seed).randrange(12)):
        hints = ranked_hints(position)
        if not hints:
            break
        position = apply(position, hints[0].action)[0]
    return position if len(legal_actions(position)) > 0 else None


def answer(position: Position, seed: int, samples: int) -> tuple[float, list[ActionChance]]:
    started = time.process_time()
    found = chances(
        VisibleTable.of(position),
        samples=samples,
        seed=seed,
        node_budget=CHANCE_NODE_BUDGET,
        work_budget=CHANCE_WORK_BUDGET,
    )
    return time.process_time() - started, found


def summary(label: str, cpu: list[float]) -> None:
    ordered = sorted(cpu)
    p90 = ordered[max(0, round(0.9 * len(ordered)) - 1)]
    dear = sum(seconds for seconds in cpu if seconds > 0.5)
    print(
        f"{label:<9} median {statistics.median(cpu):.3f} s, mean {statistics.mean(cpu):.3f} s, "
        f"p90 {p90:.3f} s, max {ordered[-1]:.3f} s; under 0.1 s: "
        f"{sum(s <= 0.1 for s in cpu)} of {len(cpu)}, under 0.3 s: {sum(s <= 0.3 for s in cpu)}; "
        f"answers over 0.5 s hold {100 * dear / max(sum(cpu), 1e-9):.0f}% of the CPU"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--start-seed", type=int, default=5000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--python", action="store_true", help="the Python search too")
    arguments = parser.parse_args()
    print(f"command:  python {' '.join(sys.argv)}")
    print(f"machine:  {machine_description()}")
    print("load:     {:.2f} {:.2f} {:.2f} (1, 5, 15 min)".format(*os.getloadavg()))
    print(f"search:   {'compiled' if solver.compiled() else 'Python'} (SCORPION_SOLVER)")
    print(
        f"budgets:  {arguments.samples} samples, {CHANCE_NODE_BUDGET:,} positions a solve, "
        f"work {CHANCE_WORK_BUDGET:,} an answer"
    )
    compiled_module = solver._solver_c
    fast: list[float] = []
    slow: list[float] = []
    seed = arguments.start_seed
    while len(fast) < arguments.positions:
        position = opening(seed)
        seed += 1
        if position is None:
            continue
        first_python = arguments.python and len(fast) % 2 == 1
        runs: dict[str, tuple[float, list[ActionChance]]] = {}
        for kind in ("python", "compiled") if first_python else ("compiled", "python"):
            if kind == "python" and not arguments.python:
                continue
            solver._solver_c = None if kind == "python" else compiled_module
            runs[kind] = answer(position, seed - 1, arguments.samples)
        solver._solver_c = compiled_module
        fast.append(runs["compiled"][0])
        if arguments.python:
            slow.append(runs["python"][0])
            if runs["python"][1] != runs["compiled"][1]:
                print(f"DIFFERENT ANSWERS at seed {seed - 1}")
                sys.exit(1)
    print(f"positions: {len(fast)} (seeds {arguments.start_seed}-{seed - 1})")
    summary("compiled" if compiled_module is not None else "python", fast)
    if slow:
        summary("python", slow)
        print(f"answers:  the same, compiled and in Python, at all {len(fast)} positions")


if __name__ == "__main__":
    main()
