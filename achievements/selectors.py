"""Reads of achievements: what the player holds (with the date and the game of each), and
what they could still earn."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from uuid import UUID

from django.contrib.auth.models import User

from achievements import rules
from achievements.models import Achievement
from games.models import Game
from games.variants import offered_variant_names, variant_names


@dataclass(frozen=True, slots=True)
class Held:
    kind: rules.Kind
    earned_at: datetime.datetime | None  # None: not earned yet
    game_id: UUID | None


def achievements_of(*, user: User) -> list[Held]:
    """Every achievement the player holds or may earn, the earned ones first (oldest first),
    then the rest in the catalogue's order. The win of a variant no longer offered
    (``double-scorpion-3-2``: no new game begins in it) is one to earn only for a player who
    has a game in it, as the statistics list that variant (``stats.selectors.
    variant_figures``). One query, two for a player who has not earned every variant's."""
    kinds = {kind.code: kind for kind in rules.catalogue()}
    earned = [
        Held(kind=kinds[row.code], earned_at=row.earned_at, game_id=row.game_id)
        for row in Achievement.objects.filter(user=user).order_by("earned_at", "code")
        if row.code in kinds  # an achievement withdrawn from the rules is not shown
    ]
    held = {item.kind.code for item in earned}
    offered = set(offered_variant_names())
    # Variant name -> the code of its win, for the variants no longer offered not yet won.
    kept = {
        name: rules.variant_code(name)
        for name in variant_names()
        if name not in offered and rules.variant_code(name) not in held
    }
    unearnable: set[str] = set()
    if kept:
        played = set(
            Game.objects.filter(owner=user, variant__in=kept)
            .order_by()
            .values_list("variant", flat=True)
            .distinct()
        )
        unearnable = {code for name, code in kept.items() if name not in played}
    return earned + [
        Held(kind=kind, earned_at=None, game_id=None)
        for code, kind in kinds.items()
        if code not in held and code not in unearnable
    ]


def achievements_export(*, user: User) -> list[dict[str, str]]:
    """The player's achievements for the export of their data."""
    return [
        {"code": code, "earned_at": earned_at.isoformat(), "game": str(game_id)}
        for code, earned_at, game_id in Achievement.objects.filter(user=user)
        .order_by("earned_at", "code")
        .values_list("code", "earned_at", "game_id")
    ]
