"""Staff operations: regenerating future daily deals and topping up the winnable pool."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.conf import settings
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import tasks
from games.engine.deals import daily_seed, deal_code_for_seed
from games.models import DailyDeal, WinnableDeal
from tests.admin.conftest import WON, daily_deal, winnable_deal

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:games_dailydeal_changelist"


def _messages(response: Any) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def _regenerate(client: Client, *deals: DailyDeal, reason: str | None = "the deal leaked") -> Any:
    """The action, confirmed on its intermediate page with ``reason`` (None: not confirmed)."""
    data: dict[str, Any] = {
        "action": "regenerate_future",
        "_selected_action": [deal.pk for deal in deals],
    }
    if reason is not None:
        data |= {"confirm_with_reason": "yes", "reason": reason}
    return client.post(reverse(CHANGELIST), data, follow=True)


def test_regenerate_changes_a_future_day_and_refuses_today(
    admin_client: Client, fake_solver: Any
) -> None:
    today = timezone.now().date()
    future_day = today + datetime.timedelta(days=3)
    current = daily_deal(today, WON[0], seed=11)
    future = daily_deal(future_day, WON[1], seed=12)

    response = _regenerate(admin_client, current, future)

    assert response.status_code == 200
    texts = _messages(response)
    assert any("Regenerated" in text and future_day.isoformat() in text for text in texts)
    assert any("Refused" in text and today.isoformat() in text for text in texts)
    regenerated = DailyDeal.objects.get(date=future_day)
    # The service certified the first candidate of the day's next generation (the fake solver
    # accepts it), keyed by the server's daily-deal secret.
    seed = daily_seed(future_day, 0, secret=settings.DAILY_DEAL_SECRET.encode(), generation=1)
    assert regenerated.generation == 1
    assert regenerated.seed == seed
    assert regenerated.deal_code == deal_code_for_seed(seed)
    assert regenerated.deal_code != WON[1]["code"]
    assert regenerated.certificate == [{"type": "deal"}]
    unchanged = DailyDeal.objects.get(date=today)
    assert (unchanged.pk, unchanged.seed, unchanged.deal_code) == (current.pk, 11, WON[0]["code"])


def test_regenerate_refuses_past_days(admin_client: Client, fake_solver: Any) -> None:
    past = daily_deal(timezone.now().date() - datetime.timedelta(days=1), WON[2], seed=13)
    response = _regenerate(admin_client, past)
    assert any("Refused" in text for text in _messages(response))
    assert not any("Regenerated" in text for text in _messages(response))
    past.refresh_from_db()
    assert past.deal_code == WON[2]["code"]


def test_pool_top_up_without_a_broker_certifies_inline(
    admin_client: Client, fake_solver: Any, settings: Any
) -> None:
    settings.REDIS_URL = None
    winnable_deal(WON[0], seed=1)
    response = admin_client.post(
        reverse("staff:pool-top-up"),
        {"next": reverse("admin:games_winnabledeal_changelist")},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == reverse("admin:games_winnabledeal_changelist")
    assert WinnableDeal.objects.count() == 2
    assert any("embedded mode" in text for text in _messages(response))


def test_pool_top_up_with_a_broker_enqueues_the_task(
    admin_client: Client, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    sent: list[tuple[Any, tuple[Any, ...]]] = []

    def enqueue(task: Any, *args: Any) -> bool:
        sent.append((task, args))
        return True

    monkeypatch.setattr(tasks, "enqueue", enqueue)
    winnable_deal(WON[0], seed=1)
    response = admin_client.post(reverse("staff:pool-top-up"), follow=True)
    assert sent == [(tasks.top_up_winnable_pool, (1 + tasks.POOL_BATCH, tasks.POOL_BATCH))]
    assert WinnableDeal.objects.count() == 1
    assert response.redirect_chain[-1][0] == reverse("staff:dashboard")
    assert any("Queued" in text for text in _messages(response))


def test_pool_top_up_reports_an_unreachable_broker(
    admin_client: Client, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    monkeypatch.setattr(tasks, "enqueue", lambda task, *args: False)
    response = admin_client.post(reverse("staff:pool-top-up"), follow=True)
    assert any("could not be reached" in text for text in _messages(response))


def test_pool_top_up_is_post_only_and_staff_only(
    admin_client: Client, player_client: Client, client: Client
) -> None:
    url = reverse("staff:pool-top-up")
    assert admin_client.get(url).status_code == 405
    for outsider in (player_client, client):
        response = outsider.post(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))
    assert WinnableDeal.objects.count() == 0


def test_pool_top_up_ignores_an_offsite_next(
    admin_client: Client, fake_solver: Any, settings: Any
) -> None:
    settings.REDIS_URL = None
    response = admin_client.post(reverse("staff:pool-top-up"), {"next": "https://evil.example/"})
    assert response["Location"] == reverse("staff:dashboard")


def test_winnable_changelist_has_the_top_up_button(admin_client: Client) -> None:
    body = admin_client.get(reverse("admin:games_winnabledeal_changelist")).content.decode()
    assert reverse("staff:pool-top-up") in body
