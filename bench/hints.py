"""Chance hints benchmark: CPU time per position at 50, 200 and 1,000 samples, and how often the
top-ranked move is one that truly keeps the deal winnable.

Run from the repository root: ``python bench/hints.py [--positions 20] [--start-seed 0]
[--samples 50,200,1000] [--node-budget 20000] [--work-budget N] [--truth-budget 300000]
[--variant scorpion]``.

Positions: for seeds ``start_seed, start_seed + 1, ...`` the deal ``deal_code_for_seed(seed,
variant)`` is solved (``--variant``: a game of the family that has winning chances, Scorpion by
default); each winnable one gives one position, reached by following its winning line for a
number of steps drawn with ``SplitMix64(seed)``, kept when it has at least two legal actions and
at least one unseen card (otherwise there is nothing to estimate). The same positions come back
on every run and machine.

Chances (games/engine/chances.py) see only the visible table, with the service's seeding rule
(``seed`` here is the deal's seed). The samples are one stream, so the figures at 50 and 200
samples are the first 50 and 200 of the 1,000, timed on the way (CPU time, time.process_time).

Truth -- the benchmark alone looks at the real hidden cards: every legal action is played on
the real position and the result solved with ``--truth-budget``; "keeps winnable" means won.
Agreement is the share of positions whose top-ranked action keeps the deal winnable, given for
all positions and for the *contested* ones (where some action loses the deal), next to the same
figure for the visible-only heuristic hint (games.engine.hints.ranked_hints) and for a random
legal action (its expected value). ``--work-budget`` bounds the whole stream as the service
bounds an answer (games/services/chances.py: 500,000 on the worker; inline, per variant,
``INLINE_CHANCE_WORK_BUDGETS``; none by default):
a level past the budget gets the samples drawn before it ran out, and the table says how many.
Last, the share of sampled solves the budget left undecided
("unknown": they inform nothing), which is what keeps a variant out of the winning chances.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import machine_description
from games.engine.actions import DEAL, Action
from games.engine.cards import parse_card
from games.engine.chances import (
    DEFAULT_CHANCE_NODE_BUDGET,
    VisibleTable,
    sampled_verdicts,
    tally,
)
from games.engine.deals import SplitMix64
from games.engine.hints import ranked_hints
from games.engine.legal import legal_actions
from games.engine.position import Position, deal_position
from games.engine.resolve import resolve_move
from games.engine.solver import Verdict, solve
from games.engine.transitions import apply
from games.engine.variants import VARIANTS, Variant, deal_code_for_seed


@dataclass
class Case:
    seed: int
    position: Position
    good: set[Action]  # the actions after which the real deal is still winnable
    actions: list[Action]


def positions(count: int, start_seed: int, truth_budget: int, variant: Variant) -> list[Case]:
    cases: list[Case] = []
    for seed in itertools.count(start_seed):
        if len(cases) == count:
            return cases
        position = deal_position(deal_code_for_seed(seed, variant), variant)
        solution = solve(position, node_budget=truth_budget)
        if not solution.won:
            continue
        steps = SplitMix64(seed).below(len(solution.line))
        for command in solution.line[:steps]:
            # Resolved as a player's command is (in two decks its `from` names the copy).
            action: Action = (
                DEAL
                if command["type"] == "deal"
                else resolve_move(
                    position, parse_card(command["card"]), command["to"], command.get("from")
                )
            )
            position = apply(position, action)[0]
        actions = legal_actions(position)
        table = VisibleTable.of(position)
        if len(actions) < 2 or not table.unseen():
            continue
        good = {
            action
            for action in actions
            if solve(apply(position, action)[0], node_budget=truth_budget).won
        }
        cases.append(Case(seed, position, good, actions))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--start-seed", type=int, default=0)
    parser.add_argument("--samples", default="50,200,1000")
    parser.add_argument("--node-budget", type=int, default=DEFAULT_CHANCE_NODE_BUDGET)
    parser.add_argument("--work-budget", type=int, default=None)
    parser.add_argument("--truth-budget", type=int, default=300_000)
    parser.add_argument("--variant", choices=list(VARIANTS), default="scorpion")
    args = parser.parse_args()
    levels = sorted(int(level) for level in args.samples.split(","))

    variant = VARIANTS[args.variant]
    try:
        cases = positions(args.positions, args.start_seed, args.truth_budget, variant)
    except ValueError as refused:  # a variant without winning chances (games/engine/chances.py)
        parser.error(str(refused))
    seconds: dict[int, list[float]] = {level: [] for level in levels}
    agree: dict[int, list[bool]] = {level: [] for level in levels}
    drawn: dict[int, list[int]] = {level: [] for level in levels}
    # Sampled solves the budget left undecided (no help to the estimate), at the top level.
    undecided: list[int] = []
    solves: list[int] = []
    for case in cases:
        actions, stream = sampled_verdicts(
            VisibleTable.of(case.position),
            seed=case.seed,
            node_budget=args.node_budget,
            work_budget=args.work_budget,
        )
        outcomes: list[list[Verdict]] = []
        started = time.process_time()
        for level in levels:
            outcomes.extend(itertools.islice(stream, level - len(outcomes)))
            seconds[level].append(time.process_time() - started)
            drawn[level].append(len(outcomes))
            agree[level].append(tally(actions, outcomes)[0].action in case.good)
        undecided.append(sum(row.count("unknown") for row in outcomes))
        solves.append(sum(len(row) for row in outcomes))

    contested = [index for index, case in enumerate(cases) if len(case.good) < len(case.actions)]
    heuristic = [ranked_hints(case.position)[0].action in case.good for case in cases]
    chance_of_random = [len(case.good) / len(case.actions) for case in cases]

    def share(flags: list[bool] | list[float], among: list[int] | None = None) -> str:
        picked = [flags[index] for index in (among if among is not None else range(len(flags)))]
        if not picked:
            return "n/a"
        return f"{100 * sum(picked) / len(picked):5.1f}%"

    print(f"machine:  {machine_description()}")
    print(f"variant:  {variant.name}")
    print(
        f"positions: {len(cases)} (seeds {cases[0].seed}..{cases[-1].seed} that are winnable), "
        f"{len(contested)} contested (some legal action loses the deal)"
    )
    print(
        f"budgets:  {args.node_budget} nodes per sampled solve, work {args.work_budget} per "
        f"answer, truth {args.truth_budget}"
    )
    print(
        "samples   drawn (median, min)   CPU s/position (median, max)   "
        "top move keeps winnable: all / contested"
    )
    for level in levels:
        print(
            f"{level:>7}   {statistics.median(drawn[level]):>7.0f} {min(drawn[level]):>6}"
            f"        {statistics.median(seconds[level]):8.3f} {max(seconds[level]):8.3f}"
            f"                  {share(agree[level])} / {share(agree[level], contested)}"
        )
    print(
        f"heuristic hint (visible only)                       "
        f"{share(heuristic)} / {share(heuristic, contested)}"
    )
    print(
        f"random legal action (expected)                      "
        f"{share(chance_of_random)} / {share(chance_of_random, contested)}"
    )
    print(
        f"undecided sampled solves at {levels[-1]} samples: {sum(undecided)} of {sum(solves)} "
        f"({100 * sum(undecided) / max(1, sum(solves)):.1f}%)"
    )
    print("command:  python bench/hints.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
