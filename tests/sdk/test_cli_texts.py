"""The terminal client's texts and log-in, without a server: columns 1-7 in server texts,
plain-text prompts, one full stop, readable black suits, rich only with the [cli] extra, the
device log-in (against the fake provider of test_oauth) and the token file's permissions."""

from __future__ import annotations

import builtins
import functools
import importlib.util
import io
import json
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.console import Console
from scorpion_client import Scorpion, _entry, cli
from scorpion_client.config import TokenStore
from scorpion_client.models import ActionChance, Chances, HintMove, Hints
from scorpion_client.oauth import OAuthToken
from scorpion_client.render import (
    card_text,
    player_text,
    problem_text,
    render_chances,
    render_hints,
    sentence,
)

from tests.sdk import test_oauth
from tests.sdk.test_oauth import CLIENT_ID, FakeProvider


def test_server_texts_count_columns_from_1() -> None:
    assert player_text("KS can only go to an empty column, and column 0 is not empty") == (
        "KS can only go to an empty column, and column 1 is not empty"
    )
    assert player_text("2C is already in column 6") == "2C is already in column 7"
    assert player_text("moves KH into empty column 3 with 4 cards") == (
        "moves KH into empty column 4 with 4 cards"
    )
    assert player_text("columns 0") == "columns 1"
    assert player_text("dealt onto columns 0, 1 and 2") == "dealt onto columns 1, 2 and 3"
    assert player_text("a King into columns 3-6") == "a King into columns 4-7"
    assert player_text("column 6, then 5 cards") == "column 7, then 5 cards"
    assert player_text("7 cards") == "7 cards"  # only column numbers change

    hints = Hints(
        version=3,
        moves=[HintMove(card="KH", to=2, reason="turns a face-down card in column 0 face up")],
        deal=False,
    )
    out = io.StringIO()
    Console(file=out, color_system=None, width=100).print(render_hints(hints))
    assert "column 3" in out.getvalue()  # to=2, on screen 3
    assert "in column 1 face up" in out.getvalue()


def test_a_problem_is_one_sentence_and_structured_details_win() -> None:
    assert sentence("Not correct.") == "Not correct."
    assert sentence("not correct") == "not correct."
    assert sentence("Really?") == "Really?"
    body = {"code": "illegal_move", "detail": "KS cannot go to column 2."}
    assert problem_text(body, "fallback") == "KS cannot go to column 3."
    worded = {**body, "details": {"message": "The king of spades needs an empty column."}}
    assert problem_text(worded, "fallback") == "The king of spades needs an empty column."
    assert problem_text({"details": {"card": "KS"}}, "no detail") == "no detail."


def test_black_suits_use_the_terminals_own_colour() -> None:
    for card in ("8S", "KC"):
        style = str(card_text(card).style)
        assert "white" not in style
        assert style == "bold"
    assert str(card_text("8H").style) == "bold red"


def test_the_resign_prompt_shows_its_brackets(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    console = Console(file=out, color_system=None, width=100)
    monkeypatch.setattr(builtins, "input", lambda *args: "n")
    assert cli.terminal_reader(console)("Resign this game? [y/N] ") == "n"
    assert "Resign this game? [y/N]" in out.getvalue()


def test_without_rich_the_command_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "rich" else real(name, *a)
    )
    assert _entry.main(["play"]) == 1
    assert "pip install 'scorpion-client[cli]'" in capsys.readouterr().err


def test_the_sdk_imports_without_rich() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['rich'] = None\n"
        "import scorpion_client\n"
        "from scorpion_client import Scorpion, AsyncScorpion\n"
        "print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "ok", done.stderr


def run_cli(config: Path, *args: str, lines: tuple[str, ...] = ()) -> tuple[int, str]:
    pending = iter(lines)

    def read_line(prompt: str) -> str:
        try:
            return next(pending)
        except StopIteration:
            raise EOFError from None

    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, highlight=False)
    status = cli.run(
        ["--url", "http://test", "--config", str(config), *args],
        console=console,
        read_line=read_line,
    )
    return status, out.getvalue()


