"""Bots never rank (issue 25, finding 6): an app declares at registration whether a person plays
through it (a client) or it plays by itself (a bot); every game records the app behind it; a
bot's games never rank, are marked in the history, the admin and the staff dashboard; staff
change an app's kind, and its games follow."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client as BrowserClient
from rest_framework.test import APIClient

from accounts.models import AppPlayer
from games.models import Game
from tests.accounts.conftest import (
    App,
    authorize,
    bearer,
    browser_for,
    csrf_token,
    register,
)
from tests.api.conftest import Player, sign_up
from tests.stats.conftest import LINE
from tests.stats.test_api import play_to_win

pytestmark = pytest.mark.django_db


def play_daily(api: APIClient) -> dict[str, Any]:
    """Start today's daily as ``api`` and win it; the game as the last command answered."""
    game = api.post("/api/v1/games/", {"mode": "daily"}, format="json")
    assert game.status_code == 201, game.content
    answer = None
    for step in LINE:
        answer = api.post(f"/api/v1/games/{game.json()['id']}/commands/", step, format="json")
        assert answer.status_code == 200, answer.content
    assert answer is not None
    return answer.json()  # type: ignore[no-any-return]


def board(player: Player, day: datetime.date) -> int:
    return int(player.get(f"/api/v1/daily/{day.isoformat()}/leaderboard/").json()["count"])


def staff_browser() -> BrowserClient:
    staff = User.objects.create_superuser("staff", "staff@example.com", "pw")
    browser = BrowserClient()
    browser.force_login(staff)
    return browser


def test_registration_asks_who_plays_and_the_app_page_says_it(player: Player) -> None:
    browser = browser_for(player)
    fields = {"name": "Solver", "kind": "public", "csrfmiddlewaretoken": csrf_token(browser)}
    unanswered = browser.post("/developers/apps/new/", fields)
    assert unanswered.status_code == 200
    assert "app_kind" in unanswered.context["form"].errors
    page = browser.post("/developers/apps/new/", {**fields, "app_kind": "bot"})
    assert page.status_code == 201
    client = page.context["app"]
    assert AppPlayer.objects.get(client=client).kind == "bot"
    assert "its games never rank" in browser.get(f"/developers/apps/{client.pk}/").content.decode()


def test_a_bots_daily_win_never_ranks_and_is_marked_in_the_history(today: datetime.date) -> None:
    person, botted = sign_up("person@example.com"), sign_up("botted@example.com")
    bot = register(name="Solver 9000", kind="bot")
    won = play_daily(bearer(authorize(botted, bot, "games:play").access_token))
    assert (won["status"], won["ranked"]) == ("won", True)
    assert won["played_by_app"] == {"id": bot.client_id, "name": "Solver 9000", "kind": "bot"}
    assert board(person, today) == 0

    # The player's own history says so, in the list and in the game.
    listed = botted.get("/api/v1/games/").json()["results"][0]
    assert listed["played_by_app"]["kind"] == "bot"
    assert botted.get(f"/api/v1/games/{won['id']}/").json()["played_by_app"]["kind"] == "bot"

    # A person's win ranks, through a client app or their own session.
    client = register(name="Pretty Cards", kind="client")
    via_client = play_daily(bearer(authorize(person, client, "games:play").access_token))
    assert via_client["played_by_app"]["kind"] == "client"
    assert board(person, today) == 1
    first_party = sign_up("own@example.com")
    game = first_party.new_game(mode="daily")
    assert game["played_by_app"] is None
    play_to_win(first_party, game["id"])
    assert board(person, today) == 2


def test_a_bot_playing_a_game_the_person_started_marks_it(today: datetime.date) -> None:
    player = sign_up("helped@example.com")
    game = player.new_game(mode="daily")
    assert game["played_by_app"] is None
    bot = register(name="Helper", kind="bot")
    api = bearer(authorize(player, bot, "games:play").access_token)
    first = api.post(f"/api/v1/games/{game['id']}/commands/", LINE[0], format="json")
    assert first.json()["played_by_app"]["kind"] == "bot"
    for step in LINE[1:]:
        assert player.command(game["id"], step).status_code == 200
    assert Game.objects.get(pk=game["id"]).status == "won"
    assert board(player, today) == 0


