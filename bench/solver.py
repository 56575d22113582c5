"""Solver benchmark: decide random deals from fixed seeds, report verdicts, win rate and speed.

Run from the repository root: ``python bench/solver.py [--deals 1000] [--start-seed 0]
[--node-budget N] [--time-budget S] [--tail 20] [--seeds 7908,2395 | 0-9999] [--variant wasp]
[--python] [--compare-tail]``.
Deal ``i`` is ``deal_code_for_seed(start_seed + i, variant)``
(games/engine/deals.py, the service's own seeds), so the same deals come back on every run and
machine. Every winning line found is replayed on the engine (games/engine/transitions.py) to
confirm it wins; ``--cross-check N`` also decides the first N deals by a plain exhaustive search
(slow) and compares the verdicts.

Prints won / lost / unknown, the win rate with its 95% Wilson confidence interval, positions
searched per second, the median / p99 / max time per deal, the tail (the ``--tail`` slowest
deals with their verdicts and positions searched; the slowest deals are what the analysis and
the certification wait for), and the command that produced them. ``--seeds`` decides just the
listed seeds instead (to measure the slow ones again without a whole sweep).

The search runs compiled where it was built (Scorpion's games/engine/_solver_c.c, the other
variants' games/engine/_variant_c.c; the line "search:" says which); ``--python`` runs the
Python search instead, and ``--compare-tail`` solves the tail's deals again with the Python
search, side by side in the same run (the same verdicts, lines and positions, the CPU time of
each).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import machine_description
from games.engine import solver, variant_solver
from games.engine.actions import DEAL, Action
from games.engine.cards import parse_card
from games.engine.legal import status
from games.engine.position import deal_position
from games.engine.resolve import resolve_move
from games.engine.solver import DEFAULT_NODE_BUDGET, Solution, compiled, solve
from games.engine.transitions import play
from games.engine.variants import (
    SCORPION,
    VARIANTS,
    Variant,
    deal_code_for_seed,
    get_variant,
)

Z_95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default)."""
    if trials == 0:
        return 0.0, 1.0
    rate = successes / trials
    denominator = 1 + z * z / trials
    centre = (rate + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def line_wins(code: str, solution: Solution, variant: Variant = SCORPION) -> bool:
    """Replay a winning line on the engine, each command checked as a player's would be."""
    position = deal_position(code, variant)
    for command in solution.line:
        action: Action
        if command["type"] == "deal":
            action = DEAL
        else:
            action = resolve_move(
                position, parse_card(command["card"]), command["to"], command.get("from")
            )
        position, _ = play(position, action)
    return status(position) == "won"


def format_seconds(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.2f} ms"
    return f"{seconds:.2f} s"


def progress(done: int, total: int, counts: dict[str, int], started: float) -> None:
    width = 30
    filled = width * done // total
    elapsed = time.perf_counter() - started
    sys.stderr.write(
        f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} deals, "
        f"{counts['won']} won {counts['lost']} lost {counts['unknown']} unknown, {elapsed:.1f} s"
    )
    sys.stderr.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--start-seed", type=int, default=0)
    parser.add_argument("--node-budget", type=int, default=DEFAULT_NODE_BUDGET)
    parser.add_argument("--time-budget", type=float, default=None, help="seconds per deal")
    parser.add_argument("--cross-check", type=int, default=0, metavar="N")
    parser.add_argument("--cross-check-budget", type=int, default=200_000)
    parser.add_argument("--tail", type=int, default=10, metavar="N", help="list the N slowest")
    parser.add_argument(
        "--seeds",
        type=_seed_list,
        default=None,
        help="comma-separated seeds or ranges (7908,2395 or 0-9999), instead of --deals",
    )
    parser.add_argument(
        "--variant", default="scorpion", choices=list(VARIANTS), help="the game of the family"
    )
    parser.add_argument("--python", action="store_true", help="the search in Python, not compiled")
    parser.add_argument(
        "--compare-tail",
        action="store_true",
        help="solve the tail's deals again with the Python search, side by side",
    )
    arguments = parser.parse_args()
    variant = get_variant(arguments.variant)
    if arguments.python:
        solver._solver_c = None
        variant_solver._variant_c = None

    print(f"command:  python {' '.join(sys.argv)}")
    print(f"python:   {platform.python_implementation()} {platform.python_version()}")
    print(f"machine:  {machine_description()}")
    print("load:     {:.2f} {:.2f} {:.2f} (1, 5, 15 min)".format(*os.getloadavg()))
    print(f"search:   {search_description(variant)}")
    first, total = arguments.start_seed, arguments.deals
    seeds = arguments.seeds or list(range(first, first + total))
    total = len(seeds)
    described = (
        f"seeds {','.join(map(str, seeds))}"
        if arguments.seeds and seeds != list(range(seeds[0], seeds[0] + total))
        else f"seeds {seeds[0]}-{seeds[-1]}"
    )
    print(
        f"deals:    {total}{'' if variant is SCORPION else ' ' + variant.name} "
        f"({described}, deal_code_for_seed), "
        f"node budget {arguments.node_budget:,}, time budget "
        f"{'none' if arguments.time_budget is None else f'{arguments.time_budget} s'}"
    )

    counts = {"won": 0, "lost": 0, "unknown": 0}
    times: list[tuple[float, int]] = []
    # CPU seconds per deal (time.process_time): the machine is shared, so wall time is noisy.
    cpu: dict[int, float] = {}
    details: dict[int, tuple[str, int]] = {}
    lines: dict[int, list[dict[str, object]]] = {}
    nodes = 0
    confirmed = 0
    unconfirmed: list[int] = []
    started = time.perf_counter()
    for index, seed in enumerate(seeds):
        code = deal_code_for_seed(seed, variant)
        cpu_started = time.process_time()
        solution = solve(
            code,
            node_budget=arguments.node_budget,
            time_budget=arguments.time_budget,
            variant=variant,
        )
        cpu[seed] = time.process_time() - cpu_started
        counts[solution.verdict] += 1
        times.append((solution.seconds, seed))
        details[seed] = (solution.verdict, solution.nodes)
        lines[seed] = solution.line
        nodes += solution.nodes
        if solution.won:
            if line_wins(code, solution, variant):
                confirmed += 1
            else:
                unconfirmed.append(seed)
        if index % 10 == 9 or index == total - 1:
            progress(index + 1, total, counts, started)
    wall = time.perf_counter() - started
    sys.stderr.write("\n")

    searching = sum(seconds for seconds, _ in times)
    decided = counts["won"] + counts["lost"]
    low, high = wilson_interval(counts["won"], decided)
    ordered = sorted(times)
    p99 = ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)][0]
    slowest, slowest_seed = ordered[-1]
    print(f"verdicts: {counts['won']} won, {counts['lost']} lost, {counts['unknown']} unknown")
    if decided:
        print(
            f"win rate: {100 * counts['won'] / decided:.1f}% of decided deals "
            f"(95% Wilson interval {100 * low:.1f}%-{100 * high:.1f}%)"
        )
    print(
        f"lines:    {confirmed}/{counts['won']} winning lines replayed to a win on the engine"
        + (f"; NOT confirmed: seeds {unconfirmed}" if unconfirmed else "")
    )
    print(
        f"nodes:    {nodes:,} positions in {searching:.2f} s of search: "
        f"{nodes / searching if searching else 0:,.0f} positions/s"
    )
    print(
        f"per deal: median {format_seconds(statistics.median(s for s, _ in times))}, "
        f"p99 {format_seconds(p99)}, max {format_seconds(slowest)} (seed {slowest_seed})"
    )
    by_cpu = sorted(cpu.values())
    print(
        f"cpu:      {sum(by_cpu):.2f} s of CPU in solve (one core); per deal median "
        f"{format_seconds(statistics.median(by_cpu))}, "
        f"p99 {format_seconds(by_cpu[max(0, math.ceil(0.99 * len(by_cpu)) - 1)])}, "
        f"max {format_seconds(by_cpu[-1])}"
    )
    print(
        f"decided:  {100 * decided / total:.1f}% of deals, won {100 * counts['won'] / total:.1f}% "
        f"of deals; CPU time {sum(by_cpu):.1f} s in all, p99 "
        f"{format_seconds(by_cpu[max(0, math.ceil(0.99 * len(by_cpu)) - 1)])} a deal"
    )
    print(f"total:    {wall:.1f} s wall clock (line replays included)")
    if arguments.tail > 0:
        print(f"tail:     the {min(arguments.tail, total)} slowest deals (by CPU time)")
        for seed in sorted(cpu, key=cpu.__getitem__, reverse=True)[: arguments.tail]:
            verdict, searched = details[seed]
            print(
                f"  seed {seed:>10}  {verdict:<7} {searched:>10,} positions  "
                f"{format_seconds(cpu[seed])} CPU"
            )

    if arguments.compare_tail and arguments.tail > 0:
        compare_tail(
            sorted(cpu, key=cpu.__getitem__, reverse=True)[: arguments.tail],
            cpu,
            details,
            lines,
            arguments.node_budget,
            variant,
        )
    if arguments.cross_check:
        cross_check(first, min(arguments.cross_check, total), arguments.cross_check_budget, variant)
    if unconfirmed:
        sys.exit(1)


