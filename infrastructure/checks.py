"""A system check that every setting naming code by dotted path names code that imports.

The lower layers call the layers above them through such settings (the games tell the
statistics, achievements, social notices and fair play of a finished game; the API's base view
asks accounts to check a token's scope), resolved at first use. A typo there would otherwise
surface only at the first game that ends, inside its command's transaction; `manage.py check`
(and so every `migrate`, `runserver` and the test run) names it at start-up instead.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error
from django.utils.module_loading import import_string

# Each setting: one dotted path, or a list of them.
WIRED_SETTINGS = (
    "API_SCOPE_CHECK",
    "GAME_FINISHED_RECORDER",
    "GAME_FINISHED_HOOKS",
    "GUEST_SIGNED_UP_HOOKS",
    "FEED_BACKLOG_SOURCES",
)


def wired_paths_import(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    for name in WIRED_SETTINGS:
        value = getattr(settings, name, None)
        paths = [value] if isinstance(value, str) else list(value or [])
        for path in paths:
            try:
                target = import_string(path)
            except ImportError as error:
                errors.append(
                    Error(
                        f"{name} names {path!r}, which cannot be imported: {error}",
                        id="scorpion.E001",
                    )
                )
                continue
            if not callable(target):
                errors.append(
                    Error(f"{name} names {path!r}, which is not callable", id="scorpion.E002")
                )
    return errors