def test_login_by_the_device_flow_keeps_and_refreshes_the_token_then_logs_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    provider = FakeProvider(["authorization_pending", "ok"], expires_in=10)  # expires at once
    monkeypatch.setattr(
        cli, "Scorpion", functools.partial(Scorpion, transport=httpx.MockTransport(provider))
    )
    config = tmp_path / "scorpion" / "token"

    status, out = run_cli(config, "login", "--client-id", CLIENT_ID)
    assert status == 0, out
    assert "http://test/identity/o/device?code=HLNM-RCQK" in out
    assert "HLNM-RCQK" in out
    assert "Logged in as ada@example.com." in out
    assert sleeps == [5.0, 5.0]
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert stat.S_IMODE(config.parent.stat().st_mode) == 0o700
    # The refresh made by `me.get()` above (the token lives 10 s, under the 30 s margin)
    # rotated the refresh token: the file keeps the new one.
    entry = json.loads(config.read_text())["tokens"]["http://test"]
    assert entry["type"] == "bearer"
    assert entry["client_id"] == CLIENT_ID
    assert entry["refresh_token"] == f"refresh-{provider.issued}"
    assert TokenStore(config).entry("http://test") is not None

    status, out = run_cli(config, "logout")
    assert status == 0, out
    assert provider.revoked == [entry["refresh_token"]]
    assert json.loads(config.read_text())["tokens"] == {}


def test_a_refused_device_login_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    provider = FakeProvider(["access_denied"])
    monkeypatch.setattr(
        cli, "Scorpion", functools.partial(Scorpion, transport=httpx.MockTransport(provider))
    )
    status, out = run_cli(tmp_path / "token", "login", "--client-id", CLIENT_ID)
    assert status == 1
    assert out.splitlines()[-1] == "access_denied (test)."  # one full stop


def test_an_unknown_app_falls_back_to_the_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = FakeProvider()
    monkeypatch.setattr(
        cli, "Scorpion", functools.partial(Scorpion, transport=httpx.MockTransport(provider))
    )
    lines = ("ada@example.com", "pw")
    status, out = run_cli(tmp_path / "token", "login", "--client-id", "other-app", lines=lines)
    said = " ".join(out.split())
    assert "offers no device log-in for other-app (invalid_client (test))" in said
    assert "log in with your password." in said
    # The fake has no allauth: the password log-in that follows is tried, and fails.
    assert [r.url.path for r in provider.requests][-1] == "/_allauth/app/v1/auth/login"
    assert status == 1


def test_the_token_directory_is_closed_to_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SCORPION_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    directory = tmp_path / "scorpion"
    directory.mkdir(mode=0o755)
    directory.chmod(0o755)
    store = TokenStore()
    assert store.path == directory / "token"
    store.set("http://a", "t")
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700  # our own directory, closed again
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    store.path.chmod(0o644)
    store.set("http://b", "u")
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


def test_the_help_numbers_the_columns_of_the_ten_column_games_too() -> None:
    epilog = " ".join((cli.build_parser().epilog or "").split())
    assert "columns 1-7 on screen, 1-10 in the ten-column games" in epilog
    assert "8h from 3" in epilog


def test_a_hints_reason_shows_its_cards_as_the_table_does() -> None:
    # Before: "(puts 9H on TH)", card codes, beside a hint card drawn "8♥".
    hints = Hints(
        version=3,
        moves=[
            HintMove(card="9H", to=4, reason="puts 9H on TH"),
            HintMove(card="KS", to=0, reason="moves KS into empty column 0 with 4 cards"),
            HintMove(card="5C", to=2, reason="frees AD, which can then move; empties column 6"),
        ],
        deal=False,
    )
    rendered = render_hints(hints)
    lines = rendered.plain.splitlines()
    assert lines[0] == "Hint: 9♥ → column 5  (puts 9♥ on T♥)"
    assert lines[1] == "Hint: K♠ → column 1  (moves K♠ into empty column 1 with 4 cards)"
    assert lines[2] == "Hint: 5♣ → column 3  (frees A♦, which can then move; empties column 7)"
    # Each card of a reason in its colour, as card_text draws it; the words stay dim.
    styles = {rendered.plain[span.start : span.end]: str(span.style) for span in rendered.spans}
    assert styles["T♥"] == "bold red"
    assert styles["A♦"] == "bold red"
    assert styles["K♠"] == "bold"
    assert "dim" in {str(span.style) for span in rendered.spans}


