"""The fair-play signals on simulated honest players and simulated cheats: how often each kind of
game raises a signal (docs/fair-play.md).

Run from the repository root: ``.venv/bin/python bench/fairplay.py [--deals 200]
[--start-seed 1] [--playouts 24] [--node-budget 300000]``.

Deals: the Scorpion deal of each seed from ``start_seed``, kept if the solver proves it
winnable within ``node_budget`` positions (the daily's budget: ``DAILY_NODE_BUDGET``); its line
stands for the daily's certificate. On each deal, one game of each kind, timed by a generator
seeded by the deal:

- **honest**: the project's own playout policy (``games.engine.difficulty``: the top hint,
  a random legal action one time in eight), the first of ``--playouts`` playouts that wins, at a
  human pace: each player's median think time drawn log-normally around 2.2 s (from 0.8 s to
  6 s), each move's time log-normal around it (sigma 0.7), with one long think in 15 (4 to 12
  times as long).
- **honest, fast**: the same, each player's median pace drawn from 0.8 s to 1.4 s (a fast
  player on a phone).
- **solver line**: the solver's line replayed, at the honest human pace.
- **bot**: the winning playout played at a program's pace: 0.25 s per command, +-10%.
- **slow bot**: the same at 1.5 s per command, +-5%: a program that waits like a person.

A deal none of whose playouts wins has no honest game (the policy cannot win it); its other
kinds are still played. Every game goes through ``fairplay.signals.game_findings``, the very
function the service runs; the address and bot-app signals need no simulation (a count and a
field). Prints the command, then per kind the games, the share raising any signal (for honest
kinds, the false-positive rate; for cheats, the detection rate) and each signal's share, and
the honest games' closest approach to each threshold (lowest median gap and timing spread,
highest share of the solver's line).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fairplay import signals
from games.engine import solver
from games.engine.actions import Action, Move
from games.engine.cards import card_code
from games.engine.deals import deal_code_for_seed
from games.engine.difficulty import playout
from games.engine.position import deal_position

KINDS = ("honest", "honest, fast", "solver line", "bot", "slow bot")
HONEST = ("honest", "honest, fast")


def _rng(code: str, salt: str) -> random.Random:
    digest = hashlib.sha256(f"{code}:{salt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _step(action: Action) -> dict[str, Any]:
    if isinstance(action, Move):
        return {"type": "move", "card": card_code(action.card), "to": action.to}
    return {"type": "deal"}


def playout_line(code: str, rng: random.Random) -> list[dict[str, Any]] | None:
    """One game of the project's playout policy; its line if it won."""
    actions, won = playout(deal_position(code), rng)
    return [_step(action) for action in actions] if won else None


def human_pace(rng: random.Random, *, low: float, high: float) -> Callable[[], float]:
    median = min(high, max(low, rng.lognormvariate(0.788, 0.45)))  # e^0.788 = 2.2 s

    def gap() -> float:
        think = rng.lognormvariate(0.0, 0.7) * median
        return think * (rng.uniform(4, 12) if rng.random() < 1 / 15 else 1.0)

    return gap


def fast_human_pace(rng: random.Random) -> Callable[[], float]:
    median = rng.uniform(0.8, 1.4)
    return lambda: rng.lognormvariate(0.0, 0.7) * median


def machine_pace(rng: random.Random, *, every: float, jitter: float) -> Callable[[], float]:
    return lambda: every * rng.uniform(1 - jitter, 1 + jitter)


def timed(line: Sequence[dict[str, Any]], gap: Callable[[], float]) -> list[tuple[str, float]]:
    moment, events = 0.0, []
    for step in line:
        moment += gap()
        events.append((str(step["type"]), moment))
    return events


def findings(
    line: list[dict[str, Any]], gap: Callable[[], float], certificate: list[dict[str, Any]]
) -> signals.Findings:
    return signals.game_findings(
        events=timed(line, gap), line=line, solver_line=certificate, bot=False
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--start-seed", type=int, default=1)
    parser.add_argument("--playouts", type=int, default=24)
    parser.add_argument("--node-budget", type=int, default=300_000)
    args = parser.parse_args()
    print("$ .venv/bin/python bench/fairplay.py " + " ".join(sys.argv[1:]))
    print(
        f"thresholds: median gap < {signals.FAST_MEDIAN_SECONDS} s, timing CV < "
        f"{signals.REGULAR_CV} (from {signals.MIN_TIMED_COMMANDS} commands), solver's line "
        f">= {signals.SOLVER_LINE_SHARE:.0%}"
    )
    games: Counter[str] = Counter()
    raised: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    flagged: Counter[str] = Counter()
    # The honest games' closest approach to each threshold.
    closest: dict[str, float] = {
        "median_seconds": float("inf"),
        "timing_cv": float("inf"),
        "solver_line_share": 0.0,
    }
    deals, seed = 0, args.start_seed
    while deals < args.deals:
        code = deal_code_for_seed(seed)
        seed += 1
        solution = solver.solve(code, node_budget=args.node_budget, time_budget=None)
        if solution.verdict != "won":
            continue
        deals += 1
        certificate = list(solution.line)
        rng = _rng(code, "pace")
        honest = next(
            (
                line
                for attempt in range(args.playouts)
                if (line := playout_line(code, _rng(code, f"playout {attempt}"))) is not None
            ),
            None,
        )
        played: dict[str, signals.Findings] = {
            "solver line": findings(certificate, human_pace(rng, low=0.8, high=6.0), certificate),
        }
        bot_line = honest or certificate
        played["bot"] = findings(bot_line, machine_pace(rng, every=0.25, jitter=0.1), certificate)
        played["slow bot"] = findings(
            bot_line, machine_pace(rng, every=1.5, jitter=0.05), certificate
        )
        if honest is not None:
            played["honest"] = findings(honest, human_pace(rng, low=0.8, high=6.0), certificate)
            played["honest, fast"] = findings(honest, fast_human_pace(rng), certificate)
        for kind, found in played.items():
            games[kind] += 1
            raised[kind].update(found.signals)
            flagged[kind] += bool(found.signals)
            if kind in HONEST:
                measures = found.measures
                for name in ("median_seconds", "timing_cv"):
                    closest[name] = min(closest[name], measures.get(name, float("inf")))
                share = measures.get("solver_line_share", 0.0)
                closest["solver_line_share"] = max(closest["solver_line_share"], share)
    print(f"deals: {deals} winnable (seeds {args.start_seed}-{seed - 1})")
    for kind in KINDS:
        count = games[kind]
        if not count:
            print(f"{kind:>13}: no game")
            continue
        rate = "false positives" if kind in HONEST else "detected"
        shares = ", ".join(
            f"{name} {raised[kind][name] / count:.1%}"
            for name in signals.SIGNALS
            if raised[kind][name]
        )
        print(
            f"{kind:>13}: {count} games, {rate} {flagged[kind] / count:.1%}"
            + (f" ({shares})" if shares else "")
        )
    print(
        "honest games' closest: median gap {median_seconds} s, timing CV {timing_cv}, "
        "solver's line share {solver_line_share}".format(**closest)
    )


if __name__ == "__main__":
    main()
