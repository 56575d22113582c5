"""The sweep of orphan archive files: a file whose game is gone (its player's data erased while
the storage failed to delete it) goes; a file of a game that exists (archived, or being
archived from a file a stopped run left), or one younger than the grace period, stays."""

from __future__ import annotations

import datetime
import io
import os
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import FileSystemStorage
from django.core.management import CommandError, call_command
from django.utils import timezone

from games import archive, services
from games.models import Game
from tests.api.test_archive import archive_now, won_game

pytestmark = pytest.mark.django_db


def sweep(*args: str) -> str:
    out = io.StringIO()
    call_command("archive_sweep_orphans", *args, stdout=out)
    return out.getvalue()


def unreachable(self: FileSystemStorage, name: str) -> None:
    raise OSError("the storage is unreachable")


def age(path: Path, hours: float) -> None:
    then = time.time() - hours * 3600
    os.utime(path, (then, then))


def test_the_file_of_an_erased_player_left_by_a_failed_delete_is_swept(
    make_player: Any,
    archive_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    player, other = make_player(), make_player()
    erased, kept = won_game(player), won_game(other)
    assert archive_now().archived == 2
    erased_file = archive_dir / Game.objects.get(pk=erased.pk).archive_name
    kept_file = archive_dir / Game.objects.get(pk=kept.pk).archive_name

    # The deletion commits; deleting its files after the commit fails (the storage is down):
    # logged, and the erased player's log is still in the archive.
    with monkeypatch.context() as down:
        down.setattr(FileSystemStorage, "delete", unreachable)
        with django_capture_on_commit_callbacks(execute=True):
            assert player.client.delete("/api/v1/me/data/").status_code == 200
    assert not Game.objects.filter(pk=erased.pk).exists()
    assert erased_file.is_file()
    age(erased_file, 30)
    age(kept_file, 30)

    listed = sweep("--dry-run")
    assert erased_file.is_file()
    assert Game.objects.get(pk=kept.pk).archive_name not in listed
    assert "would delete 1 orphan file(s)" in listed

    assert "deleted 1 orphan file(s)" in sweep()
    assert not erased_file.exists()
    assert kept_file.is_file()
    assert (
        services.archive_orphans_delete(written_before=timezone.now(), dry_run=False).orphans == []
    )


def test_a_young_file_no_game_names_yet_is_left_alone(archive_dir: Path) -> None:
    name = archive.archive_name("ab345678-0000-4000-8000-000000000000")
    path = archive_dir / name
    path.parent.mkdir(parents=True)
    path.write_bytes(b"a run writing it right now")
    age(path, 1)

    result = services.archive_orphans_delete(
        written_before=timezone.now() - datetime.timedelta(hours=24), dry_run=False
    )
    assert result.orphans == []
    assert result.kept_recent == 1
    assert path.is_file()


def test_an_empty_archive_and_a_bad_grace_period(archive_dir: Path) -> None:
    assert "deleted 0 orphan file(s)" in sweep()
    with pytest.raises(CommandError, match="--older-than-hours must be 1 or more"):
        sweep("--older-than-hours", "0")


def test_an_old_file_a_run_is_reusing_now_is_not_swept(
    player: Any, archive_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run stopped after writing a game's file leaves it, days old, for the next run to
    reuse: that run reads it back and only then, in its transaction, says the game is archived
    and deletes its rows. A sweep in between must not take the file: the game exists (its
    log is not an erased player's), and the file is about to be its only copy."""
    game = won_game(player)
    name = archive.archive_name(game.pk)
    path = archive_dir / name
    path.parent.mkdir(parents=True)
    events = list(game.events.order_by("seq"))
    path.write_bytes(archive.archive_bytes(game=game, events=events))  # left by a stopped run
    age(path, 72)
    parse = archive.archive_events_parse
    swept: list[list[str]] = []

    def read_back_then_the_sweep_runs(**kwargs: Any) -> Any:
        parsed = parse(**kwargs)
        day_ago = timezone.now() - datetime.timedelta(hours=24)
        swept.append(services.archive_orphans_delete(written_before=day_ago, dry_run=False).orphans)
        return parsed

    monkeypatch.setattr(archive, "archive_events_parse", read_back_then_the_sweep_runs)
    assert archive_now().archived == 1
    monkeypatch.undo()

    assert swept == [[]]
    assert path.is_file()
    archived = Game.objects.get(pk=game.pk)
    assert len(archive.archived_events(game=archived)) == archived.version
