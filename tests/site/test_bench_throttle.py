"""The throttle benchmark keeps running from the repository root as documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from django.conf import settings

from tests.conftest import require_service

REPOSITORY = Path(__file__).resolve().parents[2]


def test_throttle_benchmark_runs_and_reports_its_figures() -> None:
    require_service("Redis", bool(settings.REDIS_URL))
    assert settings.REDIS_URL is not None
    command = ["bench/throttle.py", "--samples", "5", "--prior", "100"]
    finished = subprocess.run(
        [sys.executable, *command, "--redis-url", settings.REDIS_URL],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert f"command:  python {' '.join(command)}" in finished.stdout
    ratios = [line.split()[0] for line in finished.stdout.splitlines() if "/ counter:" in line]
    assert ratios == ["Redis", "Redis", "LocMem", "LocMem"]  # 0 and 100 prior requests each
    # The counters are atomic: 8 threads get exactly the limit through.
    assert "counter   allowed  100 of 320 (+0% over the limit)" in finished.stdout
