"""The service worker's version: the static files hashed once per deployed process, at every
request while developing (DEBUG), since browsers ask for the worker at each navigation."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

from web import pwa


@pytest.fixture
def hashings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = pwa.shell_version

    def counted() -> str:
        calls.append("hashed")
        return real()

    monkeypatch.setattr(pwa, "shell_version", counted)
    pwa._deployed_shell_version.cache_clear()
    yield calls
    pwa._deployed_shell_version.cache_clear()


@override_settings(DEBUG=False)
def test_a_deployed_process_hashes_the_shell_once(hashings: list[str]) -> None:
    first, second = Client().get("/sw.js"), Client().get("/sw.js")
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    assert pwa.shell_version() in first.content.decode()
    assert len(hashings) == 2  # once for the two requests, once by the assertion above


@override_settings(DEBUG=True)
def test_while_developing_every_request_reads_the_files_again(hashings: list[str]) -> None:
    Client().get("/sw.js")
    Client().get("/sw.js")
    assert len(hashings) == 2
