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


class Terminal:
    """``scorpion play --game`` on a game of the won deal, its lines answered by ``answers``
    (each a callable, called when the terminal asks); the phone is the player's other device."""

    def __init__(self, server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(
            cli, "Scorpion", functools.partial(Scorpion, transport=fast_transport())
        )
        self.server = server
        self.phone = Scorpion(server, transport=fast_transport())
        self.phone.auth.signup(new_email(), PASSWORD)
        self.config = tmp_path / "token"
        TokenStore(self.config).set(server, self.phone.token)
        self.game = self.phone.games.create(code=WON_DEAL["code"])
        self.out = io.StringIO()

    def play(self, answers: list[Callable[[], str]]) -> tuple[int, str]:
        def read_line(prompt: str) -> str:
            if not answers:
                raise EOFError
            return answers.pop(0)()

        status = cli.run(
            ["--url", self.server, "--config", str(self.config), "play", "--game", self.game.id],
            console=Console(file=self.out, width=100, color_system=None, highlight=False),
            read_line=read_line,
        )
        return status, self.out.getvalue()


def test_a_move_on_another_device_is_drawn_at_once(
    asgi_server: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    terminal = Terminal(asgi_server, tmp_path, monkeypatch)
    phone, game, out = terminal.phone, terminal.game, terminal.out
    first, second = WON_DEAL["line"][:2]

    def on_the_phone() -> str:
        wait_for(out, "version 0")
        phone.games.get(game.id).move(first["card"], first.get("to"))
        wait_for(out, "Played on another device")
        wait_for(out, "version 1")
        return second["card"].lower()

    status, text = terminal.play([on_the_phone, lambda: "q"])
    assert status == 0, text
    assert "Played on another device: " in text
    assert "version 1" in text
    assert "version 2" in text  # the terminal's own move, on the current position
    assert "changed meanwhile" not in text
    assert phone.games.get(game.id).version == 2
    phone.close()


@pytest.mark.parametrize(
    ("end", "said", "again"),
    [
        ("resign", "The game was resigned on another device.", True),
        ("restart", "The game was left for a new game on another device: scorpion play", False),
    ],
)
def test_a_game_ended_on_another_device_is_said_and_left(
    asgi_server: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    end: str,
    said: str,
    again: bool,
) -> None:
    # The terminal waits for a line while the browser resigns or restarts the game: it says how
    # the game ended (an abandon in words), and the next line leaves instead of being refused.
    terminal = Terminal(asgi_server, tmp_path, monkeypatch)
    phone, game, out = terminal.phone, terminal.game, terminal.out

    def on_the_phone() -> str:
        wait_for(out, "version 0")
        if end == "resign":
            phone.games.get(game.id).resign()
        else:
            phone.games.restart(game.id)
        wait_for(out, said)
        return "d"

    status, text = terminal.play([on_the_phone])
    assert status == 0, text
    assert ("Played on another device: left for a new game" in text) is not again
    # "restart" after an abandon would abandon the new game in turn: not offered.
    assert ("restart to play it again" in text) is again
    assert "accepts no more commands" not in text  # the "d" was not sent
    assert "The game stays on the server" not in text
    phone.close()
