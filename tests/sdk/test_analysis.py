"""``game.analysis()`` against the live server: ready, refused while the game is on, and
waiting out a "pending" answer while a worker computes it."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

import pytest
from scorpion_client import (
    Analysis,
    AsyncScorpion,
    ConflictError,
    Scorpion,
    ServiceUnavailable,
    cli,
)

from games.analysis import VARIANT_ANALYSIS_BUDGETS, VARIANT_INLINE_ANALYSIS_BUDGETS
from games.models import Game
from games.services import analysis as analysis_services
from games.services import workers as workers_services
from tests.sdk.conftest import (
    PASSWORD,
    WON_DEAL,
    DropFirstResponse,
    fast_async_transport,
    fast_transport,
    new_email,
)
from tests.sdk.test_cli import Terminal
from tests.sdk.test_games import play_line

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_won_game_is_analysed_with_a_winning_line(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    play_line(game, WON_DEAL["line"])

    analysis = game.analysis()

    assert isinstance(analysis, Analysis)
    assert analysis.ready
    assert (analysis.deal, analysis.outcome) == ("won", "won")
    assert analysis.line_version == 0
    assert analysis.line[0].command["type"] in ("move", "deal")
    assert len(analysis.line[-1].collected) == 4
    assert len(analysis.line[-1].columns) == 7


def test_a_lost_game_names_the_turning_point(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    play_line(game, WON_DEAL["line"][:3])
    game.resign()

    analysis = client.games.analysis(game.id)

    assert analysis.outcome == "ended_winnable"
    assert analysis.last_winnable_version == 4
    assert analysis.losing_event is None
    assert analysis.line


def test_a_game_still_on_is_a_conflict(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])

    with pytest.raises(ConflictError) as caught:
        game.analysis()

    assert caught.value.status == 409
    assert caught.value.code == "game_not_finished"


def test_a_pending_answer_is_asked_again_after_retry_after(
    client: Scorpion, monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    game.resign()
    # The first request finds a "live worker" and enqueues; by the second the worker is gone,
    # so the server computes the analysis itself.
    alive = iter([True])
    monkeypatch.setattr(workers_services, "worker_available", lambda _queue: next(alive, False))
    monkeypatch.setattr(analysis_services, "_analysis_enqueue", lambda game_id: True)

    analysis = game.analysis()

    assert analysis.ready
    assert sleeps == [2.0]


def test_waiting_is_bounded(
    client: Scorpion, monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    game.resign()
    monkeypatch.setattr(workers_services, "worker_available", lambda _queue: True)
    monkeypatch.setattr(analysis_services, "_analysis_enqueue", lambda game_id: True)

    analysis = game.analysis(wait=0)

    assert not analysis.ready
    assert analysis.status == "pending"
    assert analysis.retry_after == 2
    assert sleeps == []


def test_an_analysis_left_to_an_absent_worker_is_raised_at_once(
    client: Scorpion, monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    # A worker may be away for minutes: waiting out Retry-After (60 s) twice would only delay
    # the answer; the caller decides when to ask again.
    game = client.games.create(code=WON_DEAL["code"])
    game.resign()
    monkeypatch.setattr(workers_services, "broker_configured", lambda: True)
    monkeypatch.setattr(workers_services, "worker_available", lambda _queue: False)
    monkeypatch.setitem(VARIANT_INLINE_ANALYSIS_BUDGETS, "scorpion", (5, 5))

    with pytest.raises(ServiceUnavailable) as raised:
        game.analysis()

    assert raised.value.code == "analysis_needs_worker"
    assert raised.value.body["retry_after"] == 60
    assert sleeps == []


def test_the_async_client_reads_the_analysis(server_url: str) -> None:
    async def scenario() -> Analysis:
        async with AsyncScorpion(server_url, transport=fast_async_transport()) as client:
            await client.auth.signup(new_email(), PASSWORD)
            game = await client.games.create(code=WON_DEAL["code"])
            await game.resign()
            return await game.analysis()

    analysis = asyncio.run(scenario())

    assert analysis.ready
    assert analysis.outcome == "ended_winnable"


@pytest.fixture
def term(server_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Terminal:
    monkeypatch.setattr(cli, "Scorpion", functools.partial(Scorpion, transport=fast_transport()))
    return Terminal(server_url, tmp_path / "scorpion" / "token")


def test_scorpion_analyse_shows_where_the_game_turned_and_a_winning_line(term: Terminal) -> None:
    assert term("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    status, out = term("play", "--code", WON_DEAL["code"], lines=["q"])
    assert status == 0, out
    status, out = term("analyse", "last")
    assert status == 1
    assert "no finished game" in out

    status, out = term("play", "--resume", lines=["resign", "y"])
    assert status == 0, out
    status, out = term("analyse", "last")

    assert status == 0, out
    assert "The deal could be won from the start." in out
    assert "The game ended at step 1 while it could still be won." in out
    assert "A winning line from step 1:" in out
    assert f"{len(WON_DEAL['line']):>3}. " in out


def test_scorpion_analyse_says_an_undecided_variant_deal_is_undecided(
    term: Terminal, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A small budget (the live server runs in this process): Double Scorpion seed 0 is undecided.
    monkeypatch.setitem(VARIANT_ANALYSIS_BUDGETS, "double-scorpion", (500, 1_000))
    assert term("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    status, out = term("play", "--variant", "double-scorpion", "--seed", "0", lines=["resign", "y"])
    assert status == 0, out

    status, out = term("analyse", "last")

    assert status == 0, out
    flat = " ".join(out.split())
    assert (
        "Whether the deal could be won is unknown (the solver could not decide this deal "
        "within its budget)." in flat
    )
    assert "Where the game turned is unknown" in flat
    assert "A winning line" not in flat


def test_scorpion_analyse_takes_the_short_id_the_table_shows(term: Terminal) -> None:
    assert term("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    status, out = term("play", "--code", WON_DEAL["code"], lines=["resign", "y"])
    assert status == 0, out
    short = out.split("game ")[-1].split(" ")[0]  # the footer: "game 0386f0ac · version 1"
    assert len(short) == 8

    status, out = term("analyse", short)

    assert status == 0, out
    assert "The deal could be won from the start." in out
    assert "<html" not in out.lower()


def test_scorpion_analyse_says_what_is_wrong_with_an_id(term: Terminal) -> None:
    assert term("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0

    status, out = term("analyse", "abcd1234")
    assert status == 1
    assert "None of your games has an id starting with abcd1234." in " ".join(out.split())

    status, out = term("analyse", "not/an id")
    assert status == 1
    assert "is not a game id" in out
    assert "<html" not in out.lower()


def test_scorpion_analyse_asks_the_server_for_the_short_id_in_one_request(
    term: Terminal, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: it paged through every game of the player (100 a page) to find the id.
    assert term("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    status, out = term("play", "--code", WON_DEAL["code"], lines=["resign", "y"])
    assert status == 0, out
    game_id = str(Game.objects.get().pk)
    recorder = DropFirstResponse(match=lambda request: False)
    monkeypatch.setattr(cli, "Scorpion", functools.partial(Scorpion, transport=recorder))

    for typed in (game_id[:8], game_id[:13].upper(), game_id[:13].replace("-", "")):
        status, out = term("analyse", typed)
        assert status == 0, out
        assert f"Analysis of game {game_id}" in " ".join(out.split())

    lists = [r.url.params for r in recorder.sent if r.url.path == "/api/v1/games/"]
    digits = game_id.replace("-", "")
    assert [dict(params) for params in lists] == [
        {"id_prefix": digits[:8], "page_size": "2"},
        {"id_prefix": digits[:12], "page_size": "2"},
        {"id_prefix": digits[:12], "page_size": "2"},
    ]


def test_scorpion_analyse_refuses_hyphens_where_an_id_has_none(term: Terminal) -> None:
    assert term("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    for typed in ("abcd-1234", "abc", "abcd1234-1234-", "abcd1234--", "abcd12345"):
        status, out = term("analyse", typed)
        assert status == 1, typed
        assert "is not a game id" in out or "None of your games" in out, out
    assert "is not a game id" in term("analyse", "abcd-1234")[1]
    assert "is not a game id" in term("analyse", "abc")[1]
