"""Admin for players' statistics: read-only, since every figure is derived from the games.

The one operation is the service's own: recompute the selected players' rows from their games.
Rows go only with their owner's account (cascade), never on their own.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest

from games.admin import DeletedOnlyWithOwnerAdmin
from stats import services
from stats.models import PlayerStats


@admin.register(PlayerStats)
class PlayerStatsAdmin(DeletedOnlyWithOwnerAdmin):
    # Compact: every column on screen at 1366 px (tests/web/test_admin_width.py); the rest on
    # the row's page.
    list_display = (
        "user_email",
        "mode",
        "won",
        "resigned",
        "best_streak",
        "best_time",
        "fewest_moves",
    )
    list_select_related = ("user",)
    list_filter = ("mode",)
    search_fields = ("user__email",)
    readonly_fields = (
        "user",
        "mode",
        "won",
        "resigned",
        "current_streak",
        "best_streak",
        "best_time",
        "fewest_moves",
        "total_win_time",
        "clean_wins",
        "last_finished_at",
        "last_finished_game",
        "updated_at",
    )
    fields = readonly_fields
    actions = ("recompute",)

    @admin.display(description="player", ordering="user__email")
    def user_email(self, stats: PlayerStats) -> str:
        return stats.user.email or stats.user.get_username()

    def has_recompute_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("stats.change_playerstats")

    @admin.action(
        description="Recompute the selected players' statistics from their games",
        permissions=["recompute"],
    )
    def recompute(self, request: HttpRequest, queryset: QuerySet[PlayerStats]) -> None:
        users = User.objects.filter(pk__in=queryset.values("user_id"))
        count = 0
        for user in users:
            services.stats_recompute(user=user)
            count += 1
        self.message_user(
            request, f"Recomputed the statistics of {count} player(s).", messages.SUCCESS
        )
