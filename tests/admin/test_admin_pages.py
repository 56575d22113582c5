"""The Django admin for games: every page opens for staff, and nothing edits the log."""

from __future__ import annotations

import datetime

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import User
from django.db.models import Model
from django.test import Client, RequestFactory
from django.urls import resolve, reverse

from games import services
from games.models import DailyDeal, Game, GameEvent, WinnableDeal
from tests.admin.conftest import WON, daily_deal, make_user, new_game, play, winnable_deal

pytestmark = pytest.mark.django_db


@pytest.fixture
def dataset() -> dict[str, object]:
    owner = make_user("owner@example.com")
    game = play(owner, new_game(owner, code=WON[0]["code"]), WON[0]["line"][:6])
    return {
        "owner": owner,
        "game": game,
        "event": game.events.get(seq=1),
        "daily": daily_deal(datetime.date(2024, 1, 1), WON[1]),
        "winnable": winnable_deal(WON[2], seed=42),
    }


MODELS = [Game, GameEvent, DailyDeal, WinnableDeal, User]


def _change_url(obj: object) -> str:
    meta = obj._meta  # type: ignore[attr-defined]
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])  # type: ignore[attr-defined]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_staff_opens_every_changelist(
    admin_client: Client, dataset: dict, model: type[Model]
) -> None:
    meta = model._meta
    response = admin_client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
    assert response.status_code == 200


@pytest.mark.parametrize("key", ["game", "event", "daily", "winnable", "owner"])
def test_staff_opens_every_change_page(admin_client: Client, dataset: dict, key: str) -> None:
    response = admin_client.get(_change_url(dataset[key]))
    assert response.status_code == 200


def test_the_admin_index_names_every_model_in_good_english(admin_client: Client) -> None:
    page = admin_client.get(reverse("admin:index")).content.decode()
    assert "Game analyses" in page
    assert "analysiss" not in page.lower()


def test_staff_see_a_games_analysis_read_only(admin_client: Client) -> None:
    winner = make_user("winner@example.com")
    finished = play(winner, new_game(winner, code=WON[0]["code"]), WON[0]["line"])
    analysis = services.game_analysis_ensure(game_id=finished.pk)
    assert analysis is not None

    listing = admin_client.get(reverse("admin:games_gameanalysis_changelist"))
    page = admin_client.get(_change_url(analysis))

    assert listing.status_code == 200
    assert page.status_code == 200
    assert str(finished.pk) in page.content.decode()
    assert f"{len(analysis.line)} commands" in page.content.decode()
    assert admin_client.post(_change_url(analysis), {}).status_code == 403


def test_stats_admin_when_the_model_exists(admin_client: Client, dataset: dict) -> None:
    try:
        model = apps.get_model("stats", "PlayerStats")
    except LookupError:
        pytest.skip("stats has no PlayerStats model yet")
    assert admin.site.is_registered(model)
    row = model.objects.create(user=dataset["owner"], mode="all")
    response = admin_client.get(reverse("admin:stats_playerstats_changelist"))
    assert response.status_code == 200
    assert "owner@example.com" in response.content.decode()
    assert admin_client.get(_change_url(row)).status_code == 200


def test_game_change_page_shows_position_and_links_to_the_replay(
    admin_client: Client, dataset: dict
) -> None:
    game = dataset["game"]
    response = admin_client.get(_change_url(game))
    body = response.content.decode()
    assert reverse("staff:replay", args=[game.pk]) in body
    assert f"game__id__exact={game.pk}" in body
    # The staff view of the position marks face-down cards and lists the stock.
    assert "(face down)" in body
    assert "Stock" in body
    # View-only: no form field for the projection or the version, no save button.
    assert 'name="state"' not in body
    assert 'name="version"' not in body
    assert 'name="_save"' not in body


def test_certificate_is_shown_as_a_numbered_line(admin_client: Client, dataset: dict) -> None:
    body = admin_client.get(_change_url(dataset["daily"])).content.decode()
    first = WON[1]["line"][0]
    assert f"<li>move {first['card']} \u2192 col {first['to']}</li>" in body
    assert f"{len(WON[1]['line'])} commands" in body


def test_search_by_game_id_and_owner_email(admin_client: Client, dataset: dict) -> None:
    game = dataset["game"]
    other = make_user("someone@example.com")
    new_game(other, code=WON[3]["code"])
    url = reverse("admin:games_game_changelist")
    for term in (str(game.pk), str(game.pk)[:8], "owner@example"):
        response = admin_client.get(url, {"q": term})
        assert response.status_code == 200
        assert list(response.context["cl"].result_list) == [game], term
    response = admin_client.get(url, {"q": "not-a-uuid"})
    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == []


