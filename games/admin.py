"""Django admin for games, their event logs and the certified deals (staff only).

Nothing here edits what the log decides: games, events and certified deals are shown
read-only, and rows only appear through the services (a player's commands, the solver). The
staff operations are the ones the services offer: regenerating a *future* daily deal and
topping up the winnable pool (``games.staff_operations``). A game's page links to the
replay viewer (``/staff/games/<id>/replay/``), which steps through its history.

Events and games are never deleted on their own (the log is append-only and the statistics
are derived from games); they go only with their owner's account, so the admin's "delete
user" still works and removes them by cascade.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from django.contrib import admin, messages
from django.contrib.admin.utils import flatten_fieldsets
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from games import staff_operations as operations
from games.history import GameState
from games.models import DailyDeal, Game, GameAnalysis, GameEvent, WinnableDeal
from games.replay import position_view, step_view
from infrastructure.admin_actions import actor_id, with_reason
from infrastructure.admin_paging import CappedPaginator

# The admin index links to the staff dashboard.
admin.site.index_template = "admin/scorpion_index.html"


def pretty_json(value: Any) -> SafeString:
    return format_html("<pre>{}</pre>", json.dumps(value, indent=2, sort_keys=True))


def wrapped_code(code: str) -> SafeString:
    # Styled by staff/admin.css: the Content-Security-Policy refuses inline style attributes.
    return format_html('<code class="wrapped-code">{}</code>', code)


def certificate_html(line: Any) -> SafeString:
    """A solver's winning line as a numbered list of commands (``to`` is a 0-based column)."""
    if not isinstance(line, list):
        return pretty_json(line)

    def describe(command: Any) -> str:
        if isinstance(command, dict):
            if command.get("type") == "deal":
                return "deal"
            if command.get("type") == "move":
                to = command.get("to")
                return f"move {command.get('card')}" + ("" if to is None else f" \u2192 col {to}")
        return json.dumps(command)

    items = format_html_join("", "<li>{}</li>", ((describe(command),) for command in line))
    return format_html(
        '<p>{} commands</p><ol class="certificate">{}</ol>',
        len(line),
        items,
    )


class ReadOnlyAdmin(admin.ModelAdmin):
    """Viewable by staff with the view permission; never added or changed here."""

    class Media:
        css = {"all": ("staff/admin.css",)}

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class DeletedOnlyWithOwnerAdmin(ReadOnlyAdmin):
    """Read-only rows that are never deleted on their own pages, only by cascade when their
    owner's account is deleted (the admin checks every related row's delete permission)."""

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        match = request.resolver_match
        own_prefix = f"{self.opts.app_label}_{self.opts.model_name}_"
        if match is None or (match.url_name or "").startswith(own_prefix):
            return False
        return super().has_delete_permission(request, obj)


