"""Staff's page of a player (the user admin): links to everything of theirs, the export of their
data for a privacy request, and a deletion that stays fast whatever the player has played.

Django's own deletion confirmation collects and lists every object that goes with the user:
for a player with 1,000 games and 28,000 events that is 29,000 rows fetched and rendered,
16 seconds, near gunicorn's 30-second timeout. Here the confirmation shows counts (a few
indexed ``COUNT`` queries, ``players.selectors.account_deletion_counts``) and asks for a reason,
and the deletion is the players' own (``players.services.account_delete``: one transaction,
bulk deletes), the one a player closing their account runs. Both the export and the deletion
are recorded in the audit log with the reason staff gave (``infrastructure.audit``).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import LogEntry
from django.contrib.admin.utils import unquote
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.core.exceptions import PermissionDenied
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html_join
from django.utils.http import urlencode
from django.utils.safestring import SafeString

from accounts.services import user_session_keys
from games.archive import ArchiveUnreadableError
from infrastructure.admin_actions import ReasonForm, actor_id
from infrastructure.audit import staff_action_record
from players import selectors, services

logger = logging.getLogger(__name__)


def _changelist(name: str, query: str) -> str:
    return f"{reverse(f'admin:{name}_changelist')}?{query}"


class PlayerChangeForm(UserChangeForm):
    """The user form, with why it is changed: kept in the audit log with Django's own account
    of the change. Required when the account is deactivated or reactivated (which takes the
    player's results off every leaderboard, or puts them back: stats.selectors.ranking_games)
    or given or refused staff rights."""

    change_reason = forms.CharField(
        required=False,
        max_length=500,
        strip=True,
        label="Why",
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text="Kept in the audit log. Required to (de)activate or to change staff rights.",
    )

    @property
    def changed_data(self) -> list[str]:
        # The reason is why the account changed, not a change of it.
        return [name for name in super().changed_data if name != "change_reason"]

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        weighty = {"is_active", "is_staff", "is_superuser"} & set(self.changed_data)
        if weighty and not cleaned.get("change_reason"):
            self.add_error("change_reason", f"Say why ({', '.join(sorted(weighty))} changed).")
        return cleaned


admin.site.unregister(User)


@admin.register(User)
class PlayerAdmin(UserAdmin):
    list_display = ("username", "email", "display_name", "is_active", "is_staff")
    list_select_related = ("profile",)
    search_fields = ("username", "email", "profile__display_name")
    show_full_result_count = False
    readonly_fields = ("player_links",)
    form = PlayerChangeForm
    fieldsets = (
        ("Player", {"fields": ("player_links",)}),
        *(UserAdmin.fieldsets or ()),
        ("Why (for the audit log)", {"fields": ("change_reason",)}),
    )
    # Django's "delete selected" collects every related row of every selected user (the
    # slow confirmation this admin replaces): one player at a time, from their page.
    actions: list[Any] = []
    change_form_template = "admin/auth/user/player_change_form.html"

    def construct_change_message(
        self, request: HttpRequest, form: Any, formsets: Any, add: bool = False
    ) -> Any:
        """Django's account of the change ("Changed Active."), then the reason staff gave."""
        message = super().construct_change_message(request, form, formsets, add)
        reason = form.cleaned_data.get("change_reason", "") if hasattr(form, "cleaned_data") else ""
        if not reason:
            return message
        said = LogEntry(change_message=json.dumps(message)).get_change_message()
        return f"{said} Why: {reason}"

    @admin.display(description="display name", ordering="profile__display_name")
    def display_name(self, user: User) -> str:
        profile = getattr(user, "profile", None)
        return profile.display_name if profile else ""

    @admin.display(description="everything of theirs")
    def player_links(self, user: User) -> SafeString:
        if user.pk is None:
            return SafeString("")
        own, owner = f"user__id__exact={user.pk}", f"owner__id__exact={user.pk}"
        links = [
            ("games", _changelist("games_game", owner)),
            ("statistics", _changelist("stats_playerstats", own)),
            ("achievements", _changelist("achievements_achievement", own)),
            ("challenges", _changelist("social_challenge", f"creator__id__exact={user.pk}")),
            ("friendships", _changelist("social_friendship", _either(user, "requester"))),
            ("blocks", _changelist("social_block", _either(user, "blocker"))),
            ("apps allowed (grants)", _changelist("allauth_idp_oidc_token", own)),
            ("apps registered", _changelist("allauth_idp_oidc_client", owner)),
            ("sessions", reverse("admin:auth_user_sessions", args=[user.pk])),
            ("staff actions on them", _changelist("admin_logentry", _audit_query(user))),
        ]
        return format_html_join(" · ", '<a href="{}">{}</a>', ((url, name) for name, url in links))

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<path:object_id>/export/",
                self.admin_site.admin_view(self.export_view),
                name="auth_user_export",
            ),
            path(
                "<path:object_id>/sessions/",
                self.admin_site.admin_view(self.sessions_view),
                name="auth_user_sessions",
            ),
        ]
        return own + super().get_urls()

    def _player(self, request: HttpRequest, object_id: str) -> User:
        user = self.get_object(request, unquote(object_id))
        if user is None:
            raise Http404("No such player.")
        return user

    def _page(
        self, request: HttpRequest, user: User, template: str, title: str, **extra: Any
    ) -> TemplateResponse:
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": user,
            "title": title,
            **extra,
        }
        return TemplateResponse(request, f"admin/auth/user/{template}", context)

    def export_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """A player's data for a privacy request: the JSON the player downloads themselves
        (``players.selectors.account_export``), once staff have said why."""
        user = self._player(request, object_id)
        if not self.has_change_permission(request, user):
            raise PermissionDenied
        form = ReasonForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                body = selectors.account_export(user=user)
            except ArchiveUnreadableError as error:
                # An archived game's file cannot be read (the operator's to repair): nothing is
                # exported, so nothing is recorded as exported; staff are told which and why.
                logger.error("archived log unreadable: %s", error)
                page = self._page(request, user, "export.html", "Export a player's data", form=form)
                page.context_data = {**(page.context_data or {}), "archive_error": str(error)}
                page.status_code = 503
                return page
            staff_action_record(
                actor_id=actor_id(request),
                target=user,
                action="exported the player's data",
                reason=form.cleaned_data["reason"],
            )
            filename = f"scorpion-export-{user.pk}-{timezone.now():%Y%m%d}.json"
            return HttpResponse(
                json.dumps(body, cls=DjangoJSONEncoder),
                content_type="application/json",
                headers={"Content-Disposition": f'attachment; filename="{filename}"'},
            )
        return self._page(request, user, "export.html", "Export a player's data", form=form)

    def sessions_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """The sessions signed in as the player (browser sessions and app session tokens).
        Session data is encoded, so finding them reads every stored session (a full scan,
        about a second per 100,000 sessions): a page staff open, never a listing."""
        user = self._player(request, object_id)
        if not self.has_view_permission(request, user):
            raise PermissionDenied
        keys = user_session_keys(user_id=user.pk)
        sessions = Session.objects.filter(session_key__in=keys).order_by("-expire_date")
        rows = [(session.session_key[:6], session.expire_date) for session in sessions]
        return self._page(request, user, "sessions.html", "Sessions of a player", sessions=rows)

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """Counts instead of Django's list of every related object, a reason, and the
        players' own deletion (bulk deletes in one transaction)."""
        user = self._player(request, object_id)
        if not self.has_delete_permission(request, user):
            raise PermissionDenied
        if user.pk == request.user.pk:
            messages.error(request, "Staff cannot delete their own account from here.")
            return HttpResponseRedirect(reverse("admin:auth_user_change", args=[user.pk]))
        form = ReasonForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            label = str(user)
            with transaction.atomic():
                # Recorded first, in the deletion's transaction: the user row is still there
                # to be named, and a deletion that fails leaves no entry.
                entry = staff_action_record(
                    actor_id=actor_id(request),
                    target=user,
                    action="deleted the player's account and data",
                    reason=form.cleaned_data["reason"],
                    kind="deletion",
                )
                counts = services.account_delete(user=user)
                LogEntry.objects.filter(pk=entry.pk).update(
                    change_message=f"{entry.change_message} ({_summary(counts)})"
                )
            messages.success(request, f"Deleted {label}: {_summary(counts)}.")
            return HttpResponseRedirect(reverse("admin:auth_user_changelist"))
        counts = selectors.account_deletion_counts(user=user)
        return self._page(
            request,
            user,
            "delete.html",
            "Delete a player",
            form=form,
            counts=counts,
            object_name=str(self.opts.verbose_name),
        )


def _summary(counts: dict[str, int]) -> str:
    return ", ".join(f"{value} {key}" for key, value in counts.items() if value)


def _either(user: User, own_side: str) -> str:
    """Rows naming the player on either side (a search by e-mail address covers both), or
    on their own side for a guest (no address)."""
    if user.email:
        return urlencode({"q": user.email})
    return f"{own_side}__id__exact={user.pk}"


def _audit_query(user: User) -> str:
    content_type = ContentType.objects.get_for_model(User)
    return f"content_type__id__exact={content_type.pk}&object_id__exact={user.pk}"
