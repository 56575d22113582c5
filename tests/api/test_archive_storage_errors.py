"""Archived games when the archive's storage fails (games/archive.py): whatever the storage
raises, a read is a 503 ``archive_unreadable`` problem (or, on the staff's pages, a page that
says so), never a 500; a deletion goes on past a file it cannot delete (and rebuild_fair_play
past a game it cannot read: tests/fairplay/test_reviews.py).

Django's storage API leaves its errors to each backend: the local directory raises ``OSError``,
django-storages' S3 raises botocore's ``ClientError`` (access denied, a 5xx) or
``EndpointConnectionError`` (unreachable), neither an ``OSError``. ``StorageDown`` stands for
those."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.core.files.storage import FileSystemStorage
from django.test import Client
from django.urls import reverse

from games.archive import ARCHIVE_STORAGE
from games.models import Game
from tests.api.conftest import Player
from tests.api.test_archive import archive_now, assert_history_unreadable, won_game

pytestmark = pytest.mark.django_db


class StorageDown(Exception):
    """A storage backend's own error, not an ``OSError`` (as botocore's are)."""


class UnreachableStorage(FileSystemStorage):
    """The archive's directory, behind a storage that no longer answers."""

    def _open(self, name: str, mode: str = "rb") -> Any:
        raise StorageDown(f"could not connect to the endpoint for {name}")

    def delete(self, name: str) -> None:
        raise StorageDown(f"could not connect to the endpoint for {name}")


class DeleteFailsOnce(FileSystemStorage):
    """A storage whose first deletion fails (a timeout), the next ones succeed."""

    failed: list[str] = []

    def delete(self, name: str) -> None:
        if not DeleteFailsOnce.failed:
            DeleteFailsOnce.failed.append(name)
            raise StorageDown(f"timed out deleting {name}")
        super().delete(name)


def use_storage(settings: Any, directory: Path, backend: type[FileSystemStorage]) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        ARCHIVE_STORAGE: {
            "BACKEND": f"{__name__}.{backend.__qualname__}",
            "OPTIONS": {"location": str(directory)},
        },
    }


@pytest.fixture
def storage_down(settings: Any, archive_dir: Path) -> Callable[[], None]:
    return lambda: use_storage(settings, archive_dir, UnreachableStorage)


def test_a_storage_error_of_any_kind_is_a_503_problem_never_a_500(
    player: Player, storage_down: Callable[[], None]
) -> None:
    game = won_game(player)
    archive_now()
    storage_down()

    assert_history_unreadable(player, game)


def test_deleting_the_players_data_deletes_every_file_past_one_that_fails(
    player: Player,
    settings: Any,
    archive_dir: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    games = [won_game(player) for _ in range(3)]
    archive_now()
    files = [archive_dir / Game.objects.get(pk=game.pk).archive_name for game in games]
    DeleteFailsOnce.failed = []
    use_storage(settings, archive_dir, DeleteFailsOnce)

    with django_capture_on_commit_callbacks(execute=True):
        response = player.client.delete("/api/v1/me/data/")

    assert response.status_code == 200, response.content
    # The one the storage failed to delete is left (archive_sweep_orphans takes it later).
    assert len(DeleteFailsOnce.failed) == 1
    assert sorted(str(path) for path in files if path.exists()) == [
        str(archive_dir / name) for name in DeleteFailsOnce.failed
    ]


@pytest.mark.parametrize("damage", ["missing", "storage down"])
def test_the_staff_replay_of_an_unreadable_archive_says_so_with_a_503(
    player: Player, admin_client: Client, archive_dir: Path, storage_down: Any, damage: str
) -> None:
    game = won_game(player)
    archive_now()
    name = Game.objects.get(pk=game.pk).archive_name
    if damage == "missing":
        (archive_dir / name).unlink()
    else:
        storage_down()

    page = admin_client.get(reverse("staff:replay", args=[game.pk]) + "?version=3")

    assert page.status_code == 503
    text = page.content.decode()
    assert "could not be read back" in text
    assert name in text  # staff are told which file, to repair it


def test_the_staff_export_of_a_player_with_an_unreadable_archive_says_so_with_a_503(
    player: Player, admin_client: Client, storage_down: Callable[[], None]
) -> None:
    won_game(player)
    archive_now()
    storage_down()
    user = User.objects.get(email=player.email)
    url = reverse("admin:auth_user_export", args=[user.pk])

    page = admin_client.post(url, {"reason": "privacy request #12"})

    assert page.status_code == 503
    assert "could not be read back" in page.content.decode()
    # Nothing was exported: the audit log does not say it was.
    assert not LogEntry.objects.filter(change_message__contains="privacy request #12").exists()


class MeetsAnotherRead(FileSystemStorage):
    """A storage each of whose reads waits for a second one to start (as an object store's
    round trips overlap only when the reads are made at once)."""

    barrier = threading.Barrier(2, timeout=20)

    def _open(self, name: str, mode: str = "rb") -> Any:
        MeetsAnotherRead.barrier.wait()
        return super()._open(name, mode)


def test_the_export_reads_the_archived_files_several_at_a_time(
    player: Player, settings: Any, archive_dir: Path
) -> None:
    """One file per archived game: read one after another from an object store (tens of
    milliseconds each), a player's 1,000 archived games would pass the web server's timeout."""
    won_game(player)
    won_game(player)
    archive_now()
    MeetsAnotherRead.barrier.reset()
    use_storage(settings, archive_dir, MeetsAnotherRead)

    response = player.get("/api/v1/me/export/")

    assert response.status_code == 200, response.content
    assert [len(game["events"]) > 0 for game in response.json()["games"]] == [True, True]


def test_an_analysis_of_an_unreadable_archive_spends_no_solver_run(
    player: Player,
    storage_down: Callable[[], None],
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The SDK retries a 503: had each try counted a run, the third would be a 429 about
    # solver runs, hiding the storage's failure.
    monkeypatch.setitem(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "solver", "1/min")
    game = won_game(player)
    archive_now()
    storage_down()
    for _ in range(3):
        answer = player.get(f"/api/v1/games/{game.pk}/analysis/")
        assert answer.status_code == 503, answer.content
        assert answer.json()["code"] == "archive_unreadable"
