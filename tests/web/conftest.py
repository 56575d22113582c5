"""Browser tests: Debian's Chromium driven by Playwright against pytest-django's live server.

Playwright never downloads a browser here: it launches the system's ``/usr/bin/chromium``
(``executable_path``) with the flags a sandboxed, offline machine needs. Without Chromium the
tests skip on a laptop and fail in CI (``require_service``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_service
from tests.data import DEALS

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# --headless comes from Playwright itself (headless=True); the rest keep Chromium off the network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PASSWORD = "a long password 42"

# The live regions of the page that hold `text`, by id (or tag): each would read it out.
LIVE_REGIONS_SAYING = """(text) => [...document.querySelectorAll(
  '[aria-live], [role=status], [role=alert], [role=log]'
)].filter((region) => region.textContent.includes(text)).map((r) => r.id || r.tagName)"""


def won_deal() -> dict[str, Any]:
    won: dict[str, Any] = DEALS["won"][0]
    return won


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    available = Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is not None
    require_service("Chromium", available)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - the dev extras install it
        require_service("Playwright (pip install playwright)", False)
        raise
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # Playwright's sync API keeps an event loop running in this thread while the browser is
    # open, and Django refuses database work (the test database's set-up and flushes) from a
    # thread with a running loop. The work is plain synchronous code all the same: allow it,
    # for this module only (the loop stops when the browser closes).
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        # Playwright gives the browser a fresh temporary profile (--user-data-dir) itself.
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def web_settings(settings: Any) -> Any:
    """The live server speaks plain HTTP: its cookies cannot be HTTPS-only."""
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False
    return settings


def shoot(page: Any, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
