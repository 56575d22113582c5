"""The engine benchmark keeps running from the repository root as documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from games.analysis import analysis_budgets, inline_analysis_budgets

REPOSITORY = Path(__file__).resolve().parents[2]


def bench_output(script: str, *args: str) -> str:
    """What a benchmark prints, run from the repository root as documented."""
    return subprocess.run(
        [sys.executable, script, *args],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout


def test_engine_benchmark_runs_and_reports_its_figures() -> None:
    finished = subprocess.run(
        [sys.executable, "bench/engine.py", "--games", "20", "--rounds", "1"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )

    assert "command:  python bench/engine.py --games 20 --rounds 1" in finished.stdout
    assert "moves/s" in finished.stdout
    assert "µs per move" in finished.stdout


def test_solver_benchmark_prints_the_tail_and_measures_chosen_seeds() -> None:
    finished = subprocess.run(
        [sys.executable, "bench/solver.py", "--seeds", "8,3,5", "--tail", "2"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    assert "deals:    3 (seeds 8,3,5, deal_code_for_seed)" in finished.stdout
    assert "tail:     the 2 slowest deals" in finished.stdout
    tail = finished.stdout.split("tail:", 1)[1].splitlines()[1:]
    assert len(tail) == 2
    assert tail[0].split()[:3] == ["seed", "8", "lost"]  # seed 8 takes thousands of positions


def test_chance_hints_benchmark_reports_time_and_agreement_per_sample_count() -> None:
    finished = subprocess.run(
        [sys.executable, "bench/hints.py", "--positions", "3", "--samples", "5,10"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    assert "command:  python bench/hints.py --positions 3 --samples 5,10" in finished.stdout
    assert "positions: 3 " in finished.stdout
    rows = [
        line.split() for line in finished.stdout.splitlines() if line[:7].strip() in {"5", "10"}
    ]
    assert [row[0] for row in rows] == ["5", "10"]
    # samples, drawn (median, min), CPU (median, max), agreement: all / contested.
    assert [(row[1], row[2]) for row in rows] == [("5", "5"), ("10", "10")]  # no work budget
    assert all(row[5].endswith("%") for row in rows)
    assert "heuristic hint (visible only)" in finished.stdout
    assert "undecided sampled solves at 10 samples: " in finished.stdout


def test_difficulty_benchmark_reports_terciles_bands_and_cpu_time() -> None:
    finished = subprocess.run(
        [sys.executable, "bench/difficulty.py", "--deals", "3"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    assert "3 certified deals among seeds 0-" in finished.stdout
    assert "terciles: " in finished.stdout
    assert "thresholds in force (31, 55)" in finished.stdout
    assert "CPU per rating: median " in finished.stdout
    assert "command: python bench/difficulty.py --deals 3" in finished.stdout


def test_solver_benchmark_takes_seed_ranges_and_ranks_the_tail_by_cpu_time() -> None:
    finished = subprocess.run(
        [sys.executable, "bench/solver.py", "--seeds", "3-5,8", "--tail", "4"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    assert "deals:    4 (seeds 3,4,5,8, deal_code_for_seed)" in finished.stdout
    assert "tail:     the 4 slowest deals (by CPU time)" in finished.stdout
    assert "s of CPU in solve (one core)" in finished.stdout
    tail = finished.stdout.split("tail:", 1)[1].splitlines()[1:]
    assert sorted(int(line.split()[1]) for line in tail) == [3, 4, 5, 8]
    assert all(line.endswith(" CPU") for line in tail)


def test_analysis_benchmark_reports_cpu_per_analysis_with_the_variants_budgets() -> None:
    stdout = bench_output("bench/analysis.py", "--variant", "three-blind-mice", "--games", "2")

    per_call, total = analysis_budgets("three-blind-mice")  # larger where it is compiled
    assert f"budgets:  {per_call:,} positions a solver call, {total:,} an analysis" in stdout
    assert "games:    2 three-blind-mice (seeds 0-1)" in stdout
    assert "an analysis" in stdout.split("cpu:", 1)[1]


def test_analysis_benchmark_inline_uses_a_requests_budgets_and_counts_the_settled() -> None:
    stdout = bench_output(
        "bench/analysis.py", "--variant", "three-blind-mice", "--games", "2", "--inline"
    )

    per_call, total = inline_analysis_budgets("three-blind-mice")
    assert f"budgets:  {per_call:,} positions a solver call, {total:,} an analysis" in stdout
    assert "settled:  2 of 2" in stdout
