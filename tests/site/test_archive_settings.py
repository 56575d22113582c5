"""The archive's storage from the environment (scorpion_site.env.env_archive_storage): a local
directory by default, any Django storage by setting, and every mistake stops start-up."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from scorpion_site.env import FILE_SYSTEM_STORAGE, env_archive_storage

DEFAULT = Path("/srv/default-archive")
VARIABLES = ("ARCHIVE_DIR", "ARCHIVE_STORAGE_BACKEND", "ARCHIVE_STORAGE_OPTIONS")


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_the_archive_is_a_local_directory_by_default() -> None:
    assert env_archive_storage(default_dir=DEFAULT) == {
        "BACKEND": FILE_SYSTEM_STORAGE,
        "OPTIONS": {"location": str(DEFAULT)},
    }


def test_archive_dir_moves_the_local_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARCHIVE_DIR", "/var/lib/scorpion/archive")
    storage = env_archive_storage(default_dir=DEFAULT)
    assert storage["OPTIONS"] == {"location": "/var/lib/scorpion/archive"}


def test_another_storage_takes_its_options_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARCHIVE_STORAGE_BACKEND", "storages.backends.s3.S3Storage")
    monkeypatch.setenv("ARCHIVE_STORAGE_OPTIONS", '{"bucket_name": "b", "location": "games"}')
    assert env_archive_storage(default_dir=DEFAULT) == {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {"bucket_name": "b", "location": "games"},
    }


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"ARCHIVE_STORAGE_BACKEND": "not a path"}, "not the dotted path"),
        ({"ARCHIVE_STORAGE_OPTIONS": "{bucket"}, "is not JSON"),
        ({"ARCHIVE_STORAGE_OPTIONS": '["a"]'}, "must be a JSON object"),
        (
            {"ARCHIVE_DIR": "/a", "ARCHIVE_STORAGE_OPTIONS": '{"location": "/b"}'},
            "both set",
        ),
        (
            {"ARCHIVE_DIR": "/a", "ARCHIVE_STORAGE_BACKEND": "storages.backends.s3.S3Storage"},
            "local directory only",
        ),
    ],
)
def test_a_wrong_archive_setting_stops_start_up(
    monkeypatch: pytest.MonkeyPatch, values: dict[str, str], message: str
) -> None:
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ImproperlyConfigured, match=message):
        env_archive_storage(default_dir=DEFAULT)
