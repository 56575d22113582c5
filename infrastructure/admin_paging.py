"""The admin's lists over tables that only grow (the event log, games): pages bounded.

Django's changelist counts every matching row (``COUNT(*)``: the whole table when nothing is
filtered) and pages with ``OFFSET``, so the 6,000th page of 600,000 events reads 600,000 rows.
``CappedPaginator`` counts at most ``CAP`` rows (``SELECT COUNT(*) FROM (... LIMIT CAP)``) and
so offers at most ``CAP / per_page`` pages; a page beyond is refused like any bad page number.
Deeper rows are reached by narrowing the list (a filter, a date, a search).
"""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.utils.functional import cached_property

# Rows a list counts and pages through: 100 pages of the admin's 100 rows.
CAP = 10_000


class CappedPaginator(Paginator):
    @cached_property
    def count(self) -> int:
        """The rows matching, at most CAP of them: one bounded count."""
        rows: Any = self.object_list
        return int(rows[:CAP].count())
