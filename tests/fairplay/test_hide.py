"""Staff hide a ranked result from the leaderboard with a reason, and restore it: through the
staff page's forms, recorded in the audit log, shown to the player on their game and on the
day's board; only staff signed in to the site may, never an app's token."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from accounts.oauth.services import personal_token_create
from games.models import Game
from tests.api.conftest import Player
from tests.fairplay.conftest import BOT_GAPS

pytestmark = pytest.mark.django_db

REASON = "Moves five times faster than any person plays"


@pytest.fixture(autouse=True)
def _plain_static_storage(settings: Any) -> None:
    # The admin's templates use {% static %}; tests do not run collectstatic.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def staff_user() -> User:
    return User.objects.create_user(
        "mod", "mod@example.com", "pw", is_staff=True, is_superuser=True
    )


@pytest.fixture
def staff(staff_user: User) -> Client:
    browser = Client(enforce_csrf_checks=False)
    browser.force_login(staff_user)
    return browser


@pytest.fixture
def flagged(daily: Callable[..., Game], player: Player) -> Game:
    return daily(player, gaps=BOT_GAPS)


def board(player: Player, game: Game) -> dict[str, Any]:
    response = player.get(f"/api/v1/daily/{game.daily_date}/leaderboard/")
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def hide(browser: Client, game: Game, reason: str = REASON) -> Any:
    return browser.post(reverse("staff:result-hide", args=[game.pk]), {"reason": reason})


def test_the_fair_play_page_lists_a_flagged_result_with_its_replay(
    staff: Client, flagged: Game
) -> None:
    page = staff.get(reverse("staff:fair-play"))
    assert page.status_code == 200
    text = page.content.decode()
    assert reverse("staff:replay", args=[flagged.pk]) in text
    assert "median time between commands under" in text
    replay = staff.get(reverse("staff:replay", args=[flagged.pk])).content.decode()
    assert 'id="fair-play-signals"' in replay


def test_hiding_takes_the_result_off_the_board_and_tells_the_player_why(
    staff: Client, staff_user: User, flagged: Game, player: Player
) -> None:
    assert board(player, flagged)["me"]["rank"] == 1

    answer = hide(staff, flagged)

    assert answer.status_code == 302
    day = board(player, flagged)
    assert day["results"] == []
    assert day["count"] == 0
    assert day["me"] is None
    assert day["me_hidden"]["reason"] == REASON
    game = player.get(f"/api/v1/games/{flagged.pk}/").json()
    assert game["leaderboard_hidden"]["reason"] == REASON
    entry = LogEntry.objects.get(object_id=str(flagged.pk))
    assert entry.user_id == staff_user.pk
    assert entry.change_message == f"hid the result from the leaderboard: {REASON}"
    page = staff.get(reverse("staff:fair-play")).content.decode()
    assert f"{REASON}</p>" in page


def test_restoring_brings_the_result_back_and_is_logged(
    staff: Client, flagged: Game, player: Player
) -> None:
    hide(staff, flagged)

    answer = staff.post(
        reverse("staff:result-restore", args=[flagged.pk]), {"reason": "Checked the replay"}
    )

    assert answer.status_code == 302
    day = board(player, flagged)
    assert day["me"]["rank"] == 1
    assert day["me_hidden"] is None
    assert player.get(f"/api/v1/games/{flagged.pk}/").json()["leaderboard_hidden"] is None
    messages = list(
        LogEntry.objects.filter(object_id=str(flagged.pk))
        .order_by("pk")
        .values_list("change_message", flat=True)
    )
    assert messages == [
        f"hid the result from the leaderboard: {REASON}",
        "restored the result to the leaderboard: Checked the replay",
    ]


def test_a_reason_is_required(staff: Client, flagged: Game) -> None:
    hide(staff, flagged, reason="   ")
    flagged.refresh_from_db()
    assert flagged.leaderboard_hidden_at is None
    assert not LogEntry.objects.filter(object_id=str(flagged.pk)).exists()


def test_a_player_cannot_hide_a_result(flagged: Game, player: Player) -> None:
    browser = Client()
    browser.force_login(User.objects.get(email=player.email))
    answer = hide(browser, flagged)
    assert answer.status_code == 302
    assert "/login/" in answer["Location"]
    assert browser.get(reverse("staff:fair-play")).status_code == 302
    flagged.refresh_from_db()
    assert flagged.leaderboard_hidden_at is None


def test_a_staff_members_token_cannot_hide_a_result(staff_user: User, flagged: Game) -> None:
    _, value = personal_token_create(
        user=staff_user, name="script", scopes=["games:read", "stats:read"], days=None
    )
    answer = Client().post(
        reverse("staff:result-hide", args=[flagged.pk]),
        {"reason": REASON},
        headers={"Authorization": f"Bearer {value}"},
    )
    assert answer.status_code in (401, 403)
    flagged.refresh_from_db()
    assert flagged.leaderboard_hidden_at is None


def test_staff_forms_need_csrf(staff_user: User, flagged: Game) -> None:
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(staff_user)
    assert hide(browser, flagged).status_code == 403
    flagged.refresh_from_db()
    assert flagged.leaderboard_hidden_at is None
