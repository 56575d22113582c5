"""Engine speed: random games from fixed seeds, one step = list the legal actions, pick one, apply.

Run from the repository root: ``python bench/engine.py`` (``--games``, ``--rounds`` to change
the workload). Seed ``s`` deals ``random.Random(s).shuffle(range(52))`` and the same generator
then picks the moves, so the games are the same on every run and figures compare across changes
and machines. The shuffles happen before the clock starts: the figure is the engine's alone.
Each round plays all the games again; the best round is the figure (as ``timeit`` does), since
other work on the machine can only slow a round down.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import machine_description
from games.engine.cards import DECK_SIZE
from games.engine.legal import legal_actions
from games.engine.position import initial_position
from games.engine.transitions import apply

DEFAULT_GAMES = 2_000
DEFAULT_ROUNDS = 5
TARGET_MOVES_PER_SECOND = 100_000

PreparedDeal = tuple[list[int], random.Random]


def prepare_deals(games: int) -> list[PreparedDeal]:
    """For each seed, its shuffled deck and the generator, ready to pick the moves."""
    deals: list[PreparedDeal] = []
    for seed in range(games):
        rng = random.Random(seed)
        cards = list(range(DECK_SIZE))
        rng.shuffle(cards)
        deals.append((cards, rng))
    return deals


def play_random_games(deals: list[PreparedDeal]) -> int:
    """Play every deal to its end at random; return how many actions were applied."""
    actions_applied = 0
    for cards, rng in deals:
        position = initial_position(cards)
        while actions := legal_actions(position):
            position, _ = apply(position, actions[rng.randrange(len(actions))])
            actions_applied += 1
    return actions_applied


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES)
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    arguments = parser.parse_args()

    print(f"command:  python {' '.join(sys.argv)}")
    print(f"python:   {platform.python_implementation()} {platform.python_version()}")
    print(f"machine:  {machine_description()}")
    rates = []
    for round_number in range(1, arguments.rounds + 1):
        # Each round needs fresh generators: playing a deal advances its generator.
        deals = prepare_deals(arguments.games)
        started = time.perf_counter()
        moves = play_random_games(deals)
        elapsed = time.perf_counter() - started
        rates.append(moves / elapsed)
        print(
            f"round {round_number}:  {arguments.games} games (seeds 0-{arguments.games - 1}), "
            f"{moves} moves (deals included) in {elapsed:.3f} s: {rates[-1]:,.0f} moves/s"
        )
    best = max(rates)
    verdict = "meets" if best >= TARGET_MOVES_PER_SECOND else "misses"
    print(f"best:     {best:,.0f} moves/s, {1e6 / best:.2f} µs per move")
    print(f"target:   {TARGET_MOVES_PER_SECOND:,} moves/s ({verdict} it)")


if __name__ == "__main__":
    main()
