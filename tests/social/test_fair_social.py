"""The friends' board and the "a friend beat your time" notice leave out what every board
leaves out (``stats.selectors.ranking_games``): a result staff hid, a deactivated account's;
and bring them back when staff restore the result or reactivate the account. The notice is
rebuilt from the games, so a feed reconnecting afterwards replays it only while it counts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User

from games import services as game_services
from games.broadcast.payloads import feed_now
from games.models import Game
from tests.api.conftest import Player
from tests.social.conftest import FeedSpy, play_out
from tests.social.test_challenges import _user_id
from tests.social.test_friends import _win_daily, befriend
from tests.social.test_notices_replay import replayed
from tests.stats.conftest import Clock, clock

pytestmark = pytest.mark.django_db
__all__ = ["clock"]


def _names_on_board(player: Player, day: Any) -> list[bool]:
    board = player.get(f"/api/v1/daily/{day.isoformat()}/leaderboard/friends/").json()
    return [row["is_me"] for row in board["results"]]


def test_a_hidden_or_deactivated_friends_win_leaves_the_board_and_the_replay_and_comes_back(
    make_player: Callable[[], Player],
    clock: Clock,
    today: Any,
    feed: FeedSpy,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ann, bob = make_player(), make_player()
    befriend(ann, bob)
    cursor = feed_now()
    with django_capture_on_commit_callbacks(execute=True):
        _win_daily(ann, clock, 300)
        _win_daily(bob, clock, 100)  # beats Ann's time
    assert _names_on_board(ann, today) == [False, True]
    assert len(replayed(ann, cursor, "friend_beat_time")) == 1

    win = Game.objects.get(owner_id=_user_id(bob), ranked=True)
    staff = User.objects.create_user("staff", "staff@example.com", is_staff=True)
    game_services.leaderboard_result_hide(game_id=win.pk, by=staff.pk, reason="solver line")
    assert _names_on_board(ann, today) == [True]
    assert replayed(ann, cursor, "friend_beat_time") == []
    game_services.leaderboard_result_restore(game_id=win.pk, by=staff.pk, reason="checked")
    assert len(replayed(ann, cursor, "friend_beat_time")) == 1

    user = User.objects.get(pk=_user_id(bob))
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert _names_on_board(ann, today) == [True]
    assert replayed(ann, cursor, "friend_beat_time") == []
    user.is_active = True
    user.save(update_fields=["is_active"])
    assert _names_on_board(ann, today) == [False, True]
    assert len(replayed(ann, cursor, "friend_beat_time")) == 1


def test_a_challenge_won_after_seeing_its_deal_in_another_game_begun_meanwhile_is_no_race(
    two_players: tuple[Player, Player],
    clock: Clock,
    today: Any,
    feed: FeedSpy,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ann, bob = two_players
    _win_daily(ann, clock, 100)
    source = Game.objects.get(owner_id=_user_id(ann), ranked=True)
    clock.advance(days=2)  # the day's deal is revealed: a challenge may be made from it
    made = ann.post("/api/v1/challenges/", {"game": str(source.pk)})
    assert made.status_code == 201, made.content
    challenge = made.json()
    attempt = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    # While it is in play, Bob plays that day's daily late (another kind of game: the
    # challenge's stays in play) and resigns it: its deal, the challenge's, is shown whole.
    late = bob.new_game(mode="daily", date=today.isoformat())
    over = bob.command(late["id"], {"type": "resign"}).json()
    assert over["code"] == source.deal_code
    with django_capture_on_commit_callbacks(execute=True):
        play_out(bob, attempt["id"], win=True)
    assert feed.events("challenge_result") == []
    board = ann.get(f"/api/v1/challenges/{challenge['id']}/").json()["board"]
    assert [entry["is_me"] for entry in board] == [True]