def test_a_refused_moves_message_shows_its_cards_as_the_table_does() -> None:
    # Before: "8H can only go on the exposed 9H, and column 3's top card is 4C", card codes.
    from scorpion_client.errors import RuleError

    detail = "8H can only go on the exposed 9H, and column 2's top card is 4C"
    refused = RuleError(
        detail, status=422, code="illegal_move", detail=detail, body={"detail": detail}
    )
    line = cli.error_line(refused)
    assert line.plain == "8♥ can only go on the exposed 9♥, and column 3's top card is 4♣."
    styles = {line.plain[span.start : span.end]: str(span.style) for span in line.spans}
    assert styles["9♥"] == "bold red"
    assert styles["4♣"] == "bold"
    assert str(line.style) == "red"  # the words stay red, as every error line


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (("login", "--client-id", CLIENT_ID), "The player did not allow the app"),
        (("stats",), "The log-in is no longer valid"),
    ],
)
def test_an_oauth_refusal_without_a_description_is_a_sentence(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sleeps: list[float],
    command: tuple[str, ...],
    said: str,
) -> None:
    """Before: "access_denied." and "invalid_grant. Run: scorpion login" (allauth's answers
    carry no description)."""
    monkeypatch.setattr(
        test_oauth,
        "oauth_error",
        lambda error, status=400: httpx.Response(status, json={"error": error}),
    )
    provider = FakeProvider(["access_denied"])
    monkeypatch.setattr(
        cli, "Scorpion", functools.partial(Scorpion, transport=httpx.MockTransport(provider))
    )
    config = tmp_path / "token"
    spent = OAuthToken("access-0", expires_at=0, refresh_token="spent", scope="games:play")
    TokenStore(config).set_oauth("http://test", spent, CLIENT_ID)
    status, out = run_cli(config, *command)
    said_last = " ".join(out.strip().splitlines()[-2:])
    assert status == 1
    assert said in said_last, out
    assert "access_denied" not in out
    assert "invalid_grant" not in out


def test_a_winning_chance_says_it_assumes_every_card_known() -> None:
    """As the web client says it: the chance of a solver that sees every card, not the
    player's odds (docs/api.md, "Winning chances")."""

    def action(wins: int, low: float, high: float, **move: Any) -> ActionChance:
        return ActionChance(
            type="move" if move else "deal", chance=wins / 200, low=low, high=high, wins=wins,
            losses=200 - wins, undecided=0, samples=200, **move,
        )  # fmt: skip

    move = action(68, 0.28, 0.41, card="QD", to=2, from_=4)
    deal = action(42, 0.16, 0.27)
    ready = Chances(status="ready", game="g", version=3, samples=200, actions=[move, deal])
    lines = render_chances(ready).plain.splitlines()
    assert lines[0].startswith("Chance of winning after each move, if every card were known")
    assert "you win less often" in lines[0]
    assert lines[1] == "Chance: Q♦ → column 3: 34% (28%-41%, 200 deals)"
    assert lines[2] == "Chance: deal the stock: 21% (16%-27%, 200 deals)"
    pending = Chances(status="pending", game="g", version=3, retry_after=2)
    assert "still computing" in render_chances(pending).plain
    assert "c chances (if every card were known)" in " ".join(
        (cli.build_parser().epilog or "").split()
    )
