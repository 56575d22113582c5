"""Every Python block of the SDK's README runs as written: against the live server, or, for the
OAuth blocks (the provider is not on this server), against the fake provider of test_oauth.
And they pass ``mypy --strict``, as user code of a typed SDK should."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import scorpion_client
from scorpion_client import Scorpion

from tests.sdk.test_oauth import FakeProvider

README = Path(__file__).resolve().parents[2] / "client_sdk" / "README.md"

pytestmark = pytest.mark.django_db(transaction=True)


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def run_block(block: str, url: str = "http://127.0.0.1:8000") -> None:
    code = block.replace("http://127.0.0.1:8000", url)
    exec(compile(code, str(README), "exec"), {"__name__": "readme"})


def test_the_readme_has_the_blocks_this_test_knows() -> None:
    blocks = python_blocks()
    assert len(blocks) == 4
    assert "client.auth.signup" in blocks[0]
    assert "AsyncScorpion" in blocks[1]
    assert "login_with_device" in blocks[2]
    assert "make_pkce" in blocks[3]


def test_the_readme_session_runs(server_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    run_block(python_blocks()[0], server_url)
    out = capsys.readouterr().out
    assert "playing 0 3" in out
    assert "illegal_move 422" in out
    assert "changed meanwhile" in out
    assert "resigned 42" in out


def test_the_readme_async_block_runs(server_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    run_block(python_blocks()[1], server_url)
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2:] == ["0", "1"]  # the positions of the replay: the deal, then the deal


def test_the_readme_oauth_blocks_run(
    monkeypatch: pytest.MonkeyPatch, sleeps: list[float], capsys: pytest.CaptureFixture[str]
) -> None:
    provider = FakeProvider(["authorization_pending", "ok"])
    fake = functools.partial(Scorpion, transport=httpx.MockTransport(provider))
    monkeypatch.setattr(scorpion_client, "Scorpion", fake)
    run_block(python_blocks()[2])
    out = capsys.readouterr().out
    assert "check that it shows the code HLNM-RCQK" in out
    assert "['account:read', 'games:play']" in out
    assert "ada@example.com" in out
    assert provider.revoked == ["refresh-1"]

    run_block(python_blocks()[3])
    url = capsys.readouterr().out.strip()
    assert url.startswith("http://127.0.0.1:8000/identity/o/authorize?response_type=code")
    assert "code_challenge_method=S256" in url


def test_the_readme_blocks_pass_mypy_strict(tmp_path: Path) -> None:
    files = []
    for number, block in enumerate(python_blocks()):
        path = tmp_path / f"readme_block_{number}.py"
        path.write_text(block)
        files.append(str(path))
    (tmp_path / "mypy.ini").write_text("[mypy]\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(tmp_path / "mypy.ini"),
            "--cache-dir",
            str(tmp_path / "cache"),
            *files,
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        # The SDK's sources: mypy cannot follow the import hook of an editable install.
        env={**os.environ, "MYPYPATH": str(README.parent)},
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
