"""Admin for what players share: challenges (with who played them), friendships and requests,
invites, blocks. Shown, never added or edited here (they are the players' own doing, through
the API); staff may delete one, which the admin's log records like any deletion."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.safestring import SafeString

from games.admin import ReadOnlyAdmin, game_link_html, user_column
from social.models import Block, Challenge, ChallengeAttempt, Friendship, Invite

USER_SEARCH = ("email", "profile__display_name")


def searched_by(*relations: str) -> tuple[str, ...]:
    """Search on the players the rows name: their e-mail addresses and display names."""
    return tuple(f"{relation}__{field}" for relation in relations for field in USER_SEARCH)


class AttemptInline(admin.TabularInline):
    model = ChallengeAttempt
    fields = ("player_link", "game_link", "deal_seen", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    player_link = user_column("player", "player")

    @admin.display(description="game")
    def game_link(self, attempt: ChallengeAttempt) -> SafeString:
        return game_link_html(game_id=attempt.game_id, version=0)


@admin.register(Challenge)
class ChallengeAdmin(ReadOnlyAdmin):
    list_display = ("id", "creator_link", "variant", "difficulty", "attempts", "created_at")
    list_select_related = ("creator",)
    list_filter = ("variant", ("closed_at", admin.EmptyFieldListFilter), "created_at")
    search_fields = ("=id", *searched_by("creator"))
    fields = ("id", "creator_link", "source", "variant", "difficulty", "created_at", "closed_at")
    readonly_fields = fields
    inlines = [AttemptInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Challenge]:
        return super().get_queryset(request).annotate(attempt_count=Count("attempts"))

    creator_link = user_column("creator", "creator")

    @admin.display(description="attempts", ordering="attempt_count")
    def attempts(self, challenge: Challenge) -> int:
        return int(getattr(challenge, "attempt_count", 0))

    @admin.display(description="creator's game")
    def source(self, challenge: Challenge) -> SafeString | str:
        if challenge.source_game_id is None:
            return "gone"
        return game_link_html(game_id=challenge.source_game_id, version=0)


@admin.register(Friendship)
class FriendshipAdmin(ReadOnlyAdmin):
    list_display = ("requester_link", "addressee_link", "status", "created_at", "accepted_at")
    list_select_related = ("requester", "addressee")
    list_filter = ("status", "created_at")
    search_fields = searched_by("requester", "addressee")
    fields = ("requester_link", "addressee_link", "status", "created_at", "accepted_at")
    readonly_fields = fields

    requester_link = user_column("requester", "asked by")

    addressee_link = user_column("addressee", "asked")


@admin.register(Invite)
class InviteAdmin(ReadOnlyAdmin):
    list_display = ("id", "inviter_link", "created_at", "expires_at", "used_by_link")
    list_select_related = ("inviter", "used_by")
    list_filter = (("used_by", admin.EmptyFieldListFilter), "created_at")
    search_fields = ("=id", *searched_by("inviter"))
    fields = ("id", "inviter_link", "created_at", "expires_at", "used_by_link", "used_at")
    readonly_fields = fields

    inviter_link = user_column("inviter", "inviter")

    used_by_link = user_column("used_by", "used by")


@admin.register(Block)
class BlockAdmin(ReadOnlyAdmin):
    list_display = ("blocker_link", "blocked_link", "created_at")
    list_select_related = ("blocker", "blocked")
    list_filter = ("created_at",)
    search_fields = searched_by("blocker", "blocked")
    fields = ("blocker_link", "blocked_link", "created_at")
    readonly_fields = fields

    blocker_link = user_column("blocker", "blocker")

    blocked_link = user_column("blocked", "blocked")