@admin.register(Game)
class GameAdmin(DeletedOnlyWithOwnerAdmin):
    # Compact, so that every column is on screen at 1366 px beside the admin's sidebar and the
    # filters (tests/web/test_admin_width.py): the id's first characters (the search finds a
    # game by them), the mode's value rather than its long label; the rest on the game's page.
    list_display = (
        "short_id",
        "owner_email",
        "mode_value",
        "variant",
        "status",
        "moves",
        "finished_at",
        "replay",
    )
    list_select_related = ("owner",)
    list_filter = ("mode", "variant", "status", "ranked", "app_kind", "daily_date", "created_at")
    search_fields = ("id", "owner__email")
    show_full_result_count = False
    paginator = CappedPaginator
    fieldsets = (
        (
            None,
            {"fields": ("id", "owner", "mode", "variant", "status", "replay_link", "events_link")},
        ),
        (
            "Progress",
            {
                "fields": (
                    "version",
                    "moves",
                    "undo_count",
                    "hint_count",
                    "created_at",
                    "updated_at",
                    "started_at",
                    "finished_at",
                )
            },
        ),
        (
            "Deal",
            {
                "fields": (
                    "deal_code_wrapped",
                    "seed",
                    "pysol_number",
                    "deal_supplied",
                    "daily_date",
                    "ranked",
                    "restarted_from",
                    "known_deal",
                )
            },
        ),
        (
            "Played through an app (a bot's games never rank)",
            {"fields": ("app", "app_kind")},
        ),
        (
            "Archive (the log in a file once the game is old: docs/architecture.md)",
            {"fields": ("archived_at", "archive_name", "archive_sha256")},
        ),
        (
            # Hidden and restored on the staff's fair-play page (docs/fair-play.md), which
            # writes the audit log; shown here only.
            "Leaderboard (fair play)",
            {"fields": ("leaderboard_hidden_at", "leaderboard_hidden_reason")},
        ),
        ("Position now (all cards, for staff)", {"fields": ("position",)}),
        (
            "Projection (cache of the log's fold)",
            {"fields": ("state_json",), "classes": ["collapse"]},
        ),
    )
    # Everything shown is read-only: the projection and the log are never edited by hand.
    readonly_fields = tuple(flatten_fieldsets(fieldsets))

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Game], search_term: str
    ) -> tuple[QuerySet[Game], bool]:
        # A whole id is looked up by the primary key; anything else (the id's first
        # characters, an address) is a text search, as Django does it.
        try:
            return queryset.filter(pk=UUID(search_term.strip())), False
        except ValueError:
            return super().get_search_results(request, queryset, search_term)

    @admin.display(description="id", ordering="id")
    def short_id(self, game: Game) -> SafeString:
        return format_html('<span title="{}">{}</span>', game.pk, str(game.pk)[:8])

    @admin.display(description="mode", ordering="mode")
    def mode_value(self, game: Game) -> str:
        return game.mode

    @admin.display(description="replay")
    def replay(self, game: Game) -> SafeString:
        return format_html('<a href="{}">replay</a>', reverse("staff:replay", args=[game.pk]))

    @admin.display(description="owner", ordering="owner__email")
    def owner_email(self, game: Game) -> str:
        return game.owner.email or game.owner.get_username()

    @admin.display(description="replay")
    def replay_link(self, game: Game) -> SafeString:
        url = reverse("staff:replay", args=[game.pk])
        return format_html('<a href="{}">replay (versions 0\u2013{})</a>', url, game.version)

    @admin.display(description="events")
    def events_link(self, game: Game) -> SafeString:
        if game.archived_at is not None:  # no rows left: the replay reads the file
            return format_html("{} event(s), archived", game.version)
        url = reverse("admin:games_gameevent_changelist")
        return format_html(
            '<a href="{}?game__id__exact={}">{} event(s)</a>', url, game.pk, game.version
        )

    @admin.display(description="position")
    def position(self, game: Game) -> SafeString:
        try:
            state = GameState.from_dict(game.state)
        except (KeyError, TypeError, ValueError) as exc:
            return format_html("<strong>unreadable projection</strong>: {}", exc)
        return SafeString(
            render_to_string(
                "staff/_position.html",
                {"position": position_view(state.position), "with_css": True},
            )
        )

    @admin.display(description="deal code")
    def deal_code_wrapped(self, game: Game) -> SafeString:
        return wrapped_code(game.deal_code)

    @admin.display(description="state")
    def state_json(self, game: Game) -> SafeString:
        return pretty_json(game.state)


def user_link_html(user: Any) -> SafeString:
    """A player's admin page, named by their e-mail address (a guest's: their username)."""
    return format_html(
        '<a href="{}">{}</a>',
        reverse("admin:auth_user_change", args=[user.pk]),
        user.email or user.get_username(),
    )


def user_column(field: str, description: str) -> Any:
    """A list or page column naming the player in ``field`` with a link to their page."""

    @admin.display(description=description, ordering=f"{field}__email")
    def column(model_admin: Any, row: Any) -> SafeString | str:
        user = getattr(row, field)
        return user_link_html(user) if user is not None else "-"

    return column


def game_link_html(*, game_id: UUID, version: int) -> SafeString:
    """A game's admin page, and the staff replay opened at ``version`` (events, analyses)."""
    return format_html(
        '<a href="{}">{}</a> (<a href="{}?version={}">replay here</a>)',
        reverse("admin:games_game_change", args=[game_id]),
        game_id,
        reverse("staff:replay", args=[game_id]),
        version,
    )


