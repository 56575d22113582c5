"""``GET /api/v1/me/stream/``: the player's feed across games, for a lobby on another device."""

from __future__ import annotations

from collections.abc import Callable

from django.utils import timezone

from games.models import DailyDeal
from tests.api.conftest import WON_DEAL, Player
from tests.api.test_games import certified
from tests.streams.conftest import Reader, Streams

FEED = "/api/v1/me/stream/"


def open_feed(streams: Streams, player: Player, **headers: str) -> tuple[Reader, str]:
    response, reader = streams.connect(FEED, player.token, **headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert reader.frame().retry is not None
    cursor = reader.frame().id  # where a reconnection resumes
    assert cursor is not None
    return reader, cursor


def test_the_feed_tells_of_games_created_and_finished(streams: Streams, player: Player) -> None:
    reader, cursor = open_feed(streams, player)
    created = player.new_game()
    frame = reader.event()
    assert frame.event == "game_created"
    assert frame.json() == created
    assert int(frame.id or 0) > int(cursor)
    # A restart leaves the game behind: its end (abandoned) and the new game are both told.
    restarted = player.post(f"/api/v1/games/{created['id']}/restart/").json()
    new, left = reader.event(), reader.event()
    # In the order of their ids (a client that resumes from the last id misses neither).
    assert (new.event, left.event) == ("game_created", "game_finished")
    assert int(left.id or 0) > int(new.id or 0)
    assert new.json()["id"] == restarted["id"]
    assert left.json()["id"] == created["id"]
    assert left.json()["status"] == "abandoned"

    resigned = player.command(restarted["id"], {"type": "resign"}).json()
    frame = reader.event()
    assert frame.event == "game_finished"
    assert frame.json()["id"] == restarted["id"]
    assert frame.json()["status"] == "resigned"
    assert frame.json()["columns"] == resigned["columns"]


def test_a_won_daily_game_brings_the_days_result(streams: Streams, player: Player) -> None:
    today = timezone.now().date()
    DailyDeal.objects.create(date=today, candidate=0, **certified(WON_DEAL, 42))
    reader, _ = open_feed(streams, player)
    game = player.new_game(mode="daily")
    assert reader.event().event == "game_created"
    for step in WON_DEAL["line"]:
        assert player.command(game["id"], step).status_code == 200
    finished, result = reader.event(), reader.event()
    assert (finished.event, result.event) == ("game_finished", "daily_result")
    assert finished.json()["status"] == "won"
    assert int(result.id or 0) == int(finished.id or 0) + 1
    body = result.json()
    assert body == {
        "date": today.isoformat(),
        "game": game["id"],
        "status": "won",
        "moves": len(WON_DEAL["line"]),
        "elapsed_seconds": body["elapsed_seconds"],
        "solved": True,
        "attempts": 1,
    }
    assert player.get("/api/v1/daily/").json()["solved"] is True


def test_a_reconnecting_feed_gets_what_it_missed_in_order(streams: Streams, player: Player) -> None:
    reader, cursor = open_feed(streams, player)
    first = player.new_game()
    assert reader.event().json()["id"] == first["id"]
    reader.response.close()
    # Meanwhile, on another device:
    second = player.new_game()
    player.command(first["id"], {"type": "resign"})
    third = player.new_game()
    _, resumed = streams.connect(FEED, player.token, **{"Last-Event-ID": cursor})
    frames = [resumed.event() for _ in range(4)]
    assert [(f.event, f.json()["id"]) for f in frames] == [
        ("game_created", first["id"]),
        ("game_created", second["id"]),
        ("game_finished", first["id"]),
        ("game_created", third["id"]),
    ]
    ids = [int(f.id or 0) for f in frames]
    assert ids == sorted(ids)


def test_too_much_missed_is_one_resync(streams: Streams, player: Player, settings: object) -> None:
    setattr(settings, "STREAM_MAX_REPLAY", 2)  # noqa: B010
    _, cursor = open_feed(streams, player)
    for _ in range(3):
        player.new_game()
    _, resumed = streams.connect(FEED, player.token, **{"Last-Event-ID": cursor})
    frame = resumed.event()
    assert (frame.event, frame.json()) == ("resync", {})


def test_the_feed_is_the_players_own(streams: Streams, make_player: Callable[[], Player]) -> None:
    me, someone = make_player(), make_player()
    reader, _ = open_feed(streams, me)
    someone.new_game()
    mine = me.new_game()
    frame = reader.event()
    assert frame.json()["id"] == mine["id"]
