"""Staff's page of a player: links to everything of theirs, their sessions, the export of their
data for a privacy request, and a deletion whose confirmation counts instead of listing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.admin.models import DELETION, LogEntry
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Profile
from accounts.oauth.services import personal_token_create
from games.models import Game, GameEvent
from tests.admin.conftest import WON, make_user, new_game, play

pytestmark = pytest.mark.django_db


def _player_with_games(email: str, games: int) -> User:
    player = make_user(email)
    for index in range(games):
        play(player, new_game(player, code=WON[index]["code"]), WON[index]["line"][:3])
    return player


def _url(name: str, user: User) -> str:
    return reverse(f"admin:auth_user_{name}", args=[user.pk])


def test_the_player_page_links_to_their_games_stats_apps_and_sessions(
    admin_client: Client,
) -> None:
    player = _player_with_games("linked@example.com", 1)
    body = admin_client.get(_url("change", player)).content.decode()
    for link in (
        f"{reverse('admin:games_game_changelist')}?owner__id__exact={player.pk}",
        f"{reverse('admin:stats_playerstats_changelist')}?user__id__exact={player.pk}",
        f"{reverse('admin:allauth_idp_oidc_token_changelist')}?user__id__exact={player.pk}",
        f"{reverse('admin:achievements_achievement_changelist')}?user__id__exact={player.pk}",
        _url("sessions", player),
        _url("export", player),
    ):
        assert link in body, link
    games = admin_client.get(
        reverse("admin:games_game_changelist"), {"owner__id__exact": player.pk}
    )
    assert [game.owner_id for game in games.context["cl"].result_list] == [player.pk]


def test_players_are_searched_by_display_name(admin_client: Client) -> None:
    player = make_user("named@example.com")
    Profile.objects.update_or_create(user=player, defaults={"display_name": "Ada Lovelace"})
    make_user("other@example.com")
    response = admin_client.get(reverse("admin:auth_user_changelist"), {"q": "lovelace"})
    assert list(response.context["cl"].result_list) == [player]


def test_the_sessions_page_lists_the_players_sessions_only(admin_client: Client) -> None:
    player = make_user("sessions@example.com")
    Client().force_login(player)
    Client().force_login(player)
    Client().force_login(make_user("someone@example.com"))
    response = admin_client.get(_url("sessions", player))
    assert response.status_code == 200
    assert len(response.context["sessions"]) == 2


def test_the_staff_export_is_the_players_own_export_and_is_recorded(
    admin_client: Client,
) -> None:
    player = _player_with_games("export@example.com", 2)
    own = Client()
    own.force_login(player)
    mine = own.get("/api/v1/me/export/").json()

    form = admin_client.get(_url("export", player))
    assert form.status_code == 200
    assert not LogEntry.objects.exists()
    response = admin_client.post(_url("export", player), {"reason": "privacy request #42"})

    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    theirs = json.loads(response.content)
    del theirs["exported_at"], mine["exported_at"]
    assert theirs == mine
    assert len(theirs["games"]) == 2
    entry = LogEntry.objects.get()
    assert (entry.object_id, entry.change_message) == (
        str(player.pk),
        "exported the player's data: privacy request #42",
    )


def test_the_export_needs_a_reason(admin_client: Client) -> None:
    player = make_user("noreason@example.com")
    response = admin_client.post(_url("export", player), {"reason": ""})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert not LogEntry.objects.exists()


def test_player_pages_refuse_players_and_tokens(player_client: Client, client: Client) -> None:
    target = make_user("target@example.com")
    pages = [_url(name, target) for name in ("change", "export", "sessions", "delete")]
    for outsider in (player_client, client):
        for url in pages:
            response = outsider.post(url, {"reason": "curious", "post": "yes"})
            assert response.status_code == 302, url
            assert "/login/" in response["Location"]
    # Staff's own token opens no admin page, even beside their session.
    staff = make_user("staff@example.com", staff=True)
    _, token = personal_token_create(user=staff, name="script", scopes=["games:read"], days=7)
    with_token = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    with_token.force_login(staff)
    for url in pages:
        assert with_token.post(url, {"reason": "script", "post": "yes"}).status_code == 403
    assert User.objects.filter(pk=target.pk).exists()
    assert not LogEntry.objects.exists()


def _confirmation_queries(admin_client: Client, player: User) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(_url("delete", player))
    assert response.status_code == 200
    return len(queries), response.content.decode()


@pytest.mark.usefixtures("steady_session_snapshots")
def test_the_deletion_confirmation_counts_instead_of_listing(admin_client: Client) -> None:
    small = _player_with_games("small@example.com", 1)
    big = _player_with_games("big@example.com", 4)
    _confirmation_queries(admin_client, small)  # the staff's session cached (its first read)
    small_queries, _ = _confirmation_queries(admin_client, small)
    big_queries, body = _confirmation_queries(admin_client, big)

    assert big_queries == small_queries  # whatever the player has played
    counts = admin_client.get(_url("delete", big)).context["counts"]
    assert counts["games"] == 4
    assert counts["events"] == GameEvent.objects.filter(game__owner=big).count() > 12
    assert "Game event:" not in body  # Django's listing names every related object
    assert 'name="reason"' in body


def test_deleting_a_player_needs_a_reason_and_is_recorded(admin_client: Client) -> None:
    player = _player_with_games("leaving@example.com", 2)
    events = GameEvent.objects.filter(game__owner=player).count()
    url = _url("delete", player)

    refused = admin_client.post(url, {"post": "yes", "reason": ""})
    assert refused.status_code == 200
    assert User.objects.filter(pk=player.pk).exists()

    done = admin_client.post(url, {"post": "yes", "reason": "asked by e-mail, ticket 7"})
    assert done.status_code == 302
    assert not User.objects.filter(pk=player.pk).exists()
    assert not Game.objects.exists()
    assert not GameEvent.objects.exists()
    entry = LogEntry.objects.get()
    assert entry.action_flag == DELETION
    assert entry.object_id == str(player.pk)
    assert entry.change_message.startswith(
        "deleted the player's account and data: asked by e-mail, ticket 7 ("
    )
    assert "2 games" in entry.change_message
    assert f"{events} events" in entry.change_message


def test_staff_cannot_delete_themselves_from_the_player_page(admin_client: Client) -> None:
    me = User.objects.get(username="admin")
    response = admin_client.post(_url("delete", me), {"post": "yes", "reason": "oops"})
    assert response.status_code == 302
    assert User.objects.filter(pk=me.pk).exists()


def _edit(admin_client: Client, player: User, **changes: str) -> Any:
    data = {
        "username": player.username,
        "email": player.email,
        "is_active": "on",
        "date_joined_0": player.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": player.date_joined.strftime("%H:%M:%S"),
        "initial-date_joined_0": player.date_joined.strftime("%Y-%m-%d"),
        "initial-date_joined_1": player.date_joined.strftime("%H:%M:%S"),
        **changes,
    }
    data = {key: value for key, value in data.items() if value != ""}
    return admin_client.post(_url("change", player), data)


def test_deactivating_a_player_needs_a_reason_kept_in_the_audit_log(admin_client: Client) -> None:
    player = make_user("cheater@example.com")

    refused = _edit(admin_client, player, is_active="")
    assert refused.status_code == 200
    assert "change_reason" in refused.context["adminform"].form.errors
    player.refresh_from_db()
    assert player.is_active

    done = _edit(admin_client, player, is_active="", change_reason="replayed the solver's line")
    assert done.status_code == 302
    player.refresh_from_db()
    assert not player.is_active
    entry = LogEntry.objects.get()
    assert entry.object_id == str(player.pk)
    assert entry.change_message == "Changed Active. Why: replayed the solver's line"


def test_an_ordinary_edit_needs_no_reason(admin_client: Client) -> None:
    player = make_user("typo@example.com")
    assert _edit(admin_client, player, email="typo.fixed@example.com").status_code == 302
    assert LogEntry.objects.get().get_change_message() == "Changed Email address."
