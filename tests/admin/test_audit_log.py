"""The audit log: every custom staff action is recorded with who, what and why, and staff browse
it (read-only) in the admin; the actions that change what players see ask for a reason on a
confirmation page first."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from allauth.idp.oidc.models import Client as App
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import AppSuspension
from games.models import DailyDeal, WinnableDeal
from tests.admin.conftest import WON, daily_deal, make_user, winnable_deal

pytestmark = pytest.mark.django_db

AUDIT = reverse("admin:admin_logentry_changelist")
DAILY = reverse("admin:games_dailydeal_changelist")
APPS = reverse("admin:allauth_idp_oidc_client_changelist")


def _entries() -> list[tuple[str, str]]:
    return [
        (entry.object_repr, entry.change_message)
        for entry in LogEntry.objects.order_by("action_time", "pk")
    ]


def _admin() -> User:
    return User.objects.get(username="admin")


def _future_deals() -> tuple[DailyDeal, DailyDeal]:
    today = timezone.now().date()
    return (
        daily_deal(today, WON[0], seed=11),
        daily_deal(today + datetime.timedelta(days=2), WON[1], seed=12),
    )


def test_regenerating_first_shows_which_days_change_and_changes_nothing(
    admin_client: Client, fake_solver: Any
) -> None:
    current, future = _future_deals()
    response = admin_client.post(
        DAILY, {"action": "regenerate_future", "_selected_action": [current.pk, future.pk]}
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert 'name="reason"' in body
    preview = dict(response.context["preview"])
    assert preview[current.date.isoformat()].startswith("kept: today and past days")
    assert preview[future.date.isoformat()].startswith("a new deal replaces generation 0")
    future.refresh_from_db()
    assert (future.generation, future.deal_code) == (0, WON[1]["code"])
    assert not LogEntry.objects.exists()


def test_regenerating_without_a_reason_is_refused(admin_client: Client, fake_solver: Any) -> None:
    _, future = _future_deals()
    response = admin_client.post(
        DAILY,
        {
            "action": "regenerate_future",
            "_selected_action": [future.pk],
            "confirm_with_reason": "yes",
            "reason": "   ",
        },
    )
    assert response.status_code == 200
    assert response.context["form"].errors["reason"]
    future.refresh_from_db()
    assert future.generation == 0
    assert not LogEntry.objects.exists()


def test_a_confirmed_regeneration_is_recorded_with_its_reason(
    admin_client: Client, fake_solver: Any
) -> None:
    _, future = _future_deals()
    admin_client.post(
        DAILY,
        {
            "action": "regenerate_future",
            "_selected_action": [future.pk],
            "confirm_with_reason": "yes",
            "reason": "the deal leaked on a forum",
        },
    )
    future.refresh_from_db()
    assert future.generation == 1
    entry = LogEntry.objects.get()
    assert entry.user == _admin()
    assert entry.object_id == str(future.pk)
    assert entry.change_message == (
        "regenerated the daily deal (generation 1): the deal leaked on a forum"
    )


def _app(name: str = "Bot maker") -> App:
    owner = make_user("dev@example.com")
    app = App(name=name, owner=owner, type=App.Type.PUBLIC)
    app.save()
    return app


def test_suspending_an_app_asks_why_and_records_it(admin_client: Client) -> None:
    app = _app()
    action = {"action": "suspend", "_selected_action": [app.pk]}
    page = admin_client.post(APPS, action)
    assert page.status_code == 200
    assert dict(page.context["preview"]) == {"Bot maker": "suspended"}
    assert not AppSuspension.objects.exists()

    admin_client.post(APPS, {**action, "confirm_with_reason": "yes", "reason": "token abuse"})

    suspension = AppSuspension.objects.get(client=app)
    assert (suspension.reason, suspension.suspended_by) == ("token abuse", _admin())
    assert _entries() == [(app.pk, "suspended: token abuse")]


def test_lifting_a_suspension_is_recorded_with_its_reason(admin_client: Client) -> None:
    app = _app()
    AppSuspension.objects.create(client=app, reason="abuse")
    admin_client.post(
        APPS,
        {
            "action": "lift_suspension",
            "_selected_action": [app.pk],
            "confirm_with_reason": "yes",
            "reason": "the developer fixed their client",
        },
    )
    assert not AppSuspension.objects.exists()
    assert _entries() == [(app.pk, "lifted the suspension: the developer fixed their client")]


def test_a_pool_top_up_is_recorded(admin_client: Client, fake_solver: Any, settings: Any) -> None:
    settings.REDIS_URL = None
    winnable_deal(WON[0], seed=1)
    admin_client.post(reverse("staff:pool-top-up"), {"reason": "the easy band ran low"})
    entry = LogEntry.objects.get()
    assert entry.object_id == ""
    assert entry.change_message == (
        "topped up the winnable pool (certified 1 inline): the easy band ran low"
    )
    assert WinnableDeal.objects.count() == 2


def test_staff_browse_the_audit_log_with_who_what_and_why(
    admin_client: Client, fake_solver: Any
) -> None:
    _, future = _future_deals()
    admin_client.post(
        DAILY,
        {
            "action": "regenerate_future",
            "_selected_action": [future.pk],
            "confirm_with_reason": "yes",
            "reason": "leaked",
        },
    )
    listing = admin_client.get(AUDIT)
    assert listing.status_code == 200
    body = listing.content.decode()
    assert "regenerated the daily deal (generation 1): leaked" in body
    assert "admin@example.com" in body
    assert reverse("admin:games_dailydeal_change", args=[future.pk]) in body

    entry = LogEntry.objects.get()
    by_actor = admin_client.get(AUDIT, {"user__id__exact": _admin().pk})
    assert list(by_actor.context["cl"].result_list) == [entry]
    searched = admin_client.get(AUDIT, {"q": "leaked"})
    assert list(searched.context["cl"].result_list) == [entry]
    nobody = admin_client.get(AUDIT, {"q": "nothing like this"})
    assert list(nobody.context["cl"].result_list) == []


def test_the_audit_log_cannot_be_edited_or_pruned(admin_client: Client) -> None:
    entry = LogEntry.objects.create(
        user=_admin(), object_repr="x", action_flag=2, change_message="did: because"
    )
    change = reverse("admin:admin_logentry_change", args=[entry.pk])
    assert admin_client.get(change).status_code == 200
    assert 'name="_save"' not in admin_client.get(change).content.decode()
    assert admin_client.post(change, {"change_message": "nothing"}).status_code == 403
    delete = reverse("admin:admin_logentry_delete", args=[entry.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert admin_client.get(reverse("admin:admin_logentry_add")).status_code == 403
    entry.refresh_from_db()
    assert entry.change_message == "did: because"


def test_players_cannot_read_the_audit_log(player_client: Client, client: Client) -> None:
    for outsider in (player_client, client):
        response = outsider.get(AUDIT)
        assert response.status_code == 302
        assert "/login/" in response["Location"]
