"""The feed stream carries the social notices, through the real stream server and hub: a
challenge's creator hears when someone finishes it."""

from __future__ import annotations

from collections.abc import Callable

from tests.api.conftest import WON_DEAL, Player
from tests.streams.conftest import Streams
from tests.streams.test_feed import open_feed


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
