"""The feed stream carries the social notices, through the real stream server and hub: a
challenge's creator hears when someone finishes it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.accounts.conftest import authorize, register
from tests.api.conftest import WON_DEAL, Player
from tests.streams.conftest import Reader, Streams
from tests.streams.test_feed import open_feed

FEED = "/api/v1/me/stream/"


def test_the_creator_hears_a_challenger_finish(
    streams: Streams, make_player: Callable[[], Player]
) -> None:
    ann, bob = make_player(), make_player()
    game = ann.new_game(code=WON_DEAL["code"])
    ann.command(game["id"], {"type": "resign"})
    challenge = ann.post("/api/v1/challenges/", {"game": game["id"]}).json()
    reader, _ = open_feed(streams, ann)
    attempt = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    for step in WON_DEAL["line"]:
        assert bob.command(attempt["id"], step).status_code == 200
    notice = reader.event()
    assert notice.event == "challenge_result"
    body = notice.json()
    assert body["challenge"] == challenge["id"]
    assert body["won"] is True
    assert body["moves"] == len(WON_DEAL["line"])
    assert body["is_me"] is False


def _challenge_finished_by_another(
    ann: Player, bob: Player, streams: Streams, access_token: str
) -> tuple[Reader, str]:
    """Ann's challenge, won by Bob while Ann's app follows her feed with ``access_token``;
    then a game of Ann's own, which ends. Answers the open feed and where it began."""
    game = ann.new_game(code=WON_DEAL["code"])
    ann.command(game["id"], {"type": "resign"})
    challenge = ann.post("/api/v1/challenges/", {"game": game["id"]}).json()
    response, reader = streams.connect(FEED, Authorization=f"Bearer {access_token}")
    assert response.status_code == 200
    reader.frame()  # retry
    cursor = reader.frame().id
    assert cursor is not None
    attempt = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    for step in WON_DEAL["line"]:
        assert bob.command(attempt["id"], step).status_code == 200
    own = ann.new_game()
    ann.command(own["id"], {"type": "resign"})
    return reader, cursor


def _events_until_finished(reader: Reader) -> list[str | None]:
    frames = reader.events_until(lambda frame: frame.event == "game_finished")
    return [frame.event for frame in frames]


@pytest.mark.parametrize(
    ("scope", "hears"), [("games:read", False), ("games:read social:read", True)]
)
def test_an_apps_token_hears_the_social_notices_only_with_the_social_read_scope(
    streams: Streams, make_player: Callable[[], Player], scope: str, hears: bool
) -> None:
    ann, bob = make_player(), make_player()
    token = authorize(ann, register(), scope).access_token
    reader, cursor = _challenge_finished_by_another(ann, bob, streams, token)

    live = _events_until_finished(reader)
    assert ("challenge_result" in live) is hears
    # The same from the backlog of a reconnection.
    _, again = streams.connect(FEED, Authorization=f"Bearer {token}", **{"Last-Event-ID": cursor})
    replayed = _events_until_finished(again)
    assert ("challenge_result" in replayed) is hears
    assert "game_created" in live
    assert "game_created" in replayed
