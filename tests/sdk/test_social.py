"""The SDK's and the terminal client's challenges and friends, against a live server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from scorpion_client import NotFound, Scorpion

from tests.sdk.conftest import PASSWORD, WON_DEAL, new_email
from tests.sdk.test_cli import Terminal, human, terminal

__all__ = ["terminal"]  # the terminal client's fixture, here too


def test_two_players_race_a_challenge_and_become_friends(
    make_client: Callable[..., Scorpion],
) -> None:
    ann, bob = make_client(), make_client()
    ann.me.set_display_name("AnnSdk")
    game = ann.games.create(code=WON_DEAL["code"])
    game.resign()
    challenge = ann.social.challenge(game.id)
    assert challenge["board"][0]["is_me"] is True

    assert bob.social.get_challenge(challenge["url"])["board"] is None
    played = bob.social.play_challenge(challenge["url"])
    assert played.code is None
    for step in WON_DEAL["line"]:
        bob.games.command(played.id, step)
    board = bob.social.get_challenge(challenge["id"])["board"]
    assert [entry["won"] for entry in board] == [True, False]
    assert [c["id"] for c in bob.social.challenges()["played"]] == [challenge["id"]]

    asked = bob.social.follow("AnnSdk")
    assert asked["status"] == "pending"
    assert ann.social.accept(asked["id"])["status"] == "accepted"
    assert [f["player"] for f in bob.social.friends()["friends"]] == [asked["player"]]
    ann.social.remove(asked["id"])
    with pytest.raises(NotFound):
        ann.social.remove(asked["id"])


def test_the_terminal_makes_plays_and_shows_a_challenge(terminal: Terminal, tmp_path: Path) -> None:
    assert terminal("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    status, out = terminal("play", "--code", WON_DEAL["code"], lines=["resign", "y"])
    status, out = terminal("games")
    row = next(line for line in out.splitlines() if "resigned" in line)
    game_id = row.replace("│", " ").split()[0][:8]  # its first characters, as the table shows
    status, out = terminal("challenge", "make", game_id)
    assert status == 0, out
    link = out.split("send this link to a friend: ")[1].split()[0]

    friend = Terminal(terminal.url, tmp_path / "friend" / "token")
    assert friend("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    status, out = friend("challenge", "show", link)
    assert "once your game of it is over" in out
    moves = [human(command) for command in WON_DEAL["line"]]
    status, out = friend("challenge", "play", link, lines=moves)
    assert status == 0, out
    assert "You won" in out
    assert "(you)" in out  # the board, once over
    status, out = friend("friends")
    assert status == 0, out


def test_the_terminal_blocks_by_the_number_a_player_with_no_name_is_listed_under(
    terminal: Terminal, make_client: Callable[..., Scorpion]
) -> None:
    """A request from a player who chose no name (shown masked, "B***#33e4") can be blocked
    from the terminal: its number, as for accept and remove. By name alone it could not be:
    a masked name finds no one."""
    assert terminal("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    status, out = terminal("friends", "invite")
    link = out.split("Send this link: ")[1].split()[0]
    bob = make_client()
    bob.social.accept_invite(link)
    status, out = terminal("friends")
    row = next(line for line in out.splitlines() if "friend" in line and "***#" in line)
    number, masked = row.replace("│", " ").split()[:2]
    status, out = terminal("friends", "block", number)
    assert status == 0, out
    assert f"Blocked: {masked}" in out
    assert bob.social.friends()["friends"] == []
