"""Reads for the staff's daily leaderboard: the players' board as it ranks (``stats.selectors
.daily_wins``: the same wins, the same order), each rank with the account behind it and the
game, and searchable by display name or e-mail address without losing the ranks.

Unsearched, the ranks come from a window function over the day's wins, as on the players'
board. Searched, only the matching wins are read, each ranked by a correlated count of the
wins better than it (one query; the count rides the day's wins, as the player's own rank does
in ``stats.selectors.daily_leaderboard``), so a player found is shown at their true rank.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db.models import Count, F, OuterRef, Q, Subquery, Value, Window
from django.db.models.functions import Coalesce, Rank

from stats.selectors import daily_wins, seconds, win_time_expression

PAGE_SIZE = 50
ORDER = ("time", "moves", "finished_at")


@dataclass(frozen=True, slots=True)
class StaffRank:
    rank: int
    game_id: UUID
    user_id: int
    email: str
    username: str
    display_name: str
    guest: bool
    seconds: float | None
    moves: int
    finished_at: datetime.datetime


@dataclass(frozen=True, slots=True)
class StaffBoard:
    day: datetime.date
    search: str
    page: int
    rows: list[StaffRank]
    has_next: bool


def _better_than_outer() -> Q:
    return (
        Q(time__lt=OuterRef("time"))
        | Q(time=OuterRef("time"), moves__lt=OuterRef("moves"))
        | Q(time=OuterRef("time"), moves=OuterRef("moves"), finished_at__lt=OuterRef("finished_at"))
    )


def staff_daily_board(*, day: datetime.date, search: str = "", page: int = 1) -> StaffBoard:
    """A page of the day's board for staff, ``search`` (part of a display name or an e-mail
    address) narrowing it to the players it matches, each at their rank on the whole board."""
    wins = daily_wins(day=day).annotate(time=win_time_expression())
    search = search.strip()
    if search:
        better = (
            wins.filter(_better_than_outer())
            .order_by()
            .values("daily_date")
            .annotate(count=Count("id"))
            .values("count")
        )
        rows = wins.filter(
            Q(owner__profile__display_name__icontains=search) | Q(owner__email__icontains=search)
        ).annotate(rank=Coalesce(Subquery(better), Value(0)) + 1)
    else:
        rows = wins.annotate(
            rank=Window(Rank(), order_by=[F(field).asc() for field in ORDER]),
        )
    page = max(page, 1)
    offset = (page - 1) * PAGE_SIZE
    values = list(
        rows.order_by("rank", *ORDER, "id").values(
            "rank",
            "id",
            "owner_id",
            "owner__email",
            "owner__username",
            "owner__profile__display_name",
            "owner__profile__guest",
            "time",
            "moves",
            "finished_at",
        )[offset : offset + PAGE_SIZE + 1]
    )
    return StaffBoard(
        day=day,
        search=search,
        page=page,
        rows=[_row(value) for value in values[:PAGE_SIZE]],
        has_next=len(values) > PAGE_SIZE,
    )


def _row(value: Mapping[str, Any]) -> StaffRank:
    return StaffRank(
        rank=value["rank"],
        game_id=value["id"],
        user_id=value["owner_id"],
        email=value["owner__email"],
        username=value["owner__username"],
        display_name=value["owner__profile__display_name"] or "",
        guest=bool(value["owner__profile__guest"]),
        seconds=seconds(value["time"]),
        moves=value["moves"],
        finished_at=value["finished_at"],
    )
