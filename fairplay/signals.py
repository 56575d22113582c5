"""The fair-play signals of one won game, from its log alone: no Django, so the benchmark
(``bench/fairplay.py``) runs the very functions the service runs, on simulated games.

A signal is a reason for staff to look, never a verdict: each has a threshold chosen so that
simulated honest players (the project's own playout policy at human-like timing) raise it
rarely, and docs/fair-play.md gives the measured rates.

- ``fast_moves``: the median time between two commands is below what people manage
  (``FAST_MEDIAN_SECONDS``), over at least ``MIN_TIMED_COMMANDS`` commands.
- ``regular_timing``: the times between commands hardly vary (their coefficient of variation
  below ``REGULAR_CV``): a program waiting a fixed delay, however human the delay.
- ``solver_line``: the winning line begins with the solver's line from the deal for at least
  ``SOLVER_LINE_SHARE`` of that line (the daily's certificate: the solver's own line).
- ``shared_address``: ``SHARED_ADDRESS_ACCOUNTS`` or more accounts won the same daily's ranked
  attempt from one address (its keyed hash). Computed by the service, which sees the others.
- ``bot_app``: the game was played through an app staff or its developer declared a bot.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

FAST_MOVES = "fast_moves"
REGULAR_TIMING = "regular_timing"
SOLVER_LINE = "solver_line"
SHARED_ADDRESS = "shared_address"
BOT_APP = "bot_app"
SIGNALS = (FAST_MOVES, REGULAR_TIMING, SOLVER_LINE, SHARED_ADDRESS, BOT_APP)

# Thresholds (docs/fair-play.md, where the rates they give are measured).
FAST_MEDIAN_SECONDS = 0.6
REGULAR_CV = 0.15
MIN_TIMED_COMMANDS = 20
SOLVER_LINE_SHARE = 0.8
SHARED_ADDRESS_ACCOUNTS = 3

# The commands whose timing is the player's own (a resignation or abandonment is not timed).
_TIMED = ("move", "deal", "undo", "redo")


@dataclass(frozen=True)
class Findings:
    """What one game's log shows: the signals raised and the measures behind them."""

    signals: tuple[str, ...]
    measures: dict[str, Any] = field(default_factory=dict)


def command_gaps(events: Iterable[tuple[str, float]]) -> list[float]:
    """Seconds between consecutive timed commands, from (type, time in seconds) in log order."""
    times = [moment for kind, moment in events if kind in _TIMED]
    return [max(0.0, later - earlier) for earlier, later in itertools.pairwise(times)]


def _action_key(step: Mapping[str, Any]) -> tuple[str, Any, Any]:
    if step.get("type") == "deal":
        return ("deal", None, None)
    return ("move", step.get("card"), step.get("to"))


def solver_line_share(
    line: Sequence[Mapping[str, Any]], solver: Sequence[Mapping[str, Any]]
) -> float:
    """How much of the solver's line the winning line begins with (0 to 1): the records of the
    game's final line (``{"type", "card", "to", ...}``) against the solver's commands."""
    if not solver:
        return 0.0
    same = 0
    for played, solved in zip(line, solver, strict=False):
        if _action_key(played) != _action_key(solved):
            break
        same += 1
    return same / len(solver)


def timing_findings(gaps: Sequence[float]) -> tuple[list[str], dict[str, Any]]:
    measures: dict[str, Any] = {"timed_commands": len(gaps) + 1 if gaps else 0}
    if len(gaps) + 1 < MIN_TIMED_COMMANDS:
        return [], measures
    median = statistics.median(gaps)
    mean = statistics.fmean(gaps)
    spread = statistics.pstdev(gaps) / mean if mean > 0 else 0.0
    measures.update(median_seconds=round(median, 3), timing_cv=round(spread, 3))
    raised = []
    if median < FAST_MEDIAN_SECONDS:
        raised.append(FAST_MOVES)
    if spread < REGULAR_CV:
        raised.append(REGULAR_TIMING)
    return raised, measures


def game_findings(
    *,
    events: Iterable[tuple[str, float]],
    line: Sequence[Mapping[str, Any]],
    solver_line: Sequence[Mapping[str, Any]] | None,
    bot: bool,
    address_accounts: int = 0,
) -> Findings:
    """The signals of a won game: its events as (type, seconds), its final line of records,
    the solver's line from its deal (None when unknown), whether a bot app played it, and how
    many accounts won the same daily from its address (0: unknown)."""
    raised, measures = timing_findings(command_gaps(events))
    if solver_line:
        share = solver_line_share(line, solver_line)
        measures["solver_line_share"] = round(share, 3)
        if share >= SOLVER_LINE_SHARE:
            raised.append(SOLVER_LINE)
    if address_accounts:
        measures["address_accounts"] = address_accounts
        if address_accounts >= SHARED_ADDRESS_ACCOUNTS:
            raised.append(SHARED_ADDRESS)
    if bot:
        raised.append(BOT_APP)
    return Findings(tuple(raised), measures)
