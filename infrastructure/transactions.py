"""``transaction.on_commit`` for a call with arguments, robustly.

Django 5.2 contains a failing ``robust=True`` callback by logging it under its
``__qualname__``, which a ``functools.partial`` lacks: the ``AttributeError`` raised while
logging then escapes, and a request whose transaction has committed answers 500 (seen when an
archive storage failed to delete a file after a deletion). Here the call is wrapped in a
function that has one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction


def on_commit_robust(func: Callable[..., object], /, *args: Any, **kwargs: Any) -> None:
    """Call ``func(*args, **kwargs)`` once the transaction commits (at once outside one); an
    exception it raises is logged by Django, never raised to the caller."""

    def call() -> None:
        func(*args, **kwargs)

    call.__qualname__ = getattr(func, "__qualname__", repr(func))
    transaction.on_commit(call, robust=True)
