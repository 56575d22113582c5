"""Deal difficulty benchmark: rate the first N certified deals of fixed seeds, report the
distribution of the scores, the bands and the CPU time a rating costs.

Run from the repository root: ``python bench/difficulty.py [--deals 300] [--start-seed 0]
[--node-budget 300000]``. Deal ``i`` is ``deal_code_for_seed(start_seed + i)``; the deals the
solver proves winnable within the node budget (the certification's, games.services) are
rated with ``games.engine.difficulty.rate`` until ``--deals`` of them are. Prints the score's
terciles (where BAND_THRESHOLDS come from: docs/difficulty.md, "Calibration"), how many deals
fall in each band with the thresholds in force, the mean of each measure per band, and the CPU
time (time.process_time) of a rating, excluding the certification's own solve.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine.deals import deal_code_for_seed
from games.engine.difficulty import BAND_THRESHOLDS, BANDS, Rating, rate
from games.engine.solver import solve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--start-seed", type=int, default=0)
    parser.add_argument("--node-budget", type=int, default=300_000)
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error("--deals must be 2 or more (the terciles need two scores)")
    ratings: list[Rating] = []
    cpu: list[float] = []
    seed = args.start_seed
    while len(ratings) < args.deals:
        code = deal_code_for_seed(seed)
        seed += 1
        solution = solve(code, node_budget=args.node_budget)
        if not solution.won:
            continue
        started = time.process_time()
        ratings.append(rate(code, solution=solution))
        cpu.append(time.process_time() - started)
    scores = sorted(rating.score for rating in ratings)
    terciles = statistics.quantiles(scores, n=3)
    print(f"{len(ratings)} certified deals among seeds {args.start_seed}-{seed - 1}")
    print(f"score: min {scores[0]}, median {statistics.median(scores)}, max {scores[-1]}")
    print(f"terciles: {terciles[0]:.1f} {terciles[1]:.1f}; thresholds in force {BAND_THRESHOLDS}")
    for band in BANDS:
        rated = [rating for rating in ratings if rating.band == band]
        if not rated:
            print(f"{band:>6}: 0 deals")
            continue
        measures = [rating.measures for rating in rated]
        print(
            f"{band:>6}: {len(rated)} deals; mean playout win rate "
            f"{statistics.mean(m.playout_win_rate for m in measures):.2f}, first-action share "
            f"{statistics.mean(m.first_action_share for m in measures):.2f}, line "
            f"{statistics.mean(m.line_length for m in measures):.1f}, solver nodes median "
            f"{statistics.median(m.solver_nodes for m in measures):.0f}"
        )
    cpu.sort()
    print(
        f"CPU per rating: median {statistics.median(cpu) * 1000:.0f} ms, "
        f"p90 {cpu[int(0.9 * (len(cpu) - 1))] * 1000:.0f} ms, max {cpu[-1] * 1000:.0f} ms, "
        f"total {sum(cpu):.1f} s"
    )
    print("command: python bench/difficulty.py " + " ".join(sys.argv[1:]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
