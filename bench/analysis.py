"""Post-game analysis benchmark: CPU time per analysis of a finished game, per variant.

Run from the repository root: ``python bench/analysis.py [--variant scorpion-tail] [--games 10]
[--start-seed 0] [--moves 15] [--inline]``. Game ``i`` is the deal of seed ``start_seed + i`` in the
variant, played for up to ``--moves`` random legal actions (``random.Random(seed)``, so the same
games come back on every run) and resigned: the analysis then walks back from the last version,
the costly case. Each is analysed as the service does (``games.analysis.analyse`` with the
variant's budgets, ``analysis_budgets``). Prints the outcomes, the deal verdicts and the CPU time
(``time.process_time``) per analysis: median and max, which bound how long an analysis holds a
worker. ``--inline``: with the budgets of an analysis computed in a request
(``inline_analysis_budgets``), and how many of them are *settled* (every solver call decided, so
the request stores the full budgets' very analysis; the others wait for a worker).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import machine_description
from games.analysis import analyse, analysis_budgets, inline_analysis_budgets
from games.engine.legal import legal_actions
from games.engine.position import deal_position
from games.engine.transitions import apply
from games.engine.variants import deal_code_for_seed, get_variant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="scorpion")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--start-seed", type=int, default=0)
    parser.add_argument("--moves", type=int, default=15)
    parser.add_argument("--inline", action="store_true", help="a request's budgets")
    args = parser.parse_args()
    variant = get_variant(args.variant)
    budgets = inline_analysis_budgets if args.inline else analysis_budgets
    per_call, total = budgets(variant.name)
    print("command:  python bench/analysis.py " + " ".join(sys.argv[1:]))
    print(f"machine:  {machine_description()}")
    print(f"budgets:  {per_call:,} positions a solver call, {total:,} an analysis")
    outcomes: Counter[str] = Counter()
    deals: Counter[str] = Counter()
    cpu: list[float] = []
    settled = 0
    for seed in range(args.start_seed, args.start_seed + args.games):
        start = deal_position(deal_code_for_seed(seed, variant), variant)
        rng = random.Random(seed)
        position = start
        events: list[tuple[str, dict[str, Any]]] = []
        for _ in range(args.moves):
            actions = legal_actions(position)
            if not actions:
                break
            position, record = apply(position, rng.choice(actions))
            events.append((record.kind, record.to_dict()))
        events.append(("resign", {}))
        started = time.process_time()
        result = analyse(start, events, won=False, node_budget=per_call, total_budget=total)
        cpu.append(time.process_time() - started)
        outcomes[result.outcome] += 1
        settled += result.settled
        deals[result.deal] += 1
    print(
        f"games:    {args.games} {variant.name} (seeds {args.start_seed}-"
        f"{args.start_seed + args.games - 1}), up to {args.moves} random actions, resigned"
    )
    print(f"deal:     {dict(sorted(deals.items()))}")
    print(f"outcome:  {dict(sorted(outcomes.items()))}")
    print(f"settled:  {settled} of {args.games} (every solver call decided)")
    print(
        f"cpu:      median {statistics.median(cpu):.2f} s, max {max(cpu):.2f} s an analysis, "
        f"{sum(cpu):.1f} s in all"
    )


if __name__ == "__main__":
    main()