def test_game_filters(admin_client: Client, dataset: dict) -> None:
    url = reverse("admin:games_game_changelist")
    for params in ({"mode__exact": "seeded"}, {"status__exact": "playing"}):
        response = admin_client.get(url, params)
        assert response.status_code == 200
        assert list(response.context["cl"].result_list) == [dataset["game"]]
    response = admin_client.get(url, {"mode__exact": "daily"})
    assert list(response.context["cl"].result_list) == []


def test_events_filter_by_game_and_type(admin_client: Client, dataset: dict) -> None:
    game = dataset["game"]
    url = reverse("admin:games_gameevent_changelist")
    response = admin_client.get(url, {"game__id__exact": str(game.pk)})
    assert response.status_code == 200
    assert [event.seq for event in response.context["cl"].result_list] == [1, 2, 3, 4, 5, 6]
    response = admin_client.get(url, {"type__exact": "undo"})
    assert list(response.context["cl"].result_list) == []
    response = admin_client.get(url, {"q": str(game.pk)})
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == 6


def test_events_cannot_be_added_changed_or_deleted(admin_client: Client, dataset: dict) -> None:
    event = dataset["event"]
    assert admin_client.get(reverse("admin:games_gameevent_add")).status_code == 403
    change = admin_client.get(_change_url(event))
    assert change.status_code == 200  # view only
    assert 'name="_save"' not in change.content.decode()
    posted = admin_client.post(_change_url(event), {"type": "resign", "seq": 99})
    assert posted.status_code == 403
    delete_url = reverse("admin:games_gameevent_delete", args=[event.pk])
    assert admin_client.get(delete_url).status_code == 403
    assert admin_client.post(delete_url, {"post": "yes"}).status_code == 403
    changelist = admin_client.get(reverse("admin:games_gameevent_changelist"))
    assert "delete_selected" not in changelist.content.decode()
    event.refresh_from_db()
    assert event.type == "move"
    assert GameEvent.objects.count() == 6

    model_admin = admin.site.get_model_admin(GameEvent)
    request = RequestFactory().get(reverse("admin:games_gameevent_changelist"))
    request.user = User.objects.get(username="admin")
    request.resolver_match = resolve(request.path)
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request, event)
    assert not model_admin.has_delete_permission(request, event)


def test_games_are_read_only(admin_client: Client, dataset: dict) -> None:
    game = dataset["game"]
    assert admin_client.get(reverse("admin:games_game_add")).status_code == 403
    assert admin_client.post(_change_url(game), {"status": "won"}).status_code == 403
    assert admin_client.get(reverse("admin:games_game_delete", args=[game.pk])).status_code == 403
    game.refresh_from_db()
    assert game.status == "playing"


def test_deleting_a_user_removes_their_games_and_events(
    admin_client: Client, dataset: dict
) -> None:
    """The log is never deleted on its own, but it goes with its owner's account."""
    owner = dataset["owner"]
    url = reverse("admin:auth_user_delete", args=[owner.pk])
    confirm = admin_client.get(url)
    assert confirm.status_code == 200
    response = admin_client.post(url, {"post": "yes", "reason": "asked to close the account"})
    assert response.status_code == 302
    assert not Game.objects.exists()
    assert not GameEvent.objects.exists()


def test_admin_index_links_to_the_dashboard(admin_client: Client) -> None:
    body = admin_client.get(reverse("admin:index")).content.decode()
    assert reverse("staff:dashboard") in body


def test_future_daily_deals_are_for_staff_only(admin_client: Client, player_client: Client) -> None:
    # Staff may look ahead (to check or regenerate a deal); a signed-in player reaching for
    # the admin or the staff pages gets the log-in form, never the deal.
    future = daily_deal(datetime.date.today() + datetime.timedelta(days=3), WON[3], seed=77)
    pages = [
        reverse("admin:games_dailydeal_changelist"),
        _change_url(future),
        reverse("staff:dashboard"),
    ]
    listing = admin_client.get(pages[0])
    assert listing.status_code == 200
    assert pages[1] in listing.content.decode()
    detail = admin_client.get(pages[1])
    assert detail.status_code == 200
    assert future.deal_code in detail.content.decode()
    for url in pages:
        hidden = player_client.get(url)
        assert hidden.status_code == 302
        assert "/login/" in hidden["Location"]
        assert future.deal_code[:20].encode() not in hidden.content