class GameIdSearch(admin.ModelAdmin):
    """Search by a game's id, through the index on ``game_id``. Django's ``=game__id`` search
    compares text (``UPPER(game_id::text) = UPPER(...)`` on PostgreSQL), which no index
    serves: a scan of the whole table. Here the term is read as a UUID and compared as one;
    anything else finds nothing."""

    search_fields = ("=game__id",)  # shows the search box; the search itself is below
    search_help_text = "A game's id (the whole UUID)."

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Any], search_term: str
    ) -> tuple[QuerySet[Any], bool]:
        term = search_term.strip()
        if not term:
            return queryset, False
        try:
            game_id = UUID(term)
        except ValueError:
            return queryset.none(), False
        return queryset.filter(game_id=game_id), False


@admin.register(GameEvent)
class GameEventAdmin(GameIdSearch, DeletedOnlyWithOwnerAdmin):
    list_display = ("game_link", "seq", "type", "summary", "created_at")
    list_filter = ("type", "created_at")
    show_full_result_count = False
    paginator = CappedPaginator
    readonly_fields = (
        "game_link",
        "seq",
        "type",
        "summary",
        "payload_json",
        "idempotency_key",
        "request_fingerprint",
        "created_at",
    )
    fields = readonly_fields

    @admin.display(description="game", ordering="game")
    def game_link(self, event: GameEvent) -> SafeString:
        return game_link_html(game_id=event.game_id, version=event.seq)

    @admin.display(description="what happened")
    def summary(self, event: GameEvent) -> str:
        return step_view(
            seq=event.seq, type=event.type, payload=event.payload, created_at=event.created_at
        ).summary

    @admin.display(description="payload")
    def payload_json(self, event: GameEvent) -> SafeString:
        return pretty_json(event.payload)


class CertifiedDealAdmin(ReadOnlyAdmin):
    @admin.display(description="certificate length")
    def certificate_length(self, deal: DailyDeal | WinnableDeal) -> int:
        return len(deal.certificate) if isinstance(deal.certificate, list) else 0

    @admin.display(description="solver seconds", ordering="solver_seconds")
    def seconds(self, deal: DailyDeal | WinnableDeal) -> str:
        return f"{deal.solver_seconds:.2f}"

    @admin.display(description="deal code")
    def deal_code_wrapped(self, deal: DailyDeal | WinnableDeal) -> SafeString:
        return wrapped_code(deal.deal_code)

    @admin.display(description="certificate (a winning line; columns 0-6)")
    def certificate_readable(self, deal: DailyDeal | WinnableDeal) -> SafeString:
        return certificate_html(deal.certificate)


@admin.register(GameAnalysis)
class GameAnalysisAdmin(GameIdSearch, DeletedOnlyWithOwnerAdmin):
    """The solver's post-game analyses (games.analysis): staff see them whatever the reveal
    rule, as they see the deals."""

    list_display = ("game_link", "outcome", "deal_verdict", "last_winnable_version", "created_at")
    list_filter = ("outcome", "deal_verdict")
    readonly_fields = (
        "game_link",
        "version",
        "deal_verdict",
        "outcome",
        "last_winnable_version",
        "line_version",
        "line_readable",
        "solver_nodes",
        "solver_seconds",
        "node_budget",
        "created_at",
    )
    fields = readonly_fields

    @admin.display(description="game", ordering="game")
    def game_link(self, analysis: GameAnalysis) -> SafeString:
        return game_link_html(game_id=analysis.game_id, version=analysis.line_version or 0)

    @admin.display(description="winning line (from line version; columns 0-6)")
    def line_readable(self, analysis: GameAnalysis) -> SafeString:
        return certificate_html(analysis.line)


# A certified deal's difficulty (docs/difficulty.md): staff see the measures, as they see the
# certificate.
DIFFICULTY_FIELDS = (
    "difficulty_band",
    "difficulty_score",
    "difficulty_model_score",
    "difficulty_games",
    "difficulty_measures",
)


