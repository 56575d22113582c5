"""Staff's view of third-party apps: allauth's client admin, plus suspension and who plays
(client or bot). Here, above the apps, because marking an app's kind marks its games too
(``players.services.app_kind_set``)."""

from __future__ import annotations

from typing import Any

from allauth.idp.oidc.admin import ClientAdmin
from allauth.idp.oidc.models import Client
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import AppKind, AppPlayer, AppSuspension
from accounts.oauth import selectors, services
from infrastructure.admin_actions import with_reason
from players import user_admin  # noqa: F401  (registers the player's page: the user admin)
from players.services import app_kind_set


class SuspensionInline(admin.StackedInline):
    model = AppSuspension
    fields = ("reason", "suspended_at", "suspended_by")
    readonly_fields = ("suspended_at", "suspended_by")
    extra = 0
    max_num = 1
    verbose_name = "suspension (while present, the app's tokens are refused)"


class AppPlayerInline(admin.StackedInline):
    model = AppPlayer
    fields = ("kind", "changed_at")
    readonly_fields = ("changed_at",)
    extra = 0
    max_num = 1
    can_delete = False
    verbose_name = "who plays (a bot's games never rank; saving re-marks the app's games)"


def _suspend_preview(queryset: QuerySet[Client]) -> list[tuple[str, str]]:
    return [
        (app.name, "already suspended" if hasattr(app, "suspension") else "suspended")
        for app in queryset
    ]


def _lift_preview(queryset: QuerySet[Client]) -> list[tuple[str, str]]:
    return [
        (app.name, "lifted" if hasattr(app, "suspension") else "not suspended") for app in queryset
    ]


admin.site.unregister(Client)


@admin.register(Client)
class AppAdmin(ClientAdmin):
    inlines = [SuspensionInline, AppPlayerInline]
    # Compact: every column on screen at 1366 px (tests/web/test_admin_width.py); consent
    # and wildcard settings are filters and on the app's page.
    list_display = ("name", "id", "type", "owner", "is_suspended", "plays")
    list_filter = (
        *ClientAdmin.list_filter,
        ("suspension", admin.EmptyFieldListFilter),
        "player__kind",
    )
    list_select_related = ("owner", "suspension", "player")
    actions = ["suspend", "lift_suspension", "mark_bot", "mark_client"]

    @admin.display(boolean=True, description="suspended")
    def is_suspended(self, app: Client) -> bool:
        return hasattr(app, "suspension")

    @admin.display(description="who plays")
    def plays(self, app: Client) -> str:
        return selectors.app_kind(app=app)

    @admin.action(description="Mark the selected apps as bots (their games leave the boards)")
    def mark_bot(self, request: HttpRequest, queryset: QuerySet[Client]) -> None:
        self._mark(request, queryset, AppKind.BOT)

    @admin.action(description="Mark the selected apps as clients (a person plays through them)")
    def mark_client(self, request: HttpRequest, queryset: QuerySet[Client]) -> None:
        self._mark(request, queryset, AppKind.CLIENT)

    def _mark(self, request: HttpRequest, queryset: QuerySet[Client], kind: AppKind) -> None:
        games = sum(app_kind_set(app=app, kind=kind) for app in queryset)
        messages.success(
            request, f"Marked {queryset.count()} app(s) as {kind.value}; {games} game(s) re-marked."
        )

    @admin.action(description="Suspend the selected apps (their tokens are refused)")
    @with_reason(title="Suspend apps", submit="Suspend", preview=_suspend_preview)
    def suspend(self, request: HttpRequest, queryset: QuerySet[Client], reason: str) -> None:
        for app in queryset:
            services.app_suspend(app=app, by=_staff(request), reason=reason)
        messages.success(request, f"Suspended {queryset.count()} app(s).")

    @admin.action(description="Lift the suspension of the selected apps")
    @with_reason(title="Lift suspensions", submit="Lift", preview=_lift_preview)
    def lift_suspension(
        self, request: HttpRequest, queryset: QuerySet[Client], reason: str
    ) -> None:
        lifted = sum(
            services.app_lift_suspension(app=app, by=_staff(request), reason=reason)
            for app in queryset
        )
        messages.success(request, f"Lifted the suspension of {lifted} app(s).")

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        for instance in formset.save(commit=False):
            if isinstance(instance, AppPlayer):
                # Through the service: the app's games are marked again with its kind.
                app_kind_set(app=form.instance, kind=instance.kind)
                continue
            if isinstance(instance, AppSuspension) and instance.suspended_by_id is None:
                instance.suspended_by = _staff(request)
            instance.save()
        for instance in formset.deleted_objects:
            instance.delete()
        formset.save_m2m()


def _staff(request: HttpRequest) -> Any:
    return request.user if request.user.is_authenticated else None
