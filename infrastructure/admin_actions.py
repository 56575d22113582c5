"""Admin actions that ask why before they act: an intermediate page (what will change, and a
required reason) between choosing the action on a list and running it, like Django's own
"delete selected" confirmation. The reason goes to the audit log (``infrastructure.audit``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from django import forms
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

CONFIRM_FIELD = "confirm_with_reason"


class ReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=500,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Why (kept in the audit log with your name and the time).",
    )


def actor_id(request: HttpRequest) -> int:
    """The staff member acting (the admin's pages are for signed-in staff only)."""
    pk = request.user.pk
    assert isinstance(pk, int), "a staff page reached without a signed-in user"
    return pk


def posted_reason(request: HttpRequest) -> tuple[str | None, ReasonForm]:
    """The reason confirmed on the intermediate page, or None while the page is to be shown
    (first time from the list, or sent back without a reason)."""
    if request.POST.get(CONFIRM_FIELD) != "yes":
        return None, ReasonForm()
    form = ReasonForm(request.POST)
    return (form.cleaned_data["reason"] if form.is_valid() else None), form


Preview = Callable[[QuerySet[Any]], Sequence[tuple[str, str]]]
Action = Callable[[Any, HttpRequest, QuerySet[Any]], TemplateResponse | None]


def with_reason(
    *, title: str, submit: str, preview: Preview
) -> Callable[[Callable[[Any, HttpRequest, QuerySet[Any], str], None]], Action]:
    """An admin action that first answers the intermediate page: ``preview(queryset)`` lists
    (object, what will happen to it) above a required reason; once confirmed, the action runs
    with the reason as its last argument."""

    def decorate(run: Callable[[Any, HttpRequest, QuerySet[Any], str], None]) -> Action:
        @functools.wraps(run)
        def action(
            model_admin: Any, request: HttpRequest, queryset: QuerySet[Any]
        ) -> TemplateResponse | None:
            reason, form = posted_reason(request)
            if reason is not None:
                run(model_admin, request, queryset, reason)
                return None
            context = {
                **model_admin.admin_site.each_context(request),
                "opts": model_admin.opts,
                "title": title,
                "preview": preview(queryset),
                "form": form,
                "submit": submit,
                "action": request.POST.get("action", ""),
                "selected": [str(pk) for pk in queryset.values_list("pk", flat=True)],
                "confirm_field": CONFIRM_FIELD,
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
            }
            return TemplateResponse(request, "admin/action_with_reason.html", context)

        return action

    return decorate
