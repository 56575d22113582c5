"""A feed that reconnects gets the social notices it missed (games.broadcast.payloads'
feed_backlog with social's source), each with the id it had live, so a stream that read its
backlog while the notice was published sends it once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accounts.scopes import FEED_EVENT_SCOPES, SOCIAL_READ
from games.broadcast.hub import Message
from games.broadcast.payloads import feed_backlog, feed_now
from social.services.notices import CHALLENGE_RESULT, FRIEND_BEAT_TIME
from tests.api.conftest import Player
from tests.social.conftest import FeedSpy, finished_game, play_out
from tests.social.test_challenges import _user_id, make_challenge
from tests.social.test_friends import _win_daily, befriend
from tests.stats.conftest import Clock, clock

pytestmark = pytest.mark.django_db
__all__ = ["clock"]


def replayed(player: Player, after: int, event: str) -> list[Message]:
    backlog = feed_backlog(owner_id=_user_id(player), after=after, max_replay=100)
    return [message for message in backlog.messages if message.event == event]


def test_a_reconnecting_creator_gets_the_challenge_result_missed_with_its_live_id(
    two_players: tuple[Player, Player], feed: FeedSpy, django_capture_on_commit_callbacks: Any
) -> None:
    ann, bob = two_players
    challenge = make_challenge(ann, finished_game(ann))
    cursor = feed_now()  # ann's feed was cut here
    game = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    with django_capture_on_commit_callbacks(execute=True):
        play_out(bob, game["id"], win=True)

    [(_channel, live)] = feed.events("challenge_result")
    assert replayed(ann, cursor, "challenge_result") == [live]
    assert replayed(ann, int(live.id), "challenge_result") == []  # seen: not again
    assert replayed(bob, cursor, "challenge_result") == []  # only to the creator


def friends_win_in_turn(
    make_player: Callable[[], Player], clock: Clock, capture: Any, *, ann_first: bool
) -> tuple[Player, Player, int]:
    """Ann (100 s) and Bob (300 s), friends, win the day's daily, in the order asked; and the
    feed's cursor from before their wins."""
    ann, bob = make_player(), make_player()
    befriend(ann, bob)
    cursor = feed_now()
    wins = [(ann, 100), (bob, 300)] if ann_first else [(bob, 300), (ann, 100)]
    with capture(execute=True):
        for player, seconds in wins:
            _win_daily(player, clock, seconds)
    return ann, bob, cursor


def test_a_friends_faster_win_is_replayed_to_the_friend_it_beat(
    make_player: Callable[[], Player],
    clock: Clock,
    today: Any,
    feed: FeedSpy,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ann, bob, cursor = friends_win_in_turn(
        make_player, clock, django_capture_on_commit_callbacks, ann_first=False
    )
    [(_channel, live)] = feed.events("friend_beat_time")
    assert replayed(bob, cursor, "friend_beat_time") == [live]
    assert replayed(ann, cursor, "friend_beat_time") == []


def test_a_faster_win_before_the_friends_is_no_notice_live_or_replayed(
    make_player: Callable[[], Player],
    clock: Clock,
    today: Any,
    feed: FeedSpy,
    django_capture_on_commit_callbacks: Any,
) -> None:
    # Ann wins first: Bob had no time yet, so nothing of his was beaten.
    ann, bob, cursor = friends_win_in_turn(
        make_player, clock, django_capture_on_commit_callbacks, ann_first=True
    )
    assert feed.events("friend_beat_time") == []
    assert replayed(bob, cursor, "friend_beat_time") == []
    assert replayed(ann, cursor, "friend_beat_time") == []


def test_more_notices_than_can_be_replayed_is_a_resync_not_a_long_read(
    make_player: Callable[[], Player],
    feed: FeedSpy,
    django_capture_on_commit_callbacks: Any,
    django_assert_max_num_queries: Any,
) -> None:
    ann = make_player()
    challenge = make_challenge(ann, finished_game(ann))
    cursor = feed_now()
    for challenger in (make_player(), make_player(), make_player()):
        game = challenger.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
        with django_capture_on_commit_callbacks(execute=True):
            play_out(challenger, game["id"], win=False)
    ann_id = _user_id(ann)
    assert len(feed_backlog(owner_id=ann_id, after=cursor, max_replay=100).messages) == 3

    # From far back (a forged Last-Event-ID) with room for two: the candidates are counted in
    # one read each, never built one by one, and the answer is a resync.
    with django_assert_max_num_queries(4):
        backlog = feed_backlog(owner_id=ann_id, after=1, max_replay=2)
    assert [message.event for message in backlog.messages] == ["resync"]


def test_every_social_notice_needs_the_social_read_scope_of_an_apps_token() -> None:
    # accounts.scopes cannot import the social layer: the event names are said twice.
    assert FEED_EVENT_SCOPES == {CHALLENGE_RESULT: SOCIAL_READ, FRIEND_BEAT_TIME: SOCIAL_READ}


def test_a_backlog_for_a_token_without_the_social_scope_leaves_the_notices_out(
    two_players: tuple[Player, Player], feed: FeedSpy, django_capture_on_commit_callbacks: Any
) -> None:
    ann, bob = two_players
    challenge = make_challenge(ann, finished_game(ann))
    cursor = feed_now()
    game = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    with django_capture_on_commit_callbacks(execute=True):
        play_out(bob, game["id"], win=True)
    backlog = feed_backlog(
        owner_id=_user_id(ann), after=cursor, max_replay=100, withheld=frozenset(FEED_EVENT_SCOPES)
    )
    assert backlog.messages == []
