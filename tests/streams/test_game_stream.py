"""``GET /api/v1/games/{id}/stream/``: the log from a version on, then live, over SSE."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from games.broadcast import hub as hub_module
from games.models import Game
from tests.api.conftest import WON_DEAL, Player
from tests.api.test_games import hidden_cards, strings_in
from tests.streams.conftest import Frame, Streams

CODE = WON_DEAL["code"]
LINE = WON_DEAL["line"]


def path(game_id: str) -> str:
    return f"/api/v1/games/{game_id}/stream/"


def answer(player: Player, game_id: str, command: dict[str, Any]) -> dict[str, Any]:
    response = player.command(game_id, command)
    assert response.status_code == 200, response.content
    return response.json()  # type: ignore[no-any-return]


def same_answer(frame: Frame, body: dict[str, Any]) -> None:
    """The event carries the command's answer (the game's time differs by the microseconds
    between the publish and the answer)."""
    data = frame.json()
    assert data.pop("elapsed_seconds") == pytest.approx(body.pop("elapsed_seconds"), abs=1)
    assert data == body


def test_first_connect_gets_the_game_then_every_command_live(
    streams: Streams, player: Player
) -> None:
    game = player.new_game(code=CODE)
    response, reader = streams.connect(path(game["id"]), player.token)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-cache"
    first = reader.frame()
    assert first.retry == 2000
    resync = reader.event()
    assert (resync.event, resync.id) == ("resync", "0")
    assert resync.json() == player.get(f"/api/v1/games/{game['id']}/").json() | {
        "elapsed_seconds": None
    }

    for step in LINE[:3]:
        body = answer(player, game["id"], step)
        frame = reader.event()
        assert (frame.event, frame.id) == ("command", str(body["version"]))
        same_answer(frame, body)


def test_reconnect_with_last_event_id_replays_exactly_what_was_missed(
    streams: Streams, player: Player
) -> None:
    game = player.new_game(code=CODE)
    answers = [answer(player, game["id"], step) for step in LINE[:4]]
    answers.append(answer(player, game["id"], {"type": "undo"}))
    _, reader = streams.connect(path(game["id"]), player.token, **{"Last-Event-ID": "2"})
    replayed = [reader.event() for _ in range(3)]
    assert [f.id for f in replayed] == ["3", "4", "5"]
    assert all(f.event == "command" for f in replayed)
    log = player.get(f"/api/v1/games/{game['id']}/events/").json()["results"]
    assert [f.json()["event"] for f in replayed] == log[2:]
    for frame, body in zip(replayed, answers[2:], strict=True):
        data = frame.json()
        assert data["columns"] == body["columns"]
        assert data["status"] == body["status"]
        assert data["version"] == body["version"]
        assert (data["can_undo"], data["can_redo"]) == (body["can_undo"], body["can_redo"])
        assert data["updated_at"] == data["event"]["created_at"]
    # Then live, without a gap or a duplicate.
    live = answer(player, game["id"], {"type": "redo"})
    frame = reader.event()
    assert frame.id == "6"
    same_answer(frame, live)


def test_a_client_up_to_date_gets_only_what_comes_next(streams: Streams, player: Player) -> None:
    game = player.new_game(code=CODE)
    answer(player, game["id"], LINE[0])
    _, reader = streams.connect(path(game["id"]) + "?since=1", player.token)
    assert reader.frame().retry is not None
    assert reader.frame().id == "1"  # sets the client's last id; no event
    body = answer(player, game["id"], LINE[1])
    frame = reader.event()
    assert frame.id == "2"
    same_answer(frame, body)


def test_last_event_id_wins_over_since(streams: Streams, player: Player) -> None:
    game = player.new_game(code=CODE)
    for step in LINE[:2]:
        answer(player, game["id"], step)
    _, reader = streams.connect(
        path(game["id"]) + "?since=0", player.token, **{"Last-Event-ID": "1"}
    )
    assert reader.event().id == "2"


def test_a_client_too_far_behind_gets_a_resync(
    streams: Streams, player: Player, settings: Any
) -> None:
    settings.STREAM_MAX_REPLAY = 2
    game = player.new_game(code=CODE)
    for step in LINE[:4]:
        answer(player, game["id"], step)
    _, reader = streams.connect(path(game["id"]), player.token, **{"Last-Event-ID": "1"})
    frame = reader.event()
    assert (frame.event, frame.id) == ("resync", "4")
    current = player.get(f"/api/v1/games/{game['id']}/").json()
    assert frame.json()["columns"] == current["columns"]
    # A version the game never had (another game's) is a resync too.
    _, ahead = streams.connect(path(game["id"]), player.token, **{"Last-Event-ID": "99"})
    assert ahead.event().event == "resync"


def test_a_finished_game_ends_its_stream(streams: Streams, player: Player) -> None:
    game = player.new_game(code=CODE)
    answer(player, game["id"], LINE[0])
    _, reader = streams.connect(path(game["id"]) + "?since=1", player.token)
    body = answer(player, game["id"], {"type": "resign"})
    frames = reader.rest()
    assert [(f.event, f.id) for f in frames] == [("command", "2"), ("end", None)]
    assert frames[0].json()["status"] == "resigned"
    assert frames[0].json()["code"] == body["code"] == CODE
    assert frames[1].json() == {"status": "resigned"}
    # Connecting to it again: what is missing, then the end.
    _, again = streams.connect(path(game["id"]), player.token, **{"Last-Event-ID": "1"})
    assert [(f.event, f.id) for f in again.rest()] == [("command", "2"), ("end", None)]


def test_heartbeats_are_events_the_page_sees_on_a_schedule_busy_or_idle(
    streams: Streams, player: Player, settings: Any
) -> None:
    # A named event, not a comment (EventSource never shows comments to the page): a client
    # can tell a quiet stream from a dead one. The first comes as the stream opens and says
    # how often the next ones come; they keep coming while commands arrive too.
    settings.STREAM_HEARTBEAT_SECONDS = 1
    game = player.new_game(code=CODE)
    _, reader = streams.connect(path(game["id"]), player.token)
    reader.frame()  # the retry
    assert reader.frame().event == "resync"
    assert reader.frame().id == "0"
    first = reader.frame()
    assert (first.event, first.id, first.json()) == ("heartbeat", None, {"interval_seconds": 1})
    beats = 0
    steps = iter(LINE)
    # A command every 0.4 s or so, never a second idle, until two heartbeats came between the
    # commands' events: a command does not put the next heartbeat off. Counted in frames, not
    # in seconds, so a slow machine only makes the loop longer.
    while beats < 2:
        answer(player, game["id"], next(steps))
        time.sleep(0.4)
        while (frame := reader.frame()).event == "heartbeat":  # up to the command's event
            assert frame.json() == {"interval_seconds": 1}
            beats += 1
        assert frame.event != "end"
    assert beats >= 2


def test_the_stream_ends_after_its_lifetime_and_resumes(
    streams: Streams, player: Player, settings: Any
) -> None:
    settings.STREAM_MAX_SECONDS = 1
    game = player.new_game(code=CODE)
    _, reader = streams.connect(path(game["id"]), player.token)
    assert [f.event for f in reader.rest()] == ["resync"]
    answer(player, game["id"], LINE[0])
    _, again = streams.connect(path(game["id"]), player.token, **{"Last-Event-ID": "0"})
    assert again.event().id == "1"


def test_a_lost_publish_is_repaired_from_the_log(
    streams: Streams, player: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = player.new_game(code=CODE)
    _, reader = streams.connect(path(game["id"]), player.token)
    reader.event()
    real = hub_module.get_hub()
    publish = real.publish

    def lose_version_2(channel: str, message: hub_module.Message) -> None:
        if not (message.event == "command" and message.id == "2"):
            publish(channel, message)

    monkeypatch.setattr(real, "publish", lose_version_2)
    answers = [answer(player, game["id"], step) for step in LINE[:3]]
    frames = [reader.event() for _ in range(3)]
    assert [f.id for f in frames] == ["1", "2", "3"]
    assert [f.json()["columns"] for f in frames] == [a["columns"] for a in answers]


# --- Who may stream ---


def test_anonymous_is_401(streams: Streams, player: Player) -> None:
    game = player.new_game()
    for target in (path(game["id"]), "/api/v1/me/stream/"):
        response, _ = streams.connect(target)
        assert response.status_code == 401
        response.read()
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["code"] == "not_authenticated"
    response, _ = streams.connect(path(game["id"]), "not-a-token")
    assert response.status_code == 401


def test_another_players_game_is_404_like_a_missing_one(
    streams: Streams, make_player: Callable[[], Player]
) -> None:
    owner, other = make_player(), make_player()
    game = owner.new_game()
    theirs, _ = streams.connect(path(game["id"]), other.token)
    missing, _ = streams.connect(path("00000000-0000-0000-0000-000000000000"), other.token)
    for response in (theirs, missing):
        assert response.status_code == 404
        response.read()
        assert response.json()["code"] == "not_found"


def test_too_many_open_streams_is_429_until_one_closes(
    streams: Streams, player: Player, settings: Any
) -> None:
    settings.STREAM_MAX_PER_USER = 2
    game = player.new_game()
    first, _ = streams.connect(path(game["id"]), player.token)
    second, _ = streams.connect("/api/v1/me/stream/", player.token)
    third, _ = streams.connect(path(game["id"]), player.token)
    assert (first.status_code, second.status_code, third.status_code) == (200, 200, 429)
    third.read()
    assert third.json()["code"] == "throttled"
    # Said in sentences: DRF appends its own ("Expected available in 15 seconds.").
    assert third.json()["detail"].startswith(
        "at most 2 streams may be open at once for one player: close one. Expected available in "
    )
    assert int(third.headers["Retry-After"]) >= 1
    first.close()

    def reopened() -> int:
        response, _ = streams.connect(path(game["id"]), player.token)
        status = response.status_code
        if status != 200:
            response.read()
        return status

    from tests.workers.harness import wait_until

    wait_until(lambda: reopened() == 200, 10, "the closed stream's slot was never freed")


def test_bad_since_is_a_validation_error(streams: Streams, player: Player) -> None:
    game = player.new_game()
    for query in ("since=abc", "since=-1", "since=1&since=2", "colour=red"):
        response, _ = streams.connect(path(game["id"]) + "?" + query, player.token)
        assert response.status_code == 400, query
        response.read()
        assert response.json()["code"] == "validation_error"


def test_under_wsgi_the_stream_paths_say_they_are_served_elsewhere(player: Player) -> None:
    """gunicorn cannot hold a stream: the proxy routes these paths to the stream server."""
    game = player.new_game()
    for target in (path(game["id"]), "/api/v1/me/stream/"):
        response = player.get(target)
        assert response.status_code == 503
        assert response.json()["code"] == "stream_unavailable"


# --- Hidden information ---


def test_no_stream_event_reveals_an_unseen_card(streams: Streams, player: Player) -> None:
    game = player.new_game()
    deal_code = Game.objects.get(pk=game["id"]).deal_code
    _, live = streams.connect(path(game["id"]), player.token)
    _, feed = streams.connect("/api/v1/me/stream/", player.token, **{"Last-Event-ID": "1"})
    frames = [live.event()]
    for command in ({"type": "deal"}, {"type": "undo"}, {"type": "redo"}, {"type": "undo"}):
        answer(player, game["id"], command)
        frames.append(live.event())
    after_deal = player.get(f"/api/v1/games/{game['id']}/states/1/").json()
    secret = hidden_cards(deal_code, after_deal)  # face down all along: never seen
    assert len(secret) == 12
    _, replay = streams.connect(path(game["id"]), player.token, **{"Last-Event-ID": "0"})
    frames += [replay.event() for _ in range(4)]
    frames.append(feed.event())  # the feed replays the game's creation
    assert frames[-1].event == "game_created"
    for frame in frames:
        leaked = strings_in(frame.json()) & secret
        assert not leaked, (frame.event, frame.id, leaked)
        assert deal_code not in (frame.data or "")
        assert frame.json().get("code") is None
    # The stock's cards, seen once dealt, are hidden again after the undo.
    stock = set(frames[1].json()["event"]["dealt"])
    assert not strings_in(frames[2].json() | {"event": None}) & stock


# --- Resources ---


@pytest.mark.services
@pytest.mark.usefixtures("fast_credential_checks")
def test_an_idle_stream_holds_no_database_connection(streams: Streams, player: Player) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("counts PostgreSQL's connections")
    game = player.new_game()
    readers = [streams.connect(path(game["id"]), player.token)[1] for _ in range(5)]
    for reader in readers:
        reader.event()

    def others() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> "
                "pg_backend_pid()",
                [settings.DATABASES["default"]["NAME"]],
            )
            row = cursor.fetchone()
        assert row is not None
        return int(row[0])

    from tests.workers.harness import wait_until

    wait_until(lambda: others() == 0, 10, lambda: f"{others()} other connections are open")
    # Nor after its credentials were checked again (every second here).
    time.sleep(1.5)
    wait_until(lambda: others() == 0, 10, lambda: f"{others()} other connections are open")


def test_the_stream_paths_are_not_served_by_the_test_client_as_streams() -> None:
    """The WSGI test client is what the schema fuzzing uses: no stream may hang it."""
    response = Client().get(path("00000000-0000-0000-0000-000000000000"))
    assert response.status_code == 401


def test_deleting_the_players_games_ends_their_streams_and_resyncs_the_feed(
    streams: Streams, player: Player
) -> None:
    # Another device shows the game when the player deletes their games on the account page:
    # its stream ends ("gone") at once rather than staying open on a game that refuses every
    # move, and the player's lists are told to read themselves again.
    game = player.new_game(code=CODE)
    answer(player, game["id"], LINE[0])
    _, reader = streams.connect(path(game["id"]), player.token, **{"Last-Event-ID": "1"})
    _, feed = streams.connect("/api/v1/me/stream/", player.token)
    reader.frame()  # the retry and the id
    feed.frame()

    assert player.client.delete("/api/v1/me/data/").status_code == 200

    end = reader.event()
    assert (end.event, end.json()) == ("end", {"status": "gone"})
    assert feed.events_until(lambda frame: frame.event == "resync")[-1].json() == {}
