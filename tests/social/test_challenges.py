"""Challenges through the API: made from a finished game, opened and played by others, their
board shown only to a player whose own game of it is over."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from games.models import Game
from social.models import Challenge, ChallengeAttempt
from stats.models import PlayerStats
from tests.api.conftest import WON_DEAL, Player
from tests.api.test_guests import guest_browser
from tests.api.test_variant_migration import double_scorpion_3_2_game
from tests.social.conftest import FeedSpy, finished_game, named, play_out

pytestmark = pytest.mark.django_db


def make_challenge(player: Player, game: dict[str, Any]) -> dict[str, Any]:
    response = player.post("/api/v1/challenges/", {"game": game["id"]})
    assert response.status_code == 201, response.content
    return response.json()


def test_a_challenge_is_played_afresh_and_its_board_waits_for_the_players_result(
    two_players: tuple[Player, Player], feed: FeedSpy, django_capture_on_commit_callbacks: Any
) -> None:
    ann, bob = two_players
    ann_name = named(ann, "Ann")
    source = finished_game(ann, win=True)
    challenge = make_challenge(ann, source)
    assert challenge["is_mine"]
    assert challenge["finished"]
    assert [entry["player"] for entry in challenge["board"]] == [ann_name]
    assert challenge["board"][0]["won"] is True
    assert challenge["board"][0]["moves"] == source["moves"]

    before = bob.get(f"/api/v1/challenges/{challenge['id']}/").json()
    assert before["board"] is None
    assert before["game"] is None
    assert not before["finished"]
    assert before["creator"] == ann_name

    opened = bob.post(f"/api/v1/challenges/{challenge['id']}/play/")
    assert opened.status_code == 201, opened.content
    game = opened.json()
    assert game["mode"] == "seeded"
    assert game["known_deal"] is True  # chosen by a player who has seen the deal
    assert game["code"] is None
    assert game["seed"] is None
    assert game["pysol_number"] is None
    again = bob.post(f"/api/v1/challenges/{challenge['id']}/play/")
    assert again.status_code == 200
    assert again.json()["id"] == game["id"]

    playing = bob.get(f"/api/v1/challenges/{challenge['id']}/").json()
    assert playing["game"] == game["id"]
    assert playing["board"] is None

    with django_capture_on_commit_callbacks(execute=True):
        won = play_out(bob, game["id"], win=True)
    assert won["status"] == "won"
    assert won["code"] == WON_DEAL["code"]
    after = bob.get(f"/api/v1/challenges/{challenge['id']}/").json()
    assert after["finished"]
    assert len(after["board"]) == 2
    assert {entry["is_me"] for entry in after["board"]} == {True, False}
    assert all(entry["undos"] == 0 for entry in after["board"])

    [(channel, notice)] = feed.events("challenge_result")
    assert '"won":true' in notice.data
    assert challenge["id"] in notice.data
    assert channel.endswith(str(_user_id(ann)))


def _user_id(player: Player) -> int:
    return int(player.get("/api/v1/me/").json()["id"])


def test_a_challenge_game_sets_no_record(two_players: tuple[Player, Player]) -> None:
    ann, bob = two_players
    challenge = make_challenge(ann, finished_game(ann))
    game = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    play_out(bob, game["id"], win=True)
    stats = bob.get("/api/v1/stats/").json()
    assert stats["won"] == 1
    assert stats["best_time"] is None
    assert stats["clean_wins"] == 0
    assert PlayerStats.objects.filter(mode="seeded", won=1).count() == 1


def test_only_a_finished_game_whose_deal_is_shown_makes_a_challenge(
    player: Player, today: Any
) -> None:
    playing = player.new_game(code=WON_DEAL["code"])
    refused = player.post("/api/v1/challenges/", {"game": playing["id"]})
    assert refused.status_code == 409
    assert refused.json()["code"] == "not_challengeable"
    daily = player.new_game(mode="daily")
    player.command(daily["id"], {"type": "resign"})
    secret = player.post("/api/v1/challenges/", {"game": daily["id"]})
    assert secret.status_code == 409
    assert secret.json()["code"] == "not_challengeable"
    someone_elses = player.post(
        "/api/v1/challenges/", {"game": "00000000-0000-4000-8000-000000000000"}
    )
    assert someone_elses.status_code == 404


def test_a_closed_challenge_takes_no_new_player_but_keeps_its_board(
    make_player: Callable[[], Player],
) -> None:
    ann, bob, cat = make_player(), make_player(), make_player()
    challenge = make_challenge(ann, finished_game(ann))
    game = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    closed = ann.post(f"/api/v1/challenges/{challenge['id']}/close/")
    assert closed.status_code == 200
    assert closed.json()["closed_at"]
    refused = cat.post(f"/api/v1/challenges/{challenge['id']}/play/")
    assert refused.status_code == 409
    assert refused.json()["code"] == "challenge_closed"
    play_out(bob, game["id"], win=False)  # the attempt begun goes on
    assert len(bob.get(f"/api/v1/challenges/{challenge['id']}/").json()["board"]) == 2
    not_his = bob.post(f"/api/v1/challenges/{challenge['id']}/close/")
    assert not_his.status_code == 404


def test_the_creator_cannot_play_their_own_challenge(player: Player) -> None:
    challenge = make_challenge(player, finished_game(player))
    refused = player.post(f"/api/v1/challenges/{challenge['id']}/play/")
    assert refused.status_code == 409
    assert refused.json()["code"] == "own_challenge"


def test_a_player_blocked_by_the_creator_cannot_see_the_challenge(
    two_players: tuple[Player, Player], feed: FeedSpy, django_capture_on_commit_callbacks: Any
) -> None:
    ann, bob = two_players
    bob_name = named(bob)
    challenge = make_challenge(ann, finished_game(ann))
    game = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    assert ann.post("/api/v1/blocks/", {"player": bob_name}).status_code == 200
    assert bob.get(f"/api/v1/challenges/{challenge['id']}/").status_code == 404
    assert bob.post(f"/api/v1/challenges/{challenge['id']}/play/").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        play_out(bob, game["id"], win=True)
    assert feed.events("challenge_result") == []  # nothing of his reaches her either
    board = ann.get(f"/api/v1/challenges/{challenge['id']}/").json()["board"]
    assert len(board) == 1  # hers alone
    assert bob.get("/api/v1/challenges/").json()["played"] == []


def test_a_guest_plays_a_challenge_but_makes_none(player: Player) -> None:
    challenge = make_challenge(player, finished_game(player))
    browser, _ = guest_browser()
    opened = browser.post(f"/api/v1/challenges/{challenge['id']}/play/")
    assert opened.status_code == 201, opened.content
    browser.play_to_win(opened.json()["id"])
    assert len(browser.get(f"/api/v1/challenges/{challenge['id']}/").json()["board"]) == 2
    own = browser.post("/api/v1/games/", {"code": WON_DEAL["code"]}).json()
    browser.post(f"/api/v1/games/{own['id']}/commands/", {"type": "resign"})
    refused = browser.post("/api/v1/challenges/", {"game": own["id"]})
    assert refused.status_code == 403
    assert refused.json()["code"] == "permission_denied"


def test_challenges_are_limited_per_player(player: Player) -> None:
    game = finished_game(player)
    rates = {"challenge": "2/day"}
    with override_settings(REST_FRAMEWORK=_with_rates(rates)):
        assert player.post("/api/v1/challenges/", {"game": game["id"]}).status_code == 201
        assert player.post("/api/v1/challenges/", {"game": game["id"]}).status_code == 201
        refused = player.post("/api/v1/challenges/", {"game": game["id"]})
    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled"
    assert int(refused["Retry-After"]) >= 1
    assert refused["Content-Type"] == "application/problem+json"


def test_a_spent_limit_says_when_to_retry_once_in_one_sentence(player: Player) -> None:
    """The refusal names its wait itself: DRF's own "Expected available in N seconds." is not
    glued on after it (which read "retry in 86399 seconds Expected available in 86399
    seconds.")."""
    game = finished_game(player)
    with override_settings(REST_FRAMEWORK=_with_rates({"challenge": "1/day"})):
        assert player.post("/api/v1/challenges/", {"game": game["id"]}).status_code == 201
        refused = player.post("/api/v1/challenges/", {"game": game["id"]})
    wait = refused["Retry-After"]
    assert refused.json()["detail"] == (
        f"you have made as many challenges as is allowed for now; retry in {wait} seconds"
    )


def _with_rates(rates: dict[str, str]) -> dict[str, Any]:
    from django.conf import settings

    config = dict(settings.REST_FRAMEWORK)
    config["DEFAULT_THROTTLE_RATES"] = {**config["DEFAULT_THROTTLE_RATES"], **rates}
    return config


def test_an_unknown_or_guessed_challenge_is_not_found(player: Player) -> None:
    missing = player.get("/api/v1/challenges/6f1c2f1e-8d0a-4b8e-9a51-0c7a8f0f9b11/")
    assert missing.status_code == 404
    assert missing.json()["code"] == "not_found"


def test_the_lists_name_what_the_player_made_and_played(two_players: tuple[Player, Player]) -> None:
    ann, bob = two_players
    challenge = make_challenge(ann, finished_game(ann))
    bob.post(f"/api/v1/challenges/{challenge['id']}/play/")
    assert [c["id"] for c in ann.get("/api/v1/challenges/").json()["made"]] == [challenge["id"]]
    played = bob.get("/api/v1/challenges/").json()["played"]
    assert [c["id"] for c in played] == [challenge["id"]]
    assert played[0]["players"] == 1


def _set_active(player: Player, active: bool) -> None:
    user = User.objects.get(email=player.email)
    user.is_active = active  # what staff's "Active" box does (admin)
    user.save(update_fields=["is_active"])


def test_a_deactivated_players_challenges_and_invites_are_gone_until_reactivated(
    make_player: Callable[[], Player],
) -> None:
    ann, bob, cid = make_player(), make_player(), make_player()
    named(ann, "Ann")
    challenge = make_challenge(ann, finished_game(ann))
    attempt = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    play_out(bob, attempt["id"], win=False)
    invite = ann.post("/api/v1/invites/").json()
    path = f"/api/v1/challenges/{challenge['id']}/"

    _set_active(ann, False)
    # Nothing of hers is shown: her challenge, its place in Bob's list, her invite link.
    assert bob.get(path).status_code == 404
    assert cid.post(f"{path}play/").status_code == 404
    assert bob.get("/api/v1/challenges/").json()["played"] == []
    assert cid.post("/api/v1/friends/", {"invite": invite["id"]}).status_code == 404

    _set_active(ann, True)
    assert bob.get(path).status_code == 200
    assert [c["id"] for c in bob.get("/api/v1/challenges/").json()["played"]] == [challenge["id"]]
    assert cid.post("/api/v1/friends/", {"invite": invite["id"]}).status_code == 200


def test_a_result_on_a_deal_the_player_had_seen_is_on_no_one_elses_board_nor_any_notice(
    two_players: tuple[Player, Player], feed: FeedSpy, django_capture_on_commit_callbacks: Any
) -> None:
    ann, bob = two_players
    named(ann, "Ann")
    source = finished_game(ann)
    first, second = make_challenge(ann, source), make_challenge(ann, source)
    game = bob.post(f"/api/v1/challenges/{first['id']}/play/").json()
    with django_capture_on_commit_callbacks(execute=True):
        over = play_out(bob, game["id"], win=False)
    assert over["code"] == WON_DEAL["code"]  # the whole deal, shown once the game is over
    assert len(feed.events("challenge_result")) == 1

    # The same deal again, through Ann's second link: Bob plays it with the answers in hand.
    again = bob.post(f"/api/v1/challenges/{second['id']}/play/").json()
    with django_capture_on_commit_callbacks(execute=True):
        play_out(bob, again["id"], win=True)
    assert len(feed.events("challenge_result")) == 1  # Ann hears nothing of it
    board = ann.get(f"/api/v1/challenges/{second['id']}/").json()["board"]
    assert [entry["is_me"] for entry in board] == [True]
    # Bob still sees his own game there, as he played it.
    mine = bob.get(f"/api/v1/challenges/{second['id']}/").json()["board"]
    assert [entry["is_me"] for entry in mine] == [True, False]
    [attempt] = bob.get("/api/v1/me/export/").json()["social"]["challenge_attempts"][1:]
    assert attempt["deal_seen"] is True


def test_a_challenge_is_made_from_a_first_sight_of_its_deal_only(player: Player) -> None:
    finished_game(player)
    replay = finished_game(player)  # the same deal again: its result was no race
    refused = player.post("/api/v1/challenges/", {"game": replay["id"]})
    assert refused.status_code == 409
    assert refused.json()["code"] == "not_challengeable"


def test_a_challenge_is_made_from_a_challenges_game_played_blind(
    two_players: tuple[Player, Player],
) -> None:
    ann, bob = two_players
    challenge = make_challenge(ann, finished_game(ann))
    game = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    play_out(bob, game["id"], win=True)
    make_challenge(bob, game)  # passed on: Bob had never seen the deal before it


def test_opening_a_second_challenge_of_a_deal_while_playing_the_first_is_no_race(
    two_players: tuple[Player, Player],
) -> None:
    ann, bob = two_players
    source = finished_game(ann)
    first, second = make_challenge(ann, source), make_challenge(ann, source)
    playing = bob.post(f"/api/v1/challenges/{first['id']}/play/").json()
    again = bob.post(f"/api/v1/challenges/{second['id']}/play/").json()
    # Opening the second abandoned the first, which then shows its deal whole.
    assert bob.get(f"/api/v1/games/{playing['id']}/").json()["code"] == WON_DEAL["code"]
    play_out(bob, again["id"], win=True)
    board = ann.get(f"/api/v1/challenges/{second['id']}/").json()["board"]
    assert [entry["is_me"] for entry in board] == [True]


def test_a_game_of_a_variant_no_longer_offered_makes_no_challenge(
    two_players: tuple[Player, Player],
) -> None:
    # A challenge deals its players new games; Double Scorpion 3.2 is kept only for the games
    # begun in it, so a finished one of them challenges nobody (docs/rules.md).
    ann, _ = two_players
    game = double_scorpion_3_2_game(User.objects.get(email=ann.email), seed=7)
    assert ann.command(str(game.pk), {"type": "resign"}).status_code == 200
    refused = ann.post("/api/v1/challenges/", {"game": str(game.pk)})
    assert refused.status_code == 409, refused.content
    assert refused.json()["code"] == "not_challengeable"
    assert "Double Scorpion 3.2" in refused.json()["detail"]
    assert not Challenge.objects.exists()


def test_a_challenge_made_before_its_variant_was_kept_begins_no_new_game_of_it(
    two_players: tuple[Player, Player],
) -> None:
    ann, bob = two_players
    source = double_scorpion_3_2_game(User.objects.get(email=ann.email), seed=7)
    assert ann.command(str(source.pk), {"type": "resign"}).status_code == 200
    challenge = Challenge.objects.create(
        creator=source.owner,
        source_game=source,
        variant=source.variant,
        deal_code=source.deal_code,
        seed=source.seed,
    )
    refused = bob.post(f"/api/v1/challenges/{challenge.pk}/play/")
    assert refused.status_code == 400, refused.content
    assert refused.json()["code"] == "variant_not_offered"
    assert not Game.objects.filter(owner__email=bob.email).exists()
    assert not ChallengeAttempt.objects.exists()
