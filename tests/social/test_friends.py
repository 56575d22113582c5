"""Friends through the API: asked by name or invited, accepted or refused, removed, blocked;
the friends' daily board and the "a friend beat your time" notice."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from tests.api.conftest import Player
from tests.api.test_guests import guest_browser
from tests.social.conftest import LINE, FeedSpy, named
from tests.social.test_challenges import _with_rates
from tests.stats.conftest import Clock, clock

pytestmark = pytest.mark.django_db
__all__ = ["clock"]  # the statistics tests' clock, as a fixture here too


def befriend(asker: Player, other: Player) -> dict[str, Any]:
    name = named(other)
    asked = asker.post("/api/v1/friends/", {"player": name})
    assert asked.status_code == 200, asked.content
    accepted = other.post(f"/api/v1/friends/{asked.json()['id']}/accept/")
    assert accepted.status_code == 200, accepted.content
    return accepted.json()


def test_a_request_by_name_is_accepted_and_both_are_friends(
    two_players: tuple[Player, Player],
) -> None:
    ann, bob = two_players
    ann_name, bob_name = named(ann), named(bob)
    asked = ann.post("/api/v1/friends/", {"player": bob_name}).json()
    assert asked["status"] == "pending"
    assert asked["asked_by_me"] is True
    assert asked["player"] == bob_name
    assert [row["player"] for row in bob.get("/api/v1/friends/").json()["incoming"]] == [ann_name]
    assert ann.get("/api/v1/friends/").json()["outgoing"][0]["id"] == asked["id"]

    accepted = bob.post(f"/api/v1/friends/{asked['id']}/accept/").json()
    assert accepted["status"] == "accepted"
    assert [row["player"] for row in ann.get("/api/v1/friends/").json()["friends"]] == [bob_name]
    assert [row["player"] for row in bob.get("/api/v1/friends/").json()["friends"]] == [ann_name]


def test_asking_back_accepts_and_asking_twice_changes_nothing(
    two_players: tuple[Player, Player],
) -> None:
    ann, bob = two_players
    ann_name, bob_name = named(ann), named(bob)
    first = ann.post("/api/v1/friends/", {"player": bob_name}).json()
    assert ann.post("/api/v1/friends/", {"player": bob_name}).json()["id"] == first["id"]
    back = bob.post("/api/v1/friends/", {"player": ann_name}).json()
    assert back["id"] == first["id"]
    assert back["status"] == "accepted"


def test_a_name_is_found_with_or_without_its_tag_and_a_wrong_tag_finds_nobody(
    two_players: tuple[Player, Player],
) -> None:
    ann, bob = two_players
    shown = named(bob, "Bobby")
    assert ann.post("/api/v1/friends/", {"player": "bobby"}).status_code == 200
    wrong = ann.post(
        "/api/v1/friends/",
        {"player": "Bobby#0000" if not shown.endswith("#0000") else "Bobby#1111"},
    )
    assert wrong.status_code == 404
    assert ann.post("/api/v1/friends/", {"player": "Nobody"}).status_code == 404


def test_refusing_withdrawing_and_unfollowing_remove_the_row(
    make_player: Callable[[], Player],
) -> None:
    ann, bob, cat = make_player(), make_player(), make_player()
    asked = ann.post("/api/v1/friends/", {"player": named(bob)}).json()
    assert bob.client.delete(f"/api/v1/friends/{asked['id']}/").status_code == 204
    assert ann.get("/api/v1/friends/").json()["outgoing"] == []
    friendship = befriend(ann, cat)
    assert ann.client.delete(f"/api/v1/friends/{friendship['id']}/").status_code == 204
    assert cat.get("/api/v1/friends/").json()["friends"] == []
    assert bob.client.delete(f"/api/v1/friends/{friendship['id']}/").status_code == 404


def test_an_invite_makes_friends_once(make_player: Callable[[], Player]) -> None:
    ann, bob, cat = make_player(), make_player(), make_player()
    invite = ann.post("/api/v1/invites/")
    assert invite.status_code == 201, invite.content
    invite_id = invite.json()["id"]
    assert invite.json()["url"] == f"/friends/invite/{invite_id}/"
    assert [i["id"] for i in ann.get("/api/v1/friends/").json()["invites"]] == [invite_id]
    used = bob.post("/api/v1/friends/", {"invite": invite_id})
    assert used.status_code == 200
    assert used.json()["status"] == "accepted"
    assert bob.post("/api/v1/friends/", {"invite": invite_id}).status_code == 200  # again: same
    assert cat.post("/api/v1/friends/", {"invite": invite_id}).status_code == 404  # used
    assert (
        ann.post(
            "/api/v1/friends/", {"invite": ann.post("/api/v1/invites/").json()["id"]}
        ).status_code
        == 404
    )
    revoked = ann.post("/api/v1/invites/").json()["id"]
    assert ann.client.delete(f"/api/v1/invites/{revoked}/").status_code == 204
    assert cat.post("/api/v1/friends/", {"invite": revoked}).status_code == 404


def test_a_block_removes_the_friendship_and_hides_the_blocker(
    two_players: tuple[Player, Player],
) -> None:
    ann, bob = two_players
    friendship = befriend(ann, bob)
    ann_name = named(ann)
    block = bob.post("/api/v1/blocks/", {"friendship": friendship["id"]})
    assert block.status_code == 200, block.content
    assert ann.get("/api/v1/friends/").json()["friends"] == []
    # The blocked player cannot find or ask the blocker again, nor tell the block from a
    # missing name.
    assert ann.post("/api/v1/friends/", {"player": named(bob)}).status_code == 404
    assert bob.get("/api/v1/friends/").json()["blocked"][0]["player"] == ann_name
    assert bob.client.delete(f"/api/v1/blocks/{block.json()['id']}/").status_code == 204
    assert bob.get("/api/v1/friends/").json()["blocked"] == []


def test_a_guest_makes_no_friends() -> None:
    browser, _ = guest_browser()
    refused = browser.post("/api/v1/invites/")
    assert refused.status_code == 403
    assert refused.json()["code"] == "permission_denied"


def test_friend_requests_are_limited_per_player(make_player: Callable[[], Player]) -> None:
    ann = make_player()
    others = [named(make_player()) for _ in range(3)]
    with override_settings(REST_FRAMEWORK=_with_rates({"follow": "2/day"})):
        statuses = [ann.post("/api/v1/friends/", {"player": name}).status_code for name in others]
    assert statuses == [200, 200, 429]


def _win_daily(who: Player, clock: Clock, seconds: float) -> None:
    game = who.new_game(mode="daily")
    for index, step in enumerate(LINE):
        if index == len(LINE) - 1:
            clock.advance(seconds=seconds)
        assert who.command(game["id"], step).status_code == 200


def test_the_friends_board_ranks_the_player_and_friends_and_a_faster_friend_is_told(
    make_player: Callable[[], Player],
    clock: Clock,
    today: Any,
    feed: FeedSpy,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ann, bob, stranger = make_player(), make_player(), make_player()
    befriend(ann, bob)
    ann_name = named(ann)
    with django_capture_on_commit_callbacks(execute=True):
        _win_daily(bob, clock, 300)
        _win_daily(stranger, clock, 10)  # faster, but no friend of theirs
        _win_daily(ann, clock, 100)
    board = ann.get(f"/api/v1/daily/{today.isoformat()}/leaderboard/friends/").json()
    assert board["count"] == 2
    assert [(row["rank"], row["is_me"]) for row in board["results"]] == [(1, True), (2, False)]
    assert board["results"][0]["time"] == pytest.approx(100, abs=1)
    bad = ann.get(f"/api/v1/daily/{today.isoformat()}/leaderboard/friends/?page=2")
    assert bad.status_code == 400

    [(channel, notice)] = feed.events("friend_beat_time")
    assert channel.endswith(str(bob.get("/api/v1/me/").json()["id"]))
    body = json.loads(notice.data)
    assert body["friend"] == ann_name
    assert body["time"] < body["your_time"]


def test_a_blocked_friend_is_never_told(
    two_players: tuple[Player, Player],
    clock: Clock,
    today: Any,
    feed: FeedSpy,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ann, bob = two_players
    friendship = befriend(ann, bob)
    ann.post("/api/v1/blocks/", {"friendship": friendship["id"]})
    with django_capture_on_commit_callbacks(execute=True):
        _win_daily(bob, clock, 300)
        _win_daily(ann, clock, 100)
    assert feed.events("friend_beat_time") == []
    assert ann.get(f"/api/v1/daily/{today.isoformat()}/leaderboard/friends/").json()["count"] == 1


def test_a_deactivated_players_friendships_and_requests_are_gone_until_reactivated(
    make_player: Callable[[], Player],
) -> None:
    ann, bob, cid = make_player(), make_player(), make_player()
    befriend(ann, cid)
    asked = ann.post("/api/v1/friends/", {"player": named(bob)}).json()
    ann_user = User.objects.get(email=ann.email)

    ann_user.is_active = False  # staff untick "Active" (a spammer, say)
    ann_user.save(update_fields=["is_active"])
    assert bob.get("/api/v1/friends/").json()["incoming"] == []
    assert cid.get("/api/v1/friends/").json()["friends"] == []
    assert bob.post(f"/api/v1/friends/{asked['id']}/accept/").status_code == 404
    # Still stored, and so still in Cid's own export.
    assert len(cid.get("/api/v1/me/export/").json()["social"]["friends"]) == 1

    ann_user.is_active = True
    ann_user.save(update_fields=["is_active"])
    assert [row["id"] for row in bob.get("/api/v1/friends/").json()["incoming"]] == [asked["id"]]
    assert len(cid.get("/api/v1/friends/").json()["friends"]) == 1
