"""A player's achievements: derived from their games like the statistics (stats.models), kept
so that each keeps the date it was earned and the game that earned it.

Rebuildable at any time (``manage.py rebuild_achievements``): the rows are what
``achievements.rules`` says of the player's wins, in the order they finished.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Achievement(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="achievements"
    )
    # A code of achievements.rules (first_win, win_wasp, daily_streak_7, ...).
    code = models.CharField(max_length=48)
    earned_at = models.DateTimeField(help_text="When the game that earned it finished.")
    # The game that earned it. No foreign key: derived data, and a player's games go in one
    # bulk DELETE (games.services.owner_games_delete) that sets nothing null; the
    # achievements go with them (players.services.account_data_delete).
    game_id = models.UUIDField()

    class Meta:
        ordering = ["earned_at", "code"]
        constraints = [
            # Earned once: two games finishing at once (two devices) cannot both earn it.
            models.UniqueConstraint(fields=["user", "code"], name="achievement_once")
        ]

    def __str__(self) -> str:
        return f"{self.code} of user {self.user_id}"
