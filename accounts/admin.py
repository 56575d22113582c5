"""Staff's view of third-party apps: allauth's client admin, plus suspension."""

from __future__ import annotations

from typing import Any

from allauth.idp.oidc.admin import ClientAdmin
from allauth.idp.oidc.models import Client
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import AppSuspension
from accounts.oauth import services


class SuspensionInline(admin.StackedInline):
    model = AppSuspension
    fields = ("reason", "suspended_at", "suspended_by")
    readonly_fields = ("suspended_at", "suspended_by")
    extra = 0
    max_num = 1
    verbose_name = "suspension (while present, the app's tokens are refused)"


admin.site.unregister(Client)


@admin.register(Client)
class AppAdmin(ClientAdmin):
    inlines = [SuspensionInline]
    list_display = (*ClientAdmin.list_display, "is_suspended")
    list_filter = (*ClientAdmin.list_filter, ("suspension", admin.EmptyFieldListFilter))
    list_select_related = ("owner", "suspension")
    actions = ["suspend", "lift_suspension"]

    @admin.display(boolean=True, description="suspended")
    def is_suspended(self, app: Client) -> bool:
        return hasattr(app, "suspension")

    @admin.action(description="Suspend the selected apps (their tokens are refused)")
    def suspend(self, request: HttpRequest, queryset: QuerySet[Client]) -> None:
        for app in queryset:
            services.app_suspend(app=app, by=_staff(request), reason="suspended from the list")
        messages.success(request, f"Suspended {queryset.count()} app(s).")

    @admin.action(description="Lift the suspension of the selected apps")
    def lift_suspension(self, request: HttpRequest, queryset: QuerySet[Client]) -> None:
        for app in queryset:
            services.app_lift_suspension(app=app)
        messages.success(request, f"Lifted the suspension of {queryset.count()} app(s).")

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        for instance in formset.save(commit=False):
            if isinstance(instance, AppSuspension) and instance.suspended_by_id is None:
                instance.suspended_by = _staff(request)
            instance.save()
        for instance in formset.deleted_objects:
            instance.delete()
        formset.save_m2m()


def _staff(request: HttpRequest) -> Any:
    return request.user if request.user.is_authenticated else None
