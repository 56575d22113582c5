"""The ``scorpion`` terminal client, driven by scripted input against the live server."""

from __future__ import annotations

import functools
import io
import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from rich.console import Console
from scorpion_client import Scorpion, cli
from scorpion_client.config import TokenStore

from games import services
from games.models import Game
from tests.sdk.conftest import PASSWORD, WON_DEAL, fast_transport, new_email

pytestmark = pytest.mark.django_db(transaction=True)


def scripted(lines: Iterable[str]) -> Callable[[str], str]:
    """Answers each prompt with the next line, then ends input (as Ctrl-D would)."""
    pending = iter(lines)

    def read_line(prompt: str) -> str:
        try:
            return next(pending)
        except StopIteration:
            raise EOFError from None

    return read_line


class Terminal:
    def __init__(self, url: str, config: Path) -> None:
        self.url = url
        self.config = config

    def __call__(self, *args: str, lines: Iterable[str] = ()) -> tuple[int, str]:
        out = io.StringIO()
        console = Console(file=out, width=100, color_system=None, highlight=False)
        status = cli.run(
            ["--url", self.url, "--config", str(self.config), *args],
            console=console,
            read_line=scripted(lines),
        )
        return status, out.getvalue()


@pytest.fixture
def terminal(server_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Terminal:
    monkeypatch.setattr(cli, "Scorpion", functools.partial(Scorpion, transport=fast_transport()))
    return Terminal(server_url, tmp_path / "scorpion" / "token")


def human(command: dict[str, object]) -> str:
    """A command of deals.json as a player types it: ``8h``, ``kc 5`` (columns 1-7)."""
    if command["type"] == "deal":
        return "d"
    card = str(command["card"]).lower()
    return f"{card} {int(str(command['to'])) + 1}" if card.startswith("k") else card


def test_sign_up_play_to_a_win_and_see_the_stats(terminal: Terminal) -> None:
    email = new_email()
    status, out = terminal("signup", lines=[email, PASSWORD])
    assert status == 0, out
    assert f"Signed up and logged in as {email}" in out
    saved = json.loads(terminal.config.read_text())
    assert list(saved["tokens"]) == [terminal.url]
    assert stat.S_IMODE(terminal.config.stat().st_mode) == 0o600
    assert stat.S_IMODE(terminal.config.parent.stat().st_mode) == 0o700

    line = [human(command) for command in WON_DEAL["line"]]
    script = ["?", "h", "zz", "as", line[0], "u", "r", *line[1:]]
    status, out = terminal("play", "--code", WON_DEAL["code"], lines=script)
    assert status == 0, out
    assert not [line for line in out.splitlines() if line.rstrip().endswith("..")]
    assert "column 0" not in out  # the board counts 1-7, and so does every message
    assert "Scorpion · seeded" in out
    assert "░░░" in out
    assert "Stock: 3 (d to deal)" in out
    assert "kh 5" in out  # the help
    assert "Hint: " in out
    assert "Not a card or a command: 'zz'" in out
    assert "A♠ can only go on" in out  # the server's detail on the illegal move, cards drawn
    assert "undid: 3♣ and the 6 cards on it → column 6" in out
    assert "redid: 3♣ and the 6 cards on it → column 6" in out
    assert "dealt " in out
    assert "collected " in out
    assert f"You won in {len(WON_DEAL['line'])} moves" in out

    status, out = terminal("stats")
    assert status == 0, out
    assert "played" in out
    assert "won" in out
    assert "100%" in out

    status, out = terminal("games")
    assert status == 0, out
    assert "won" in out


def test_the_games_list_says_why_staff_hid_a_result(terminal: Terminal) -> None:
    email = new_email()
    terminal("signup", lines=[email, PASSWORD])
    line = [human(command) for command in WON_DEAL["line"]]
    assert terminal("play", "--code", WON_DEAL["code"], lines=line)[0] == 0
    game = Game.objects.get(owner__email=email)
    staff = User.objects.create_user("mod", "mod@example.com", "pw", is_staff=True)
    services.leaderboard_result_hide(game_id=game.pk, by=staff.pk, reason="[bot] pace")

    status, out = terminal("games")

    assert status == 0, out
    assert f"{game.pk}: hidden from the leaderboard by staff: [bot] pace" in out


def test_resume_resign_logout(terminal: Terminal) -> None:
    assert terminal("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0

    status, out = terminal("play", "--resume", lines=["q"])
    assert status == 0, out
    assert "No game in progress: a new one." in out
    assert "scorpion play --resume" in out

    status, out = terminal("play", "--seed", "5", lines=["d", "q"])
    assert status == 0, out
    assert "dealt " in out
    assert "Stock: dealt" in out

    status, out = terminal("play", "--resume", lines=["resign", "n", "resign", "y"])
    assert status == 0, out
    assert "Resuming your latest game." in out
    assert "Stock: dealt" in out  # the seed-5 game, where it was left
    assert "Resigned." in out

    status, out = terminal("play", "--daily", lines=["q"])
    assert status == 0, out
    assert "Scorpion · daily" in out
    status, out = terminal("play", "--daily", lines=["q"])
    assert "Resuming your attempt at today's challenge." in out
    status, out = terminal("play", "--daily", lines=["resign", "y"])
    assert status == 0, out
    assert "Today's deal stays secret until the day after tomorrow" in out
    status, out = terminal("play", "--daily", lines=["q"])
    assert "practice, it will not rank" in out
    assert "practice (does not rank)" in out

    status, out = terminal("logout")
    assert status == 0
    assert "Logged out." in out
    assert json.loads(terminal.config.read_text())["tokens"] == {}
    status, out = terminal("stats")
    assert status == 1
    assert "scorpion login" in out


def test_wrong_password_and_unreachable_server(
    terminal: Terminal, tmp_path: Path, sleeps: list[float]
) -> None:
    email = new_email()
    assert terminal("signup", "--email", email, lines=[PASSWORD])[0] == 0
    status, out = terminal("login", "--password", "--email", email, lines=["not the password"])
    assert status == 1
    assert "not correct" in out or "password" in out.lower()
    assert ".." not in out  # the server's sentence ends with its own full stop, once
    assert terminal("login", "--password", "--email", email, lines=[PASSWORD])[0] == 0
    # Without --password: the device flow, here for an app this server does not have (its
    # own scorpion-cli it has: tests/sdk/test_cli_device.py): the terminal client says so and
    # logs in by password.
    status, out = terminal(
        "login", "--client-id", "no-such-app", "--email", email, lines=[PASSWORD]
    )
    assert status == 0, out
    assert "offers no device log-in for no-such-app" in out
    assert f"Logged in as {email}." in out

    offline = Terminal("http://127.0.0.1:9", tmp_path / "other")
    status, out = offline("play", lines=[])
    assert status == 1
    assert "Cannot reach http://127.0.0.1:9" in out
    assert len(sleeps) == 2  # the default policy tried twice more


def test_the_command_reads_standard_input(
    make_client: Callable[..., Scorpion], server_url: str, tmp_path: Path
) -> None:
    """The real entry point in a process of its own, moves typed on its standard input."""
    config = tmp_path / "token"
    player = make_client()
    assert player.token is not None
    TokenStore(config).set(server_url, player.token)  # as `scorpion login` leaves it
    env = {**os.environ, "SCORPION_CONFIG": str(config), "NO_COLOR": "1", "COLUMNS": "100"}
    play = subprocess.run(
        [sys.executable, "-m", "scorpion_client.cli", "--url", server_url, "play", "--seed", "3"],
        input="h\nd\nu\nq\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert play.returncode == 0, play.stdout + play.stderr
    assert "Hint: " in play.stdout or "No moves available" in play.stdout
    assert "undid: dealt " in play.stdout
    assert "version 2" in play.stdout
    assert "scorpion play --resume" in play.stdout
    assert player.games.list().results[0].version == 2


def test_password_from_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("a long password 42\n"))
    assert cli._read_password("Password: ") == "a long password 42"
    with pytest.raises(EOFError):
        cli._read_password("Password: ")


def test_parse_move() -> None:
    assert cli.parse_move("8h") == cli.Move("8H", None)
    assert cli.parse_move("10d") == cli.Move("TD", None)
    assert cli.parse_move(" KS  7 ") == cli.Move("KS", 6)
    # Ten columns and Three Blind Mice's reserve (picked from 11 and 12 on screen).
    assert cli.parse_move("kh 10") == cli.Move("KH", 9)
    assert cli.parse_move("8h from 3 lower") == cli.Move("8H", None, 2, "lower")
    assert cli.parse_move("8h 5 from 3 upper") == cli.Move("8H", 4, 2, "upper")
    assert cli.parse_move("8h lower") is None
    assert cli.parse_move("8h from 3") == cli.Move("8H", None, 2)
    assert cli.parse_move("kh 5 from 12") == cli.Move("KH", 4, 11)
    for text in ("kh 0", "kh 13", "kh x", "1z", "8h 2 3", "", "8h from 0", "8h from x"):
        assert cli.parse_move(text) is None


def test_chances_of_the_latest_game_in_play(terminal: Terminal) -> None:
    assert terminal("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    assert terminal("play", "--seed", "3", lines=["q"])[0] == 0
    status, out = terminal("chances", "last")
    assert status == 0, out
    assert "Winning chances in game" in out
    assert "%" in out
    assert "deals)" in out


def test_a_personal_access_token_in_the_environment_is_used_as_a_bearer_token(
    terminal: Terminal, make_client: Callable[..., Scorpion], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script runs the terminal client with a personal access token, as the SDK takes it:
    ``SCORPION_TOKEN`` with ``SCORPION_TOKEN_TYPE=bearer`` (the client used to send it as a
    session token whatever the type said: "Invalid token")."""
    player = make_client()
    player.games.create(code=WON_DEAL["code"])
    token = player.me.create_token("script", ["games:read", "stats:read"])["token"]
    monkeypatch.setenv("SCORPION_TOKEN", token)
    monkeypatch.setenv("SCORPION_TOKEN_TYPE", "bearer")
    status, out = terminal("games")
    assert status == 0, out
    assert "playing" in out
    status, out = terminal("stats")
    assert status == 0, out
    assert "played" in out
    status, out = terminal("logout")  # not "Logged out." while the token still works
    assert status == 1
    assert "The token comes from $SCORPION_TOKEN" in out
    assert player.me.tokens()  # still there
