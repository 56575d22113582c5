"""Whether a compiled search lets other threads run: the tests of both searches loop beside one
(tests/engine/test_solver_c.py, tests/engine/test_variant_solver_c.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


def loops_beside(target: Callable[..., Any], *args: Any) -> tuple[float, float]:
    """Run ``target(*args)`` in another thread while this one loops: how long it ran, and how
    many times a second this thread's loop went round meanwhile (a search holding the GIL
    stops the loop but for the holder's rare checks)."""
    worker = threading.Thread(target=target, args=args)
    looked = 0
    started = time.perf_counter()
    worker.start()
    while worker.is_alive():
        looked += 1
    searched = time.perf_counter() - started
    return searched, looked / searched
