"""How a client is configured: a caller's own httpx client, settings from the environment,
per-call timeouts, closing, what repr() shows, the version, the licence, the generated sync
client. No server needed: httpx.MockTransport answers."""

from __future__ import annotations

import asyncio
import importlib.metadata
import runpy
import tomllib
from pathlib import Path
from typing import Any

import httpx
import pytest
import scorpion_client
from scorpion_client import AsyncScorpion, Scorpion, Session

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "client_sdk"
ME = {"id": 7, "email": "ada@example.com"}


class Recorder:
    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(200, json=ME)


def assert_sdk_headers(request: httpx.Request) -> None:
    assert request.headers["User-Agent"] == f"scorpion-client-python/{scorpion_client.__version__}"
    assert request.headers["Accept"] == "application/json, application/problem+json"


def test_an_http_client_without_base_url_works_and_keeps_the_sdk_headers_and_timeout() -> None:
    recorder = Recorder()
    mine = httpx.Client(transport=httpx.MockTransport(recorder))  # no base_url, httpx's UA
    client = Scorpion("http://api.test/prefix", token="t", http_client=mine, timeout=3.5)
    assert client.me.get().email == ME["email"]
    request = recorder.requests[0]
    assert str(request.url) == "http://api.test/prefix/api/v1/me/"
    assert_sdk_headers(request)
    assert request.headers["X-Session-Token"] == "t"
    assert request.extensions["timeout"] == httpx.Timeout(3.5).as_dict()
    client.close()
    assert not mine.is_closed  # the caller's client: the caller closes it
    mine.close()


def test_an_http_client_with_its_own_base_url_needs_no_other() -> None:
    recorder = Recorder()
    mine = httpx.Client(base_url="http://own.test/", transport=httpx.MockTransport(recorder))
    with Scorpion(http_client=mine) as client:
        client.me.get()
    assert str(recorder.requests[0].url) == "http://own.test/api/v1/me/"
    assert_sdk_headers(recorder.requests[0])
    # The default timeout of the SDK, not httpx's 5 s.
    assert recorder.requests[0].extensions["timeout"]["read"] == 10.0


def test_async_http_client_too() -> None:
    recorder = Recorder()

    async def scenario() -> None:
        mine = httpx.AsyncClient(transport=httpx.MockTransport(recorder))
        client = AsyncScorpion("http://api.test", http_client=mine, timeout=2)
        await client.me.get()
        await client.close()  # close(), as on the sync client (aclose() too)
        assert not mine.is_closed
        await mine.aclose()

    asyncio.run(scenario())
    assert str(recorder.requests[0].url) == "http://api.test/api/v1/me/"
    assert_sdk_headers(recorder.requests[0])
    assert recorder.requests[0].extensions["timeout"]["read"] == 2


def test_both_clients_close_what_they_made() -> None:
    sync = Scorpion("http://x.test")
    sync.close()
    assert sync._http.is_closed

    async def scenario() -> None:
        client = AsyncScorpion("http://x.test")
        await client.close()
        assert client._http.is_closed
        other = AsyncScorpion("http://x.test")
        await other.aclose()
        assert other._http.is_closed

    asyncio.run(scenario())


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    transport = httpx.MockTransport(recorder)
    monkeypatch.setenv("SCORPION_URL", "http://env.test/")
    monkeypatch.setenv("SCORPION_TOKEN", "from-env")
    with Scorpion(transport=transport) as client:
        client.me.get()
    assert str(recorder.requests[-1].url) == "http://env.test/api/v1/me/"
    assert recorder.requests[-1].headers["X-Session-Token"] == "from-env"

    monkeypatch.setenv("SCORPION_TOKEN_TYPE", "bearer")
    with Scorpion(transport=transport) as client:
        client.me.get()
    assert recorder.requests[-1].headers["Authorization"] == "Bearer from-env"

    # Arguments win over the environment.
    with Scorpion("http://arg.test", token="arg", transport=transport) as client:
        client.me.get()
    assert str(recorder.requests[-1].url).startswith("http://arg.test/")
    assert recorder.requests[-1].headers["X-Session-Token"] == "arg"

    monkeypatch.setenv("SCORPION_TOKEN_TYPE", "cookie")
    with pytest.raises(ValueError, match="SCORPION_TOKEN_TYPE"):
        Scorpion(transport=transport)

    monkeypatch.delenv("SCORPION_URL")
    monkeypatch.delenv("SCORPION_TOKEN")
    with Scorpion(transport=transport) as client:
        assert str(client.base_url) == "http://127.0.0.1:8000/"
        assert client.token is None


def test_a_timeout_for_some_calls() -> None:
    recorder = Recorder()
    with Scorpion("http://t.test", transport=httpx.MockTransport(recorder), timeout=10) as c:
        quick = c.with_options(timeout=1.5)
        quick.me.get()
        c.me.get()
        c.with_options(timeout=None).me.get()
        assert quick.retry.max_retries == c.retry.max_retries
        assert c.with_options(max_retries=0).retry.max_retries == 0
        quick.token = "shared"  # one set of credentials for the client and its views
        assert c.token == "shared"
    timeouts = [r.extensions["timeout"]["read"] for r in recorder.requests]
    assert timeouts == [1.5, 10, None]
    assert c._http.is_closed


def test_a_session_and_a_client_keep_their_tokens_out_of_repr() -> None:
    session = Session(token="s3cret-token", user={"email": "ada@example.com"})
    assert "s3cret-token" not in repr(session)
    assert "ada@example.com" in repr(session)
    client = Scorpion("http://x.test", token="s3cret-token", client_secret="sh")
    assert "s3cret-token" not in repr(client.credentials)
    assert "'sh'" not in repr(client.credentials)
    client.close()


def test_the_version_is_written_once() -> None:
    version = scorpion_client.__version__
    assert importlib.metadata.version("scorpion-client") == version
    project = tomllib.loads((SDK / "pyproject.toml").read_text())["project"]
    assert "version" not in project
    assert project["dynamic"] == ["version"]
    hits = [
        path
        for path in (SDK / "scorpion_client").glob("*.py")
        if f'"{version}"' in path.read_text()
    ]
    assert [path.name for path in hits] == ["_version.py"]


def test_the_service_and_the_sdk_carry_a_licence() -> None:
    for root in (ROOT, SDK):
        text = (root / "LICENSE").read_text()
        assert text.startswith("MIT License")
        project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
        assert project["license"] == "MIT"
        assert project["license-files"] == ["LICENSE"]
    assert importlib.metadata.metadata("scorpion-client")["License-Expression"] == "MIT"


def test_the_sdk_core_needs_only_httpx_and_the_terminal_client_is_an_extra() -> None:
    project = tomllib.loads((SDK / "pyproject.toml").read_text())["project"]
    assert [d.split(">")[0] for d in project["dependencies"]] == ["httpx"]
    assert [d.split(">")[0] for d in project["optional-dependencies"]["cli"]] == ["rich"]
    assert project["scripts"]["scorpion"] == "scorpion_client._entry:main"


def test_the_sync_client_is_generated_from_the_async_one() -> None:
    unasync: dict[str, Any] = runpy.run_path(str(SDK / "scripts" / "unasync.py"))
    source = (SDK / "scorpion_client" / "_async.py").read_text()
    generated = (SDK / "scorpion_client" / "_sync.py").read_text()
    assert generated == unasync["unasync"](source), "run: make unasync"
    assert unasync["main"](["--check"]) == 0
    assert "await " not in generated
    assert "class Scorpion(BaseClient)" in generated
    assert "class AsyncScorpion" not in generated
