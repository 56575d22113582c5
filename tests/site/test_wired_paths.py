"""`manage.py check` names a setting that points the games at code that is not there."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from infrastructure.checks import wired_paths_import


def test_the_wired_settings_of_the_project_all_import() -> None:
    assert wired_paths_import() == []


@override_settings(
    GAME_FINISHED_HOOKS=["social.services.notices.game_finished", "social.nowhere.hook"]
)
def test_a_hook_that_does_not_import_stops_the_check() -> None:
    [error] = wired_paths_import()
    assert error.id == "scorpion.E001"
    assert "GAME_FINISHED_HOOKS" in error.msg
    assert "social.nowhere.hook" in error.msg
    with pytest.raises(SystemCheckError, match=r"social\.nowhere\.hook"):
        call_command("check")


@override_settings(FEED_BACKLOG_SOURCES=["social.services.notices.CHALLENGE_RESULT"])
def test_a_path_to_something_not_callable_stops_the_check() -> None:
    [error] = wired_paths_import()
    assert error.id == "scorpion.E002"
