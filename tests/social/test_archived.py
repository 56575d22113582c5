"""Challenges and archived games (games.archive: a finished game's log moved to a file): a
challenge is made from an archived game, and its board stays when its games are archived."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from games.models import Game
from tests.api.conftest import Player
from tests.api.test_archive import archive_now, won_game
from tests.social.conftest import named, play_out
from tests.social.test_challenges import make_challenge

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _archive_of_the_test(archive_dir: Path) -> None:
    """Every test archives into a directory of its own (tests/conftest.py)."""


def test_a_challenge_from_an_archived_game_is_played_and_keeps_its_board_once_all_is_archived(
    make_player: Callable[[], Player],
) -> None:
    ann, bob = make_player(), make_player()
    ann_name, bob_name = named(ann, "Ann"), named(bob, "Bob")
    source = won_game(ann)
    assert archive_now().archived == 1
    challenge = make_challenge(ann, {"id": str(source.pk)})
    attempt = bob.post(f"/api/v1/challenges/{challenge['id']}/play/").json()
    play_out(bob, attempt["id"], win=True)
    path = f"/api/v1/challenges/{challenge['id']}/"
    before = bob.get(path).json()["board"]
    assert {entry["player"] for entry in before} == {ann_name, bob_name}

    # Bob's game old enough to be archived too.
    Game.objects.filter(pk=attempt["id"]).update(finished_at=source.finished_at)
    assert archive_now().archived == 1
    after = bob.get(path).json()["board"]
    assert [(e["player"], e["won"], e["moves"]) for e in after] == [
        (e["player"], e["won"], e["moves"]) for e in before
    ]