def search_description(variant: Variant) -> str:
    if variant is not SCORPION:
        if variant_solver.compiled():
            return "the variants' search compiled (games/engine/_variant_c.c)"
        return "the variants' search in Python (games/engine/variant_solver.py)"
    if compiled():
        return "compiled (games/engine/_solver_c.c)"
    return "Python (games/engine/solver.py)"


def compare_tail(
    seeds: list[int],
    cpu: dict[int, float],
    details: dict[int, tuple[str, int]],
    lines: dict[int, list[dict[str, object]]],
    node_budget: int,
    variant: Variant,
) -> None:
    """The same deals by the Python search: the same verdicts, lines and positions, and its CPU
    time."""
    owner, attribute, source = (
        (solver, "_solver_c", "games/engine/solver.py")
        if variant is SCORPION
        else (variant_solver, "_variant_c", "games/engine/variant_solver.py")
    )
    compiled_module = getattr(owner, attribute)
    if compiled_module is None:
        print("compare:  the search runs in Python here: nothing compiled to compare with")
        return
    print(f"compare:  the same deals by the Python search ({source})")
    setattr(owner, attribute, None)
    python_total = compiled_total = 0.0
    try:
        for seed in seeds:
            cpu_started = time.process_time()
            solution = solve(
                deal_code_for_seed(seed, variant), node_budget=node_budget, variant=variant
            )
            python_cpu = time.process_time() - cpu_started
            python_total += python_cpu
            compiled_total += cpu[seed]
            same = (solution.verdict, solution.nodes) == details[seed] and (
                solution.line == lines[seed]
            )
            print(
                f"  seed {seed:>10}  compiled {format_seconds(cpu[seed]):>9}  python "
                f"{format_seconds(python_cpu):>9}  ({python_cpu / max(cpu[seed], 1e-9):.0f}x)  "
                + (
                    "same verdict, line and positions"
                    if same
                    else f"DIFFERENT: {solution.verdict}, {solution.nodes:,} positions"
                )
            )
            if not same:
                sys.exit(1)
        print(
            f"  the {len(seeds)} deals: compiled {format_seconds(compiled_total)}, python "
            f"{format_seconds(python_total)} of CPU "
            f"({python_total / max(compiled_total, 1e-9):.0f}x)"
        )
    finally:
        setattr(owner, attribute, compiled_module)


def _seed_list(text: str) -> list[int]:
    """ "7908,2395" or ranges, "0-9999" (inclusive), or both: "0-99,7908"."""
    seeds: list[int] = []
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if dash:
            seeds.extend(range(int(first), int(last) + 1))
        elif first:
            seeds.append(int(first))
    return seeds


def cross_check(first: int, count: int, budget: int, variant: Variant = SCORPION) -> None:
    """Compare with a plain exhaustive search on the first ``count`` deals."""
    from games.engine._solver_reference import exhaustive_verdict

    agree = disagree = undecided = 0
    for seed in range(first, first + count):
        code = deal_code_for_seed(seed, variant)
        verdict = solve(code, variant=variant).verdict
        reference, _ = exhaustive_verdict(deal_position(code, variant), budget)
        if "unknown" in (verdict, reference):
            undecided += 1
        elif verdict == reference:
            agree += 1
        else:
            disagree += 1
            print(f"DISAGREEMENT: seed {seed}: solver {verdict}, exhaustive {reference}")
    print(
        f"exhaustive cross-check ({budget:,} positions max): {agree} agree, "
        f"{disagree} disagree, {undecided} undecided by one of them"
    )
    if disagree:
        sys.exit(1)


if __name__ == "__main__":
    main()