def _regenerate_preview(queryset: QuerySet[DailyDeal]) -> list[tuple[str, str]]:
    """What regenerating the selected days would do, day by day (the confirmation's table)."""
    today = timezone.now().date()
    deals = {deal.date: deal for deal in queryset.order_by("date")}
    plan = operations.daily_deals_regenerate_plan(days=deals, today=today)
    outcome = dict.fromkeys(plan.refused, "kept: today and past days were played")
    outcome |= dict.fromkeys(
        plan.skipped, f"kept: at most {operations.MAX_REGENERATE} days at once"
    )
    for day in plan.regenerated:
        deal = deals[day]
        outcome[day] = (
            f"a new deal replaces generation {deal.generation} "
            f"(seed {deal.seed}, {deal.difficulty_band or 'unrated'}); "
            f"{(day - today).days} day(s) ahead"
        )
    return [(day.isoformat(), outcome[day]) for day in sorted(deals)]


@admin.register(DailyDeal)
class DailyDealAdmin(CertifiedDealAdmin):
    # Compact: every column on screen at 1366 px (tests/web/test_admin_width.py).
    list_display = (
        "date",
        "seed",
        "generation",
        "difficulty_band",
        "difficulty_score",
        "solver_nodes",
        "seconds",
    )
    list_filter = ("date", "difficulty_band", "created_at")
    search_fields = ("seed__exact", "deal_code")
    date_hierarchy = "date"
    readonly_fields = (
        "date",
        "seed",
        "generation",
        "candidate",
        "deal_code_wrapped",
        "solver_nodes",
        "solver_seconds",
        *DIFFICULTY_FIELDS,
        "created_at",
        "certificate_readable",
    )
    fields = readonly_fields
    actions = ("regenerate_future",)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Past days were played and rank the leaderboard; future ones are regenerated.
        return False

    def has_regenerate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.change_dailydeal")

    @admin.action(description="Regenerate selected future daily deals", permissions=["regenerate"])
    @with_reason(title="Regenerate daily deals", submit="Regenerate", preview=_regenerate_preview)
    def regenerate_future(
        self, request: HttpRequest, queryset: QuerySet[DailyDeal], reason: str
    ) -> None:
        """After a confirmation (which days would change, and a required reason: a future
        day's deal may already be in players' calendars), each day recorded in the audit log
        with the reason."""
        days: list[Any] = list(queryset.values_list("date", flat=True))
        result = operations.daily_deals_regenerate(
            days=days, today=timezone.now().date(), actor_id=actor_id(request), reason=reason
        )
        if result.regenerated:
            self.message_user(
                request,
                "Regenerated: " + ", ".join(day.isoformat() for day in result.regenerated),
                messages.SUCCESS,
            )
        if result.refused:
            self.message_user(
                request,
                "Refused (today and past days are never changed: players have played them): "
                + ", ".join(day.isoformat() for day in result.refused),
                messages.ERROR,
            )
        if result.skipped:
            self.message_user(
                request,
                f"Skipped (at most {operations.MAX_REGENERATE} days at once): "
                + ", ".join(day.isoformat() for day in result.skipped),
                messages.WARNING,
            )
        for day, error in result.failed:
            self.message_user(request, f"{day.isoformat()}: {error}", messages.ERROR)


@admin.register(WinnableDeal)
class WinnableDealAdmin(CertifiedDealAdmin):
    list_display = (
        "id",
        "seed",
        "difficulty_band",
        "difficulty_score",
        "solver_nodes",
        "seconds",
        "certificate_length",
        "created_at",
    )
    list_filter = ("difficulty_band", "created_at")
    search_fields = ("seed__exact", "deal_code")
    readonly_fields = (
        "seed",
        "deal_code_wrapped",
        "solver_nodes",
        "solver_seconds",
        *DIFFICULTY_FIELDS,
        "created_at",
        "certificate_readable",
    )
    fields = readonly_fields

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> TemplateResponse:
        from django.conf import settings

        context = {
            **(extra_context or {}),
            "can_top_up": request.user.has_perm("games.add_winnabledeal"),
            "broker": bool(settings.REDIS_URL),
        }
        return super().changelist_view(request, extra_context=context)  # type: ignore[return-value]
