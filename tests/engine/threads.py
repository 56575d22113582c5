"""Whether a compiled search lets other threads run: the tests of both searches loop beside one
(tests/engine/test_solver_c.py, tests/engine/test_variant_solver_c.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def rounds_beside(target: Callable[..., Any], *args: Any) -> tuple[Any, int]:
    """Run ``target(*args)`` in another thread while this one loops: what it answered, and how
    many times this thread's loop went round meanwhile (a search holding the GIL stops the loop
    but for the holder's rare checks).

    Both are counts of work, positions searched and rounds looped, not seconds: their ratio is
    the same on a faster or a slower machine, loaded or not."""
    answers: list[Any] = []
    worker = threading.Thread(target=lambda: answers.append(target(*args)))
    rounds = 0
    worker.start()
    while worker.is_alive():
        rounds += 1
    assert answers, "the search failed"
    return answers[0], rounds
