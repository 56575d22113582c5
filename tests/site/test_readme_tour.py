"""The README's curl tour runs as written: the block is read from the README and run by bash,
twice in a row (a newcomer runs it again), against a live server on the test database."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import require_service

README = Path(__file__).resolve().parents[2] / "README.md"


def curl_tour() -> str:
    """The one ```sh block of the README's tour that follows "**With curl**"."""
    text = README.read_text()
    after = text.split("**With curl**", 1)[1]
    match = re.search(r"```sh\n(.*?)```", after, re.DOTALL)
    assert match, "the README's curl tour has no sh block"
    return match.group(1)


def test_the_readme_is_short() -> None:
    # A newcomer reads it in a few minutes; the rest lives under docs/.
    assert len(README.read_text().splitlines()) <= 250


def test_the_readme_curl_tour_runs_twice_as_written(live_server: Any) -> None:
    require_service("curl", shutil.which("curl") is not None)
    script = "set -euo pipefail\n" + curl_tour()
    env = {**os.environ, "BASE": str(live_server.url)}
    for run in (1, 2):
        done = subprocess.run(
            ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, f"run {run}: {done.stderr}\n{done.stdout}"
        lines = done.stdout.splitlines()
        # The best hint was played, undone and redone: versions 1, 2, 3; the log holds the
        # three events and the state after event 1 counts one move.
        assert lines[1].startswith("best move: {"), lines
        assert lines[2:5] == ["1", "2", "3"], lines
        assert '"type": "redo"' in lines[5], lines
        assert lines[6] == "1", lines
