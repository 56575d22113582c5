"""The engine benchmark keeps running from the repository root as documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]


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
