"""The long differential runs (the compiled searches against the Python ones over hundreds of
deals, the deadlock proof against the plain search, the long Hypothesis runs): a small size in
every run, the full size on request.

    SCORPION_LONG_DIFFERENTIAL=1 make test    # or .venv/bin/python -m pytest tests/engine

The full sizes are those docs/benchmarks.md's figures were measured with; run them after a change to
a search (games/engine/_solver_c.c, _variant_c.c, solver.py, variant_solver.py).
"""

from __future__ import annotations

import os

LONG = os.environ.get("SCORPION_LONG_DIFFERENTIAL", "") == "1"


def sized(default: int, long: int) -> int:
    """``long`` when the long runs are asked for, else ``default``."""
    return long if LONG else default
