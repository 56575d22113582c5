"""The functions a setting names by dotted path (the lower layers calling the ones above them:
``GAME_FINISHED_HOOKS``, ``GUEST_SIGNED_UP_HOOKS``, ``FEED_BACKLOG_SOURCES``), imported once
per process. A missing setting is no function; ``infrastructure/checks.py`` checks every such
setting at start-up."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string


@functools.cache
def wired_functions(setting: str) -> tuple[Callable[..., Any], ...]:
    paths: list[str] = getattr(settings, setting, [])
    return tuple(import_string(path) for path in paths)
