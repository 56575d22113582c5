"""Views that answer everyone alike, reading no credentials (the health checks, the API's 404
for an unknown path): marked so that the gate of app tokens (accounts/app_tokens.py) lets any
token through to them, as it would a request without one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

_View = TypeVar("_View", bound=Callable[..., Any])


def ignores_credentials(view: _View) -> _View:
    """Mark a view that answers everyone alike, reading no credentials: tokens pass the gate."""
    view.ignores_credentials = True  # type: ignore[attr-defined]
    return view
