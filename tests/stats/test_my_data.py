"""The player's own data: GET /api/v1/me/export/, DELETE /api/v1/me/data/, DELETE /api/v1/me/."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from allauth.account.models import EmailAddress
from django.apps import apps
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db import models
from rest_framework.test import APIClient

from accounts.services import user_session_keys
from achievements.models import Achievement
from games.models import Game, GameEvent, GameSnapshot
from players import services as player_services
from tests.api.conftest import Player
from tests.stats.conftest import CODE, LINE

pytestmark = pytest.mark.django_db


def user_of(player: Player) -> User:
    return User.objects.get(email=player.email)


def play_to_win(player: Player, game_id: str) -> None:
    for step in LINE:
        assert player.command(game_id, step).status_code == 200


def a_history(player: Player) -> dict[str, Any]:
    """A won game, a resigned random game, and a random game still on (its deal hidden)."""
    won = player.new_game(code=CODE)
    play_to_win(player, won["id"])
    resigned = player.new_game(mode="random")
    player.command(resigned["id"], {"type": "deal"})
    player.command(resigned["id"], {"type": "resign"})
    playing = player.new_game(mode="random")
    player.command(playing["id"], {"type": "deal"})
    return {"won": won["id"], "resigned": resigned["id"], "playing": playing["id"]}


def rows_referring_to(user_id: int, game_ids: list[Any]) -> dict[str, int]:
    """Rows of every model that point at the user or at one of their games, found by walking
    every foreign key in the project (auto-created many-to-many tables included), plus the
    stored sessions signed in as the user."""
    found: dict[str, int] = {}
    for model in apps.get_models(include_auto_created=True):
        for field in model._meta.get_fields():
            if not isinstance(field, models.ForeignKey):
                continue
            if field.related_model is User:
                count = model._base_manager.filter(**{field.attname: user_id}).count()
            elif field.related_model is Game:
                count = model._base_manager.filter(**{f"{field.attname}__in": game_ids}).count()
            else:
                continue
            if count:
                found[f"{model._meta.label}.{field.name}"] = count
    sessions = len(user_session_keys(user_id=user_id))
    if sessions:
        found["sessions"] = sessions
    return found


# --- Export ---


def test_export_holds_everything_stored_about_the_caller(
    make_player: Callable[[], Player],
) -> None:
    player, other = make_player(), make_player()
    ids = a_history(player)
    other.new_game(code=CODE)
    response = player.get("/api/v1/me/export/")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith('attachment; filename="scorpion-export-')
    body = response.json()
    assert set(body) == {
        "format",
        "exported_at",
        "account",
        "stats",
        "achievements",
        "games",
        "social",
    }
    assert {item["code"] for item in body["achievements"]} >= {"first_win"}

    user = user_of(player)
    account = body["account"]
    assert (account["id"], account["email"]) == (user.pk, player.email)
    assert account["date_joined"] == user.date_joined.isoformat()
    assert (account["language"], account["deck"]) == ("", "classic")
    assert account["email_addresses"] == [
        {"email": player.email, "primary": True, "verified": False}
    ]

    assert body["stats"] == player.get("/api/v1/stats/").json()
    assert body["stats"]["won"] == 1

    games = {game["id"]: game for game in body["games"]}
    assert set(games) == set(ids.values())  # the other player's game is not there
    for game_id, game in games.items():
        stored = Game.objects.get(pk=game_id)
        events = list(stored.events.order_by("seq"))
        assert [e["seq"] for e in game["events"]] == list(range(1, stored.version + 1))
        assert [e["type"] for e in game["events"]] == [e.type for e in events]
        assert [e["payload"] for e in game["events"]] == [e.payload for e in events]
        assert all(e["created_at"] for e in game["events"])
        assert (game["mode"], game["status"], game["moves"]) == (
            stored.mode,
            stored.status,
            stored.moves,
        )
    assert games[ids["won"]]["code"] == CODE
    assert len(games[ids["won"]]["events"]) == len(LINE)
    resigned = Game.objects.get(pk=ids["resigned"])
    assert games[ids["resigned"]]["code"] == resigned.deal_code
    assert games[ids["resigned"]]["seed"] == resigned.seed


def test_export_hides_the_deal_of_a_game_still_on(player: Player) -> None:
    ids = a_history(player)
    body = player.get("/api/v1/me/export/").json()
    playing = next(game for game in body["games"] if game["id"] == ids["playing"])
    assert playing["status"] == "playing"
    assert playing["code"] is None
    assert playing["seed"] is None
    stored = Game.objects.get(pk=ids["playing"])
    text = json.dumps(body)
    assert stored.deal_code not in text
    assert str(stored.seed) not in text
    assert "state" not in playing


def test_export_needs_credentials() -> None:
    assert APIClient().get("/api/v1/me/export/").status_code == 401


# --- DELETE /api/v1/me/data/ ---


def test_deleting_my_data_keeps_the_account(make_player: Callable[[], Player]) -> None:
    player, other = make_player(), make_player()
    ids = a_history(player)
    other_game = other.new_game(code=CODE)
    other.command(other_game["id"], {"type": "resign"})
    user = user_of(player)
    events = GameEvent.objects.filter(game__owner=user).count()

    response = player.client.delete("/api/v1/me/data/")
    assert response.status_code == 200, response.content
    assert response.json() == {"deleted": {"games": 3, "events": events, "stats": 6, "social": 0}}
    assert rows_referring_to(user.pk, list(ids.values())) == {
        "account.EmailAddress.user": 1,
        "sessions": 1,
    }
    assert player.get("/api/v1/me/").status_code == 200
    assert player.get("/api/v1/games/").json()["count"] == 0
    assert player.get("/api/v1/stats/").json()["played"] == 0
    # The other player keeps everything.
    assert other.get("/api/v1/stats/").json()["resigned"] == 1
    assert Game.objects.filter(pk=other_game["id"]).exists()
    # And the account plays on.
    again = player.new_game(code=CODE)
    player.command(again["id"], {"type": "resign"})
    assert player.get("/api/v1/stats/").json()["resigned"] == 1


def test_deleting_no_data_answers_zeros(player: Player) -> None:
    response = player.client.delete("/api/v1/me/data/")
    assert response.json() == {"deleted": {"games": 0, "events": 0, "stats": 0, "social": 0}}


# --- DELETE /api/v1/me/ ---


def test_deleting_the_account_leaves_no_row_of_it(make_player: Callable[[], Player]) -> None:
    player, other = make_player(), make_player()
    ids = a_history(player)
    other.new_game(code=CODE)
    user = user_of(player)
    # A second device: a second session token of the same account.
    second = APIClient()
    login = second.post(
        "/_allauth/app/v1/auth/login",
        {"email": player.email, "password": "correct horse battery staple"},
        format="json",
    )
    assert login.status_code == 200
    second.credentials(HTTP_X_SESSION_TOKEN=login.json()["meta"]["session_token"])
    events = GameEvent.objects.filter(game__owner=user).count()
    snapshots = GameSnapshot.objects.filter(game__owner=user).count()  # every 32 events
    achievements = Achievement.objects.filter(user=user).count()
    assert achievements > 0
    assert rows_referring_to(user.pk, list(ids.values()))["sessions"] == 2

    response = player.client.delete("/api/v1/me/")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "deleted": {
            "account": 1,
            "email_addresses": 1,
            "sessions": 2,
            "games": 3,
            "events": events,
            "stats": 6,
            "social": 0,
            "other": snapshots + achievements,
        }
    }
    assert rows_referring_to(user.pk, list(ids.values())) == {}
    assert not User.objects.filter(pk=user.pk).exists()
    assert not EmailAddress.objects.filter(email=player.email).exists()
    # Every session token of the account is dead.
    assert player.get("/api/v1/me/").status_code == 401
    assert second.get("/api/v1/me/").status_code == 401
    # The other player is untouched.
    assert other.get("/api/v1/me/").status_code == 200
    assert other.get("/api/v1/games/").json()["count"] == 1
    # The e-mail address is free again.
    assert (
        APIClient()
        .post(
            "/_allauth/app/v1/auth/signup",
            {"email": player.email, "password": "another good password 9"},
            format="json",
        )
        .status_code
        == 200
    )


def test_closing_the_account_from_a_browser_session_ends_it() -> None:
    user = User.objects.create_user("web", "web@example.com", "pw")
    browser = APIClient()
    browser.force_login(user)
    assert browser.get("/api/v1/me/").status_code == 200
    response = browser.delete("/api/v1/me/")
    assert response.status_code == 200, response.content
    assert response.json()["deleted"]["sessions"] == 1
    assert response.cookies["sessionid"].value == ""  # the cookie is cleared
    assert Session.objects.count() == 0
    assert browser.get("/api/v1/me/").status_code in (401, 403)


def test_closing_the_account_is_all_or_nothing(player: Player) -> None:
    a_history(player)
    user = user_of(player)
    sessions = Session.objects.count()
    with (
        mock.patch.object(User, "delete", side_effect=RuntimeError("disk full")),
        pytest.raises(RuntimeError),
    ):
        player_services.account_delete(user=user)
    assert Session.objects.count() == sessions
    assert player.get("/api/v1/me/").status_code == 200
    assert Game.objects.filter(owner=user).count() == 3


def test_deleting_needs_credentials() -> None:
    assert APIClient().delete("/api/v1/me/").status_code == 401
    assert APIClient().delete("/api/v1/me/data/").status_code == 401
