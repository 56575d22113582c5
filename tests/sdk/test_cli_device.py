"""``scorpion login`` by the device flow, end to end: the real terminal client, with its
default app ``scorpion-cli`` (created by the migration accounts 0003), against the live server;
the player allows it on the real device page, in a browser where they are signed in."""

from __future__ import annotations

import functools
import importlib
import io
import json
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from allauth.idp.oidc.models import Client, Token
from django.apps import apps
from django.contrib.auth.models import User
from django.test import Client as BrowserClient
from rich.console import Console
from scorpion_client import OAuthError, Scorpion, cli

from tests.sdk.conftest import PASSWORD, fast_transport, new_email
from tests.sdk.test_cli import scripted

pytestmark = pytest.mark.django_db(transaction=True)

terminal_app_migration = importlib.import_module("accounts.migrations.0003_terminal_app")
social_scopes_migration = importlib.import_module(
    "social.migrations.0002_terminal_app_social_scopes"
)


@pytest.fixture(autouse=True)
def terminal_app() -> Client:
    """The app as the migration leaves it. (A transactional test before this one flushed the
    tables, the migration's rows with them: the migration's own function puts it back.)"""
    terminal_app_migration.create_terminal_app(apps, None)
    social_scopes_migration.add_scopes(apps, None)
    return Client.objects.get(id=cli.DEFAULT_CLIENT_ID)


class Terminal:
    """``scorpion`` with its output in ``out``, which the test reads as the player would."""

    def __init__(self, url: str, config: Path) -> None:
        self.url = url
        self.config = config
        self.out = io.StringIO()

    def __call__(self, *args: str, lines: Iterable[str] = ()) -> tuple[int, str]:
        self.out = io.StringIO()
        console = Console(file=self.out, width=200, color_system=None, highlight=False)
        status = cli.run(
            ["--url", self.url, "--config", str(self.config), *args],
            console=console,
            read_line=scripted(lines),
        )
        return status, self.out.getvalue()


