"""The terminal client draws the table again when the game is played on another device, and
its next move is then made on the current position (no version conflict)."""

from __future__ import annotations

import functools
import io
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
from scorpion_client import Scorpion, cli
from scorpion_client.config import TokenStore

from tests.asgi_server import asgi_server  # noqa: F401  (the fixture)
from tests.sdk.conftest import PASSWORD, WON_DEAL, fast_transport, new_email

pytestmark = pytest.mark.django_db(transaction=True)


def wait_for(out: io.StringIO, text: str, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while text not in out.getvalue():
        assert time.monotonic() < deadline, f"never printed {text!r}:\n{out.getvalue()}"
        time.sleep(0.05)


def test_a_move_on_another_device_is_drawn_at_once(
    asgi_server: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli, "Scorpion", functools.partial(Scorpion, transport=fast_transport()))
    phone = Scorpion(asgi_server, transport=fast_transport())
    phone.auth.signup(new_email(), PASSWORD)
    config = tmp_path / "token"
    TokenStore(config).set(asgi_server, phone.token)
    game = phone.games.create(code=WON_DEAL["code"])
    first, second = WON_DEAL["line"][:2]
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, highlight=False)

    def on_the_phone() -> str:
        wait_for(out, "version 0")
        phone.games.get(game.id).move(first["card"], first.get("to"))
        wait_for(out, "Played on another device")
        wait_for(out, "version 1")
        return second["card"].lower()

    answers: list[Callable[[], str]] = [on_the_phone, lambda: "q"]

    def read_line(prompt: str) -> str:
        if not answers:
            raise EOFError
        return answers.pop(0)()

    status = cli.run(
        ["--url", asgi_server, "--config", str(config), "play", "--game", game.id],
        console=console,
        read_line=read_line,
    )
    text = out.getvalue()
    assert status == 0, text
    assert "Played on another device: " in text
    assert "version 1" in text
    assert "version 2" in text  # the terminal's own move, on the current position
    assert "changed meanwhile" not in text
    assert phone.games.get(game.id).version == 2
    phone.close()
