"""A player's social rows in their data: exported, deleted with their data (their blocks kept),
gone with their account; and an app's token reaches them only with the social scopes."""

from __future__ import annotations

import pytest

from social.models import Block, Challenge, ChallengeAttempt, Friendship, Invite
from tests.accounts.conftest import App, app, authorize, bearer
from tests.api.conftest import Player
from tests.social.conftest import LINE, finished_game, named
from tests.social.test_friends import befriend

pytestmark = pytest.mark.django_db
__all__ = ["app"]  # the accounts tests' third-party app, as a fixture here too


def test_the_export_holds_the_social_rows_and_the_data_deletion_removes_them(
    two_players: tuple[Player, Player],
) -> None:
    ann, bob = two_players
    friendship = befriend(ann, bob)
    challenge = ann.post("/api/v1/challenges/", {"game": finished_game(ann)["id"]}).json()
    bob.post(f"/api/v1/challenges/{challenge['id']}/play/")
    ann.post("/api/v1/invites/")
    ann.post("/api/v1/blocks/", {"player": named(bob)})  # ends the friendship too
    assert not Friendship.objects.filter(pk=friendship["id"]).exists()

    social = ann.get("/api/v1/me/export/").json()["social"]
    assert [c["id"] for c in social["challenges_made"]] == [challenge["id"]]
    assert len(social["invites"]) == 1
    assert len(social["blocked"]) == 1

    deleted = ann.client.delete("/api/v1/me/data/").json()["deleted"]
    assert deleted["social"] == 3  # the challenge, bob's attempt at it, the invite
    assert not Challenge.objects.exists()
    assert not ChallengeAttempt.objects.exists()
    assert not Invite.objects.exists()
    assert Block.objects.count() == 1  # a block protects the player: it stays
    assert bob.get("/api/v1/games/").json()["count"] == 1  # bob keeps his game
    assert bob.get(f"/api/v1/challenges/{challenge['id']}/").status_code == 404


def test_a_closed_account_takes_its_social_rows(two_players: tuple[Player, Player]) -> None:
    ann, bob = two_players
    befriend(ann, bob)
    ann.post("/api/v1/challenges/", {"game": finished_game(ann)["id"]})
    deleted = ann.client.delete("/api/v1/me/").json()["deleted"]
    assert deleted["social"] == 2  # the friendship and the challenge
    assert bob.get("/api/v1/friends/").json()["friends"] == []


def test_an_app_reads_friends_only_with_social_read_and_writes_with_social_write(
    player: Player, app: App
) -> None:
    reader = bearer(authorize(player, app, "social:read").access_token)
    assert reader.get("/api/v1/friends/").status_code == 200
    refused = reader.post("/api/v1/invites/", {}, format="json")
    assert refused.status_code == 403
    assert refused.json()["code"] == "insufficient_scope"
    games_only = bearer(authorize(player, app, "games:read stats:read").access_token)
    assert games_only.get("/api/v1/friends/").status_code == 403
    assert games_only.get("/api/v1/challenges/").status_code == 403
    writer = bearer(authorize(player, app, "social:write").access_token)
    assert writer.post("/api/v1/invites/", {}, format="json").status_code == 201


def test_a_bots_game_of_a_challenge_is_on_no_board(two_players: tuple[Player, Player]) -> None:
    from tests.accounts.conftest import register

    ann, bob = two_players
    challenge = ann.post("/api/v1/challenges/", {"game": finished_game(ann)["id"]}).json()
    bot = register(name="Racer", kind="bot")
    botted = bearer(authorize(bob, bot, "games:play social:read").access_token)
    game = botted.post(f"/api/v1/challenges/{challenge['id']}/play/", {}, format="json")
    assert game.status_code == 201, game.content
    assert game.json()["played_by_app"]["kind"] == "bot"
    for step in LINE:
        assert (
            botted.post(
                f"/api/v1/games/{game.json()['id']}/commands/", step, format="json"
            ).status_code
            == 200
        )
    seen = botted.get(f"/api/v1/challenges/{challenge['id']}/").json()
    assert seen["finished"] is True
    assert [entry["is_me"] for entry in seen["board"]] == [False]  # the creator's alone
    assert len(ann.get(f"/api/v1/challenges/{challenge['id']}/").json()["board"]) == 1


@pytest.mark.parametrize(
    ("scope", "reads"), [("social:write", False), ("social:write social:read", True)]
)
def test_an_app_that_only_writes_reads_no_board_in_the_answers_of_its_writes(
    two_players: tuple[Player, Player], app: App, scope: str, reads: bool
) -> None:
    ann, bob = two_players
    writer = bearer(authorize(ann, app, scope).access_token)
    made = writer.post("/api/v1/challenges/", {"game": finished_game(ann)["id"]}, format="json")
    assert made.status_code == 201
    challenge = made.json()
    game = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    for step in LINE:
        assert bob.command(game["id"], step).status_code == 200
    # Closing (again and again: it changes nothing after the first time) answers the
    # challenge: with the scope that reads boards, its board; without it, none.
    for _ in range(2):
        closed = writer.post(f"/api/v1/challenges/{challenge['id']}/close/", {}, format="json")
        assert closed.status_code == 200
        assert (closed.json()["board"] is not None) is reads
    assert (made.json()["board"] is not None) is reads
