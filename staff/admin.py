"""The staff audit log, browsable in the admin: every staff action, who, when, on what, and why.

The rows are Django's admin log (``LogEntry``): the admin's own additions, changes and
deletions, which Django records itself, and the custom actions, which record through
``infrastructure.audit.staff_action_record`` with the reason staff gave (regenerating a daily
deal, suspending an app or lifting it, exporting or deleting a player, topping up the pool,
hiding a leaderboard result...). Read-only: an audit log nobody can edit or prune from here.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.models import ADDITION, DELETION, LogEntry
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.safestring import SafeString

from games.admin import ReadOnlyAdmin, user_column
from infrastructure.admin_paging import CappedPaginator

FLAG_WORDS = {ADDITION: "added", DELETION: "deleted"}


class ActorFilter(admin.SimpleListFilter):
    """Who acted: only the accounts that appear in the log (staff), never every player."""

    title = "staff member"
    parameter_name = "user__id__exact"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        actors = (
            get_user_model()
            .objects.filter(pk__in=LogEntry.objects.values("user_id").distinct())
            .order_by("email", "username")
        )
        return [(str(actor.pk), actor.email or actor.get_username()) for actor in actors]

    def queryset(self, request: HttpRequest, queryset: QuerySet[LogEntry]) -> QuerySet[LogEntry]:
        value = self.value()
        return queryset.filter(user_id=value) if value else queryset


@admin.register(LogEntry)
class AuditLogAdmin(ReadOnlyAdmin):
    list_display = ("action_time", "actor", "content_type", "object_link", "what")
    list_display_links = ("action_time",)
    list_filter = (
        ActorFilter,
        ("content_type", admin.RelatedOnlyFieldListFilter),
        "action_flag",
        "action_time",
    )
    date_hierarchy = "action_time"
    search_fields = ("object_repr", "=object_id", "change_message", "user__email")
    list_select_related = ("user", "content_type")
    show_full_result_count = False
    paginator = CappedPaginator  # the log only grows: deep pages are reached by a filter
    ordering = ("-action_time",)
    fields = (
        "action_time",
        "actor",
        "content_type",
        "object_id",
        "object_link",
        "action_flag",
        "what",
    )
    readonly_fields = fields

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    actor = user_column("user", "who")

    @admin.display(description="object")
    def object_link(self, entry: LogEntry) -> SafeString | str:
        url = entry.get_admin_url() if entry.action_flag != DELETION else ""
        if not url:
            return entry.object_repr
        return format_html('<a href="{}">{}</a>', url, entry.object_repr)

    @admin.display(description="what and why")
    def what(self, entry: LogEntry) -> str:
        message = entry.get_change_message()
        flag = FLAG_WORDS.get(entry.action_flag)
        if flag and not message:
            return flag
        return message or "changed"
