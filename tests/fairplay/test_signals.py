"""The signals of one game's log, computed without Django (fairplay.signals)."""

from __future__ import annotations

from fairplay import signals
from tests.fairplay.conftest import BOT_GAPS, HUMAN_GAPS, LINE, OTHER_LINE


def events(gaps: tuple[float, ...], count: int) -> list[tuple[str, float]]:
    moment, timed = 0.0, []
    for index in range(count):
        moment += gaps[index % len(gaps)]
        timed.append(("move", moment))
    return timed


def findings(gaps: tuple[float, ...], line: list[dict[str, object]]) -> signals.Findings:
    return signals.game_findings(
        events=events(gaps, len(line)), line=line, solver_line=LINE, bot=False
    )


def test_a_bots_timing_raises_fast_and_regular_moves() -> None:
    raised = findings(BOT_GAPS, OTHER_LINE).signals
    assert signals.FAST_MOVES in raised
    assert signals.REGULAR_TIMING in raised


def test_a_fixed_human_looking_delay_is_still_too_regular() -> None:
    raised = findings((2.0,), OTHER_LINE).signals
    assert raised == (signals.REGULAR_TIMING,)


def test_the_solvers_line_replayed_raises_the_solver_line_signal() -> None:
    result = findings(HUMAN_GAPS, LINE)
    assert result.signals == (signals.SOLVER_LINE,)
    assert result.measures["solver_line_share"] == 1.0


def test_an_honest_game_raises_nothing() -> None:
    result = findings(HUMAN_GAPS, OTHER_LINE)
    assert result.signals == ()
    assert result.measures["median_seconds"] > signals.FAST_MEDIAN_SECONDS


def test_a_short_game_is_not_timed() -> None:
    result = findings(BOT_GAPS, OTHER_LINE[:5])
    assert signals.FAST_MOVES not in result.signals


def test_accounts_of_one_address_and_bots_are_signals() -> None:
    result = signals.game_findings(
        events=[], line=[], solver_line=None, bot=True, address_accounts=3
    )
    assert result.signals == (signals.SHARED_ADDRESS, signals.BOT_APP)
