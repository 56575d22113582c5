"""Admin for achievements: read-only, since every row is derived from the player's games
(``manage.py rebuild_achievements`` writes them again). Rows go only with their owner's data."""

from __future__ import annotations

from django.contrib import admin
from django.utils.safestring import SafeString

from achievements.models import Achievement
from games.admin import DeletedOnlyWithOwnerAdmin, game_link_html, user_column


@admin.register(Achievement)
class AchievementAdmin(DeletedOnlyWithOwnerAdmin):
    list_display = ("player", "code", "earned_at", "game")
    list_select_related = ("user",)
    list_filter = ("code", "earned_at")
    search_fields = ("user__email", "user__profile__display_name", "=game_id")
    fields = ("player", "code", "earned_at", "game")
    readonly_fields = fields

    player = user_column("user", "player")

    @admin.display(description="earned by")
    def game(self, achievement: Achievement) -> SafeString:
        return game_link_html(game_id=achievement.game_id, version=0)
