"""The README's example session runs, as written, against the live server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "client_sdk" / "README.md"

pytestmark = pytest.mark.django_db(transaction=True)


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_the_readme_session_runs(server_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    session = python_blocks()[0].replace("http://127.0.0.1:8000", server_url)
    exec(compile(session, str(README), "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out
    assert "playing 0 3" in out
    assert "illegal_move 422" in out
    assert "changed meanwhile" in out
    assert "resigned 42" in out
