"""Who may appear on the boards: every leaderboard and public result (stats.selectors) leaves
out deactivated accounts, and brings them back on reactivation (issue 25, finding 14), and a
result staff hid (docs/fair-play.md) until they restore it."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from uuid import UUID

import pytest
from django.contrib.auth.models import User

from games.services import leaderboard_result_hide, leaderboard_result_restore
from tests.api.conftest import Player
from tests.stats.test_api import daily_win_played

pytestmark = pytest.mark.django_db


def _set_active(player: Player, active: bool) -> None:
    # What staff do in the admin: untick (or tick again) "Active".
    user = User.objects.get(email=player.email)
    user.is_active = active
    user.save(update_fields=["is_active"])


def test_a_deactivated_player_leaves_the_daily_leaderboard_and_comes_back(
    make_player: Callable[[], Player], today: datetime.date
) -> None:
    cheater, honest = make_player(), make_player()
    daily_win_played(cheater, 10)
    daily_win_played(honest, 90)
    url = f"/api/v1/daily/{today.isoformat()}/leaderboard/"

    def board() -> tuple[int, list[tuple[int, float]], int | None]:
        body = honest.get(url).json()
        me = body["me"]["rank"] if body["me"] else None
        return body["count"], [(entry["rank"], entry["time"]) for entry in body["results"]], me

    assert board() == (2, [(1, 10.0), (2, 90.0)], 2)
    _set_active(cheater, False)
    assert board() == (1, [(1, 90.0)], 1)
    _set_active(cheater, True)
    assert board() == (2, [(1, 10.0), (2, 90.0)], 2)


def test_a_deactivated_player_leaves_the_daily_rank_of_game_results(
    make_player: Callable[[], Player], today: datetime.date
) -> None:
    cheater, honest = make_player(), make_player()
    daily_win_played(cheater, 10)
    game_id = daily_win_played(honest, 90)

    def result() -> tuple[int, int]:
        body = honest.get(f"/api/v1/games/{game_id}/result/").json()
        return body["daily_rank"], body["daily_count"]

    assert result() == (2, 2)
    _set_active(cheater, False)
    assert result() == (1, 1)
    _set_active(cheater, True)
    assert result() == (2, 2)


def test_a_hidden_result_leaves_the_others_daily_rank_and_comes_back(
    make_player: Callable[[], Player], today: datetime.date
) -> None:
    cheater, honest = make_player(), make_player()
    hidden_id = UUID(daily_win_played(cheater, 10))
    game_id = daily_win_played(honest, 90)
    staff = User.objects.create_user("mod", "mod@example.com", "pw", is_staff=True)

    def result() -> tuple[int, int]:
        body = honest.get(f"/api/v1/games/{game_id}/result/").json()
        return body["daily_rank"], body["daily_count"]

    assert result() == (2, 2)
    leaderboard_result_hide(game_id=hidden_id, by=staff.pk, reason="solver's line")
    assert result() == (1, 1)
    leaderboard_result_restore(game_id=hidden_id, by=staff.pk, reason="checked")
    assert result() == (2, 2)