def test_staff_mark_an_app_a_bot_and_its_games_leave_the_boards(today: datetime.date) -> None:
    player = sign_up("sly@example.com")
    app = register(name="Honest Client", kind="client")
    play_daily(bearer(authorize(player, app, "games:play").access_token))
    assert board(player, today) == 1

    staff = staff_browser()
    changelist = "/admin/allauth_idp_oidc/client/"

    def mark(action: str) -> None:
        response = staff.post(changelist, {"action": action, "_selected_action": [app.client_id]})
        assert response.status_code == 302

    mark("mark_bot")
    assert board(player, today) == 0
    assert "bot" in staff.get(changelist).content.decode()
    mark("mark_client")
    assert board(player, today) == 1


def test_a_deleted_bot_app_leaves_its_games_marked(today: datetime.date) -> None:
    player = sign_up("gone@example.com")
    bot = register(name="Gone Bot", kind="bot")
    won = play_daily(bearer(authorize(player, bot, "games:play").access_token))
    bot.client.delete()
    assert player.get(f"/api/v1/games/{won['id']}/").json()["played_by_app"] == {
        "id": None,
        "name": None,
        "kind": "bot",
    }
    assert board(player, today) == 0


def test_the_staff_dashboard_and_admin_show_bots_games(today: datetime.date) -> None:
    player = sign_up("counted@example.com")
    bot = register(name="Counted Bot", kind="bot")
    won = play_daily(bearer(authorize(player, bot, "games:play").access_token))
    staff = staff_browser()
    page = staff.get("/staff/dashboard/").content.decode()
    assert 'data-figure="bots-today">1<' in page
    games = staff.get("/admin/games/game/?app_kind__exact=bot").content.decode()
    assert won["id"] in games


def test_an_app_without_a_declaration_is_a_client(today: datetime.date) -> None:
    player = sign_up("old@example.com")
    app: App = register(name="Older App")
    AppPlayer.objects.filter(client=app.client).delete()  # registered before the question
    won = play_daily(bearer(authorize(player, app, "games:play").access_token))
    assert won["played_by_app"]["kind"] == "client"
    assert board(player, today) == 1


def test_a_personal_tokens_games_are_a_scripts_and_never_rank(today: datetime.date) -> None:
    """A personal access token is for the player's own scripts: a script that plays is a bot."""
    player, other = sign_up("scripted@example.com"), sign_up("looker@example.com")
    made = player.client.post(
        "/api/v1/me/tokens/", {"name": "my solver", "scopes": ["games:play"]}, format="json"
    )
    assert made.status_code == 201, made.content
    won = play_daily(bearer(made.json()["token"]))
    assert won["status"] == "won"
    assert won["played_by_app"]["kind"] == "bot"
    assert board(other, today) == 0
    # Counted in the player's own statistics all the same.
    stats = player.get("/api/v1/stats/").json()
    assert stats["modes"]["daily"]["won"] == 1, stats


def test_staff_mark_an_app_a_bot_and_its_games_achievements_go_with_them(
    today: datetime.date,
) -> None:
    """Achievements are stored (each keeps its date and game): re-marking an app's games
    rebuilds its players' achievements, so a client found to be a bot keeps none that its
    games earned, and a mistake undone gives them back."""
    player = sign_up("medals@example.com")
    app = register(name="Medal Client", kind="client")
    won = play_daily(bearer(authorize(player, app, "games:play").access_token))

    def earned() -> set[str]:
        listed = player.get("/api/v1/achievements/").json()["achievements"]
        return {item["code"] for item in listed if item["earned"]}

    assert earned() == {"first_win", "no_undo_win", "win_scorpion"}
    staff = staff_browser()
    changelist = "/admin/allauth_idp_oidc/client/"
    for action, codes in (("mark_bot", set()), ("mark_client", earned())):
        response = staff.post(changelist, {"action": action, "_selected_action": [app.client_id]})
        assert response.status_code == 302
        assert earned() == codes, action
    day = player.get(f"/api/v1/calendar/{today:%Y-%m}/").json()["days"][today.day - 1]
    assert (day["won_on_the_day"], day["game"]) == (True, won["id"])
