"""``infrastructure.transactions.on_commit_robust``: a callback with arguments that fails after
the commit is logged, never raised to the request (Django 5.2 names a failing robust callback
by ``__qualname__``, which ``functools.partial`` lacks, and the logging's own error escaped)."""

from __future__ import annotations

from functools import partial

import pytest
from django.db import transaction

from infrastructure.transactions import on_commit_robust

pytestmark = pytest.mark.django_db(transaction=True)  # a real commit runs the callbacks


def _fails(reason: str) -> None:
    raise RuntimeError(reason)


def test_a_failing_callback_with_arguments_is_logged_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ran: list[str] = []
    with transaction.atomic():
        on_commit_robust(_fails, "the storage is down")
        on_commit_robust(ran.append, "the next one")  # the callbacks behind it still run
    assert ran == ["the next one"]
    assert "_fails" in caplog.text


def test_djangos_own_robust_partial_is_what_it_replaces() -> None:
    # Why the helper exists: the same callback as a partial escapes Django's robust handling.
    with pytest.raises(AttributeError), transaction.atomic():
        transaction.on_commit(partial(_fails, "the storage is down"), robust=True)
