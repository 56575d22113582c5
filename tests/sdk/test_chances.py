"""``game.chances()`` and ``game.prepare_chances()`` against the live server: served, pending
then asked again, refused once the game is over."""

from __future__ import annotations

import pytest
from django.conf import settings
from scorpion_client import Chances, ConflictError, Scorpion

from games.services import chances as chances_services
from games.services import workers as workers_services
from tests.conftest import small_chances
from tests.sdk.conftest import WON_DEAL
from tests.sdk.test_games import play_line

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def few_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    small_chances(monkeypatch, samples=6, node_budget=3_000)


def test_the_chances_of_every_legal_action_are_served(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    play_line(game, WON_DEAL["line"][:2])

    chances = game.chances()

    assert isinstance(chances, Chances)
    assert chances.ready
    assert (chances.version, chances.samples) == (2, 6)
    hints = game.hints()
    assert {(a.card, a.to) for a in chances.actions if a.type == "move"} == {
        (move.card, move.to) for move in hints.moves
    }
    assert all(a.wins + a.losses + a.undecided == a.samples == 6 for a in chances.actions)
    assert all(a.low <= a.chance <= a.high for a in chances.actions)


def test_preparing_answers_at_once_and_serves_nothing(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    assert game.prepare_chances().status == "on_request"  # no worker: GET computes them
    game.chances()

    prepared = game.prepare_chances()

    assert prepared.status == "ready"
    assert not prepared.ready
    assert prepared.actions == []


def test_a_pending_answer_is_asked_again_after_retry_after(
    client: Scorpion, monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    # The first request finds a "live worker" and enqueues; by the second the worker is gone,
    # so the server computes the chances itself.
    alive = iter([True])
    monkeypatch.setattr(workers_services, "worker_available", lambda _queue: next(alive, False))
    monkeypatch.setattr(chances_services, "_chances_schedule", lambda game_id, version: True)
    monkeypatch.setattr(settings, "CHANCES_REQUEST_MS", 0)  # the worker's to compute

    chances = game.chances()

    assert chances.ready
    assert sleeps == [2.0]


def test_a_finished_game_is_a_conflict(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    game.resign()

    with pytest.raises(ConflictError) as caught:
        game.chances()

    assert caught.value.code == "game_finished"
