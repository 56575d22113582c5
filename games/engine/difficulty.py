"""How hard a certified deal is: measures of the solver and of play, a 0-100 score, a band.

Pure Python, no Django: the workers rate a deal when they certify it (games.services), the
management command ``deal_difficulty`` rates the ones certified before, and the benchmark
(bench/difficulty.py) measures the cost and the distribution. docs/difficulty.md gives the
formula, the band thresholds and how they were chosen.

The measures (``Measures``), all of a deal the solver has proven winnable:

- ``first_actions`` / ``first_actions_won``: the legal first actions, and how many of them
  still leave a won game (the solver, knowing every card, decides the position after each one
  within ``FIRST_ACTION_NODE_BUDGET`` positions; an undecided one counts as not won). A deal
  where most first moves lose punishes the first guess.
- ``line_length``: the actions of the winning line the certification found (not proven the
  shortest; the solver's line, which plays few wasted moves).
- ``solver_nodes``: the positions the certification searched to find it. Most won deals need
  barely more positions than the line has actions; a deal needing thousands hides its way.
- ``playouts`` / ``playout_wins``: games played by a simple policy that sees only what a
  player sees -- the top hint of ``games.engine.hints.ranked_hints`` (ties broken at random),
  and a random legal action instead with probability ``PLAYOUT_EXPLORATION`` -- and how many
  it won. The closest of the four to a player's experience, and the one the score weighs most.

Everything is deterministic: the playouts draw from a generator seeded by the deal code and
``seed``, so a deal gets the same rating on every machine and every run.

Fair play: the rating reads every card, the face-down ones and the stock included. The band
(and the score) is announced before play, a property of the deal like "winnable"; the
measures say more (how many first moves lose...), so the service serves them only once the
deal is revealed (docs/difficulty.md, "Fair play").
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from games.engine.actions import Action
from games.engine.cards import format_deal_code, parse_deal_code
from games.engine.hints import ranked_hints
from games.engine.legal import legal_actions, status
from games.engine.position import initial_position
from games.engine.solver import Solution, solve
from games.engine.transitions import apply

__all__ = [
    "BANDS",
    "BAND_THRESHOLDS",
    "FIRST_ACTION_NODE_BUDGET",
    "PLAYOUTS",
    "PLAYOUT_EXPLORATION",
    "Band",
    "Measures",
    "Rating",
    "band_for",
    "measure",
    "rate",
    "score",
]

Band = Literal["easy", "medium", "hard"]
BANDS: tuple[Band, ...] = ("easy", "medium", "hard")

# Positions the solver may search after each first action: the won ones are found in a few
# dozen positions (a lost one is usually proven lost as quickly); the bound keeps the worst
# deal's rating within a second or so of CPU.
FIRST_ACTION_NODE_BUDGET = 10_000
# Playouts per deal, and how often a playout plays a random legal action instead of the top
# hint. 64 playouts measure a win rate to about +-6 points (one standard error at 50%).
PLAYOUTS = 64
PLAYOUT_EXPLORATION = 0.125
# No game has more than 52 moves and a deal (games.engine.solver); a safety bound only.
_MAX_PLAYOUT_ACTIONS = 200

# The weights of the score (docs/difficulty.md), summing to 1.
WEIGHT_PLAYOUT = 0.55
WEIGHT_FIRST_ACTIONS = 0.25
WEIGHT_SEARCH = 0.15
WEIGHT_LINE = 0.05
# The search term is log10(nodes / line_length) / SEARCH_DECADES, at most 1: a search of a
# thousand positions per action of the line rates as hard as a search can.
SEARCH_DECADES = 3.0
# The line term runs from 0 at SHORT_LINE actions to 1 at LONG_LINE.
SHORT_LINE = 48
LONG_LINE = 60

# Scores below the first threshold are easy, from it below the second medium, the rest hard:
# the terciles of the model's scores over the first 300 certified deals of seeds 0 and up
# (bench/difficulty.py; docs/difficulty.md, "Calibration").
BAND_THRESHOLDS: tuple[int, int] = (31, 55)


@dataclass(frozen=True, slots=True)
class Measures:
    """What the score is computed from (the module's docstring defines each)."""

    first_actions: int
    first_actions_won: int
    line_length: int
    solver_nodes: int
    playouts: int
    playout_wins: int

    @property
    def first_action_share(self) -> float:
        """The share of first actions that keep the game winnable (1.0 without any)."""
        return self.first_actions_won / self.first_actions if self.first_actions else 1.0

    @property
    def playout_win_rate(self) -> float:
        return self.playout_wins / self.playouts if self.playouts else 0.0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["first_action_share"] = round(self.first_action_share, 4)
        data["playout_win_rate"] = round(self.playout_win_rate, 4)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Measures:
        return cls(
            first_actions=int(data["first_actions"]),
            first_actions_won=int(data["first_actions_won"]),
            line_length=int(data["line_length"]),
            solver_nodes=int(data["solver_nodes"]),
            playouts=int(data["playouts"]),
            playout_wins=int(data["playout_wins"]),
        )


@dataclass(frozen=True, slots=True)
class Rating:
    score: int  # 0 (easiest) to 100 (hardest)
    band: Band
    measures: Measures


def measure(
    deal: str | Sequence[int],
    *,
    solution: Solution | None = None,
    seed: int = 0,
    playouts: int = PLAYOUTS,
    first_action_node_budget: int = FIRST_ACTION_NODE_BUDGET,
) -> Measures:
    """The measures of a deal (a deal code or 52 card ints) the solver proves winnable.

    ``solution`` is the certification's verdict (its line and node count are measures; pass
    it to save solving again). Raises ValueError for a deal that is not proven won.
    """
    cards = parse_deal_code(deal) if isinstance(deal, str) else [int(card) for card in deal]
    if solution is None:
        solution = solve(cards)
    if not solution.won:
        raise ValueError("only a deal proven winnable has a difficulty")
    start = initial_position(cards)
    actions = legal_actions(start)
    won = 0
    for action in actions:
        after, _ = apply(start, action)
        if status(after) == "won" or solve(after, node_budget=first_action_node_budget).won:
            won += 1
    rng = random.Random(_playout_seed(format_deal_code(cards), seed))
    wins = sum(_playout(start, rng) for _ in range(playouts))
    return Measures(
        first_actions=len(actions),
        first_actions_won=won,
        line_length=len(solution.line),
        solver_nodes=solution.nodes,
        playouts=playouts,
        playout_wins=wins,
    )


def score(measures: Measures) -> int:
    """The difficulty, 0 (easiest) to 100 (hardest): docs/difficulty.md, "Formula"."""
    playout = 1.0 - measures.playout_win_rate
    first = 1.0 - measures.first_action_share
    line = max(1, measures.line_length)
    search = _clamp(math.log10(max(1.0, measures.solver_nodes / line)) / SEARCH_DECADES)
    length = _clamp((measures.line_length - SHORT_LINE) / (LONG_LINE - SHORT_LINE))
    value = (
        WEIGHT_PLAYOUT * playout
        + WEIGHT_FIRST_ACTIONS * first
        + WEIGHT_SEARCH * search
        + WEIGHT_LINE * length
    )
    return round(100 * value)


def band_for(value: int, thresholds: tuple[int, int] = BAND_THRESHOLDS) -> Band:
    """The band of a score: below ``thresholds[0]`` easy, below ``thresholds[1]`` medium."""
    if value < thresholds[0]:
        return "easy"
    if value < thresholds[1]:
        return "medium"
    return "hard"


def rate(
    deal: str | Sequence[int],
    *,
    solution: Solution | None = None,
    seed: int = 0,
    playouts: int = PLAYOUTS,
) -> Rating:
    """The measures, score and band of a deal proven winnable (``measure``)."""
    measures = measure(deal, solution=solution, seed=seed, playouts=playouts)
    value = score(measures)
    return Rating(value, band_for(value), measures)


def _playout(start: Any, rng: random.Random) -> bool:
    """One game of the simple policy from ``start``; True if it won."""
    return playout(start, rng)[1]


def playout(start: Any, rng: random.Random) -> tuple[list[Action], bool]:
    """One game of the simple policy from ``start`` (the top hint, a random legal action one
    time in ``1 / PLAYOUT_EXPLORATION``): the actions it played, and whether it won. Also the
    honest player of bench/fairplay.py."""
    position = start
    played: list[Action] = []
    for _ in range(_MAX_PLAYOUT_ACTIONS):
        if status(position) != "playing":
            break
        hints = ranked_hints(position)
        if rng.random() < PLAYOUT_EXPLORATION:
            action = rng.choice(hints).action
        else:
            best = hints[0].score
            action = rng.choice([hint for hint in hints if hint.score == best]).action
        position, _ = apply(position, action)
        played.append(action)
    return played, status(position) == "won"


def _playout_seed(code: str, seed: int) -> int:
    # Not Python's hash() (salted per process): the same deal must draw the same playouts
    # on every machine and run.
    digest = hashlib.sha256(f"{code}:{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))
