"""The staff's daily leaderboard: the players' board with each rank linked to the account, the
game and its replay, searchable by display name without losing the ranks."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Profile
from games.models import Game
from tests.admin.conftest import TODAY, WON, Clock, daily_deal, make_user, won_game

pytestmark = pytest.mark.django_db

URL = reverse("staff:leaderboard")


def _winner(email: str, name: str, seconds: int) -> tuple[User, Game]:
    player = make_user(email)
    Profile.objects.update_or_create(user=player, defaults={"display_name": name})
    game = won_game(player, WON[1], mode="daily")
    started = game.finished_at - datetime.timedelta(seconds=seconds)  # type: ignore[operator]
    Game.objects.filter(pk=game.pk).update(started_at=started)
    return player, game


@pytest.fixture
def board(clock: Clock) -> dict[str, tuple[User, Game]]:
    daily_deal(TODAY, WON[1], seed=1)
    return {
        "fast": _winner("fast@example.com", "Speedy Ann", 60),
        "middle": _winner("middle@example.com", "Bob Middle", 120),
        "slow": _winner("slow@example.com", "Carol Slow", 300),
    }


def _ranks(response: object) -> list[tuple[int, str]]:
    rows = response.context["board"].rows  # type: ignore[attr-defined]
    return [(row.rank, row.email) for row in rows]


def test_the_board_links_each_rank_to_the_account_the_game_and_the_replay(
    admin_client: Client, board: dict[str, tuple[User, Game]]
) -> None:
    response = admin_client.get(URL, {"day": TODAY.isoformat()})
    assert response.status_code == 200
    assert _ranks(response) == [
        (1, "fast@example.com"),
        (2, "middle@example.com"),
        (3, "slow@example.com"),
    ]
    body = response.content.decode()
    for player, game in board.values():
        assert reverse("admin:auth_user_change", args=[player.pk]) in body
        assert reverse("admin:games_game_change", args=[game.pk]) in body
        assert reverse("staff:replay", args=[game.pk]) in body
    assert "Speedy Ann" in body


def test_a_search_by_display_name_keeps_the_rank_on_the_whole_board(
    admin_client: Client, board: dict[str, tuple[User, Game]]
) -> None:
    response = admin_client.get(URL, {"day": TODAY.isoformat(), "q": "carol"})
    assert _ranks(response) == [(3, "slow@example.com")]
    by_email = admin_client.get(URL, {"day": TODAY.isoformat(), "q": "middle@"})
    assert _ranks(by_email) == [(2, "middle@example.com")]
    nobody = admin_client.get(URL, {"day": TODAY.isoformat(), "q": "nobody"})
    assert _ranks(nobody) == []


def test_another_day_has_its_own_board(
    admin_client: Client, board: dict[str, tuple[User, Game]]
) -> None:
    yesterday = TODAY - datetime.timedelta(days=1)
    assert _ranks(admin_client.get(URL, {"day": yesterday.isoformat()})) == []
    assert len(_ranks(admin_client.get(URL, {"day": "not a day"}))) == 3  # today's


def test_the_board_is_for_staff_only(player_client: Client, client: Client) -> None:
    for outsider in (player_client, client):
        response = outsider.get(URL)
        assert response.status_code == 302
        assert "/login/" in response["Location"]


@pytest.mark.usefixtures("steady_session_snapshots")
def test_a_page_costs_the_same_queries_however_many_won(
    admin_client: Client, board: dict[str, tuple[User, Game]]
) -> None:
    def queries(params: dict[str, str]) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert admin_client.get(URL, params).status_code == 200
        return len(captured)

    queries({"day": TODAY.isoformat()})  # the staff's session cached (its first read)
    three = queries({"day": TODAY.isoformat()}), queries({"day": TODAY.isoformat(), "q": "a"})
    _winner("fourth@example.com", "Dan Fourth", 400)
    _winner("fifth@example.com", "Eve Fifth", 500)
    five = queries({"day": TODAY.isoformat()}), queries({"day": TODAY.isoformat(), "q": "a"})
    assert five == three
