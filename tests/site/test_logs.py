"""Log lines about a request name the client's address as the rate limits derive it."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def console() -> Iterator[io.StringIO]:
    """What the console handler of settings.LOGGING writes."""
    handler = next(
        h
        for h in logging.getLogger().handlers
        if isinstance(h, logging.StreamHandler)
        and not isinstance(h, logging.FileHandler)
        and any(type(f).__name__ == "ClientIPFilter" for f in h.filters)
    )
    stream = io.StringIO()
    previous = handler.setStream(stream)
    try:
        yield stream
    finally:
        handler.setStream(previous)  # type: ignore[arg-type]


def test_a_spoofed_forwarded_for_is_not_logged_as_the_client(console: io.StringIO) -> None:
    APIClient().get("/api/v1/games/", headers={"X-Forwarded-For": "203.0.113.9"})
    line = console.getvalue()
    assert "Unauthorized: /api/v1/games/ (client 127.0.0.1)" in line
    assert "203.0.113.9" not in line


@override_settings(NUM_PROXIES=1)
def test_behind_one_proxy_the_log_names_the_address_the_proxy_saw(console: io.StringIO) -> None:
    APIClient().get("/api/v1/games/", headers={"X-Forwarded-For": "198.51.100.1, 203.0.113.9"})
    assert "Unauthorized: /api/v1/games/ (client 203.0.113.9)" in console.getvalue()


def test_records_without_a_request_are_unchanged(console: io.StringIO) -> None:
    logging.getLogger("scorpion.test").warning("plain line")
    assert console.getvalue().endswith(" WARNING scorpion.test: plain line\n")
