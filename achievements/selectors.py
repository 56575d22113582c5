"""Reads of achievements: what the player holds (with the date and the game of each), and
what they could still earn."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from uuid import UUID

from django.contrib.auth.models import User

from achievements import rules
from achievements.models import Achievement


@dataclass(frozen=True, slots=True)
class Held:
    kind: rules.Kind
    earned_at: datetime.datetime | None  # None: not earned yet
    game_id: UUID | None


def achievements_of(*, user: User) -> list[Held]:
    """Every achievement there is, the player's earned ones first (oldest first), then the
    rest in the catalogue's order. One query."""
    kinds = {kind.code: kind for kind in rules.catalogue()}
    earned = [
        Held(kind=kinds[row.code], earned_at=row.earned_at, game_id=row.game_id)
        for row in Achievement.objects.filter(user=user).order_by("earned_at", "code")
        if row.code in kinds  # an achievement withdrawn from the rules is not shown
    ]
    held = {item.kind.code for item in earned}
    return earned + [
        Held(kind=kind, earned_at=None, game_id=None)
        for code, kind in kinds.items()
        if code not in held
    ]


def achievements_export(*, user: User) -> list[dict[str, str]]:
    """The player's achievements for the export of their data."""
    return [
        {"code": code, "earned_at": earned_at.isoformat(), "game": str(game_id)}
        for code, earned_at, game_id in Achievement.objects.filter(user=user)
        .order_by("earned_at", "code")
        .values_list("code", "earned_at", "game_id")
    ]