@pytest.fixture
def terminal(server_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Terminal:
    monkeypatch.setattr(cli, "Scorpion", functools.partial(Scorpion, transport=fast_transport()))
    monkeypatch.delenv("SCORPION_CLIENT_ID", raising=False)
    return Terminal(server_url, tmp_path / "scorpion" / "token")


def signed_in_browser(email: str) -> BrowserClient:
    browser = BrowserClient(enforce_csrf_checks=True)
    browser.force_login(User.objects.get(email=email))
    return browser


class Player:
    """Reads the terminal, opens the page it names and allows the code, while the terminal
    client waits (its first wait between polls: no real time passes)."""

    def __init__(self, terminal: Terminal, email: str, action: str = "confirm") -> None:
        self.terminal = terminal
        self.email = email
        self.action = action
        self.waits: list[float] = []
        self.page = ""
        self.url = ""
        self.user_code = ""

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        if len(self.waits) > 1:
            return
        shown = self.terminal.out.getvalue()
        url = re.search(r"^  (http\S+)$", shown, re.MULTILINE)
        code = re.search(r"shows the code (\S+)\.$", shown, re.MULTILINE)
        assert url is not None, shown
        assert code is not None, shown
        self.url, self.user_code = url.group(1), code.group(1)
        parts = urlsplit(self.url)
        assert f"{parts.scheme}://{parts.netloc}" == self.terminal.url
        browser = signed_in_browser(self.email)
        page = browser.get(f"{parts.path}?{parts.query}")
        assert page.status_code == 200
        self.page = page.content.decode()
        answer = browser.post(
            f"{parts.path}?{parts.query}",
            {"action": self.action, "csrfmiddlewaretoken": str(page.context["csrf_token"])},
        )
        assert answer.status_code == 200, answer.content


def bearer_get(url: str, path: str, token: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=url, transport=fast_transport()) as http:
        return http.get(path, headers=headers)


def test_scorpion_login_by_the_device_flow_then_play_with_the_token(
    terminal: Terminal, make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    email = new_email()
    make_client(signed_up=False).auth.signup(email, PASSWORD)
    player = Player(terminal, email)
    monkeypatch.setattr("scorpion_client._sync._sleep", player)

    status, out = terminal("login")
    assert status == 0, out
    assert "offers no device log-in" not in out
    assert "open this page in a browser" in out
    assert player.url.endswith(f"/identity/o/device?code={player.user_code}")
    assert re.fullmatch(r"[A-Z0-9]{4}-[A-Z0-9]{4}", player.user_code), player.user_code
    assert f"Logged in as {email}." in out
    assert player.waits == [5.0]  # allowed before the first poll: one poll, tokens

    # The device page: the first-party app, named as such; consent asked, not skipped.
    assert "Scorpion terminal client</span> wants to use your Scorpion account" in player.page
    assert "Scorpion's own app" in player.page
    assert "not made by Scorpion" not in player.page
    assert player.user_code in player.page
    for label in ("Start games, play moves", "See your games", "See your statistics"):
        assert label in player.page

    # The token file: 0600, the OAuth token of scorpion-cli with a refresh token.
    assert stat.S_IMODE(terminal.config.stat().st_mode) == 0o600
    entry = json.loads(terminal.config.read_text())["tokens"][terminal.url]
    assert entry["type"] == "bearer"
    assert entry["client_id"] == "scorpion-cli"
    stored = entry
    assert stored["refresh_token"]
    assert set(stored["scope"].split()) == set(cli.SCOPES)

    # The next commands use it as a bearer token.
    status, out = terminal("play", "--seed", "5", lines=["d", "q"])
    assert status == 0, out
    assert "dealt " in out
    status, out = terminal("stats")
    assert status == 0, out
    assert "Statistics" in out
    status, out = terminal("games")
    assert status == 0, out
    assert "playing" in out
    access = stored["access_token"]
    assert bearer_get(terminal.url, "/api/v1/me/", access).json()["email"] == email

    # Only what was granted: the four scopes on the server's side too, and a first-party-only
    # call (the export of everything stored) is refused to the token.
    user = User.objects.get(email=email)
    issued = Token.objects.filter(user=user, client_id="scorpion-cli")
    assert {t.type for t in issued} == {Token.Type.ACCESS_TOKEN, Token.Type.REFRESH_TOKEN}
    for token in issued:
        assert set(token.get_scopes()) == set(cli.SCOPES)
    refused = bearer_get(terminal.url, "/api/v1/me/export/", access)
    assert refused.status_code == 403, refused.text

    # Logging out revokes the app's tokens on the server.
    status, out = terminal("logout")
    assert status == 0, out
    assert not Token.objects.filter(user=user, client_id="scorpion-cli").exists()
    assert bearer_get(terminal.url, "/api/v1/me/", access).status_code == 401


def test_a_denied_device_login_stores_nothing(
    terminal: Terminal, make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    email = new_email()
    make_client(signed_up=False).auth.signup(email, PASSWORD)
    player = Player(terminal, email, action="deny")
    monkeypatch.setattr("scorpion_client._sync._sleep", player)

    status, out = terminal("login")
    assert status == 1, out
    assert "Logged in" not in out
    assert not terminal.config.exists() or json.loads(terminal.config.read_text())["tokens"] == {}
    assert not Token.objects.filter(client_id="scorpion-cli").exists()


def test_the_terminal_app_gets_no_scope_beyond_its_four(make_client: Any) -> None:
    client = make_client(signed_up=False)
    with pytest.raises(OAuthError) as refused:
        client.oauth.device_code(cli.DEFAULT_CLIENT_ID, ["games:play", "email"])
    assert refused.value.code == "invalid_scope"
    # It cannot use the authorization code flow either (no grant, no redirect URI).
    with pytest.raises(OAuthError):
        client.oauth.exchange_code(
            "any-code",
            code_verifier="v" * 43,
            redirect_uri="http://127.0.0.1:8123/callback",
            client_id=cli.DEFAULT_CLIENT_ID,
        )
