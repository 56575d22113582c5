"""The example bot (examples/device_flow_bot.py) logs in by the device flow against a live
server, a player approves it on the device page as in a browser, and the bot wins its game."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from games.engine.actions import DEAL, Action
from games.engine.cards import parse_card
from games.engine.deals import deal_code_for_seed
from games.engine.legal import status
from games.engine.position import deal_position
from games.engine.resolve import resolve_move
from games.engine.transitions import play

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "examples" / "device_flow_bot.py"
LINE = ROOT / "examples" / "seed-5.json"
PASSWORD = "a long password 42"


def test_the_example_line_wins_its_deal() -> None:
    plan = json.loads(LINE.read_text())
    position = deal_position(deal_code_for_seed(plan["seed"]))
    for command in plan["line"]:
        action: Action = (
            DEAL
            if command["type"] == "deal"
            else resolve_move(position, parse_card(command["card"]), command["to"])
        )
        position, _ = play(position, action)
    assert status(position) == "won"


@pytest.fixture
def live(live_server: Any, settings: Any) -> str:
    # The live server speaks plain HTTP: its cookies cannot be HTTPS-only.
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False
    settings.IDP_OIDC_DEVICE_CODE_INTERVAL = 1  # the bot polls at the pace the server sets
    return str(live_server.url)


def signed_in_browser(server: str, email: str) -> httpx.Client:
    """A player's browser: signed up through allauth's browser API, with its cookies."""
    # One connection per request: a kept-alive one would hold the live server's request
    # thread, and its database connection, open after the test (tests that count the
    # database's connections, such as tests/streams, would see it).
    browser = httpx.Client(
        base_url=server, follow_redirects=False, timeout=30, headers={"Connection": "close"}
    )
    browser.get("/")
    answer = browser.post(
        "/_allauth/browser/v1/auth/signup",
        json={"email": email, "password": PASSWORD},
        headers={"X-CSRFToken": browser.cookies["csrftoken"]},
    )
    assert answer.status_code == 200, answer.text
    return browser


def form_csrf(html: str) -> str:
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert match, html
    return match.group(1)


def register_on_the_site(server: str) -> str:
    """A developer registers a public app on the site's page; answers its client id."""
    developer = signed_in_browser(server, "developer@example.com")
    form = developer.get("/developers/apps/new/").text
    page = developer.post(
        "/developers/apps/new/",
        data={
            "name": "Example Bot",
            "kind": "public",
            "app_kind": "bot",
            "redirect_uris": "",
            "csrfmiddlewaretoken": form_csrf(form),
        },
        headers={"Referer": f"{server}/developers/apps/new/"},
    )
    assert page.status_code == 201, page.text
    client_id = re.search(r'<code id="client-id">([0-9a-f]+)</code>', page.text)
    assert client_id, page.text
    return client_id.group(1)


@pytest.fixture
def bot_process(live: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    client_id = register_on_the_site(live)
    process = subprocess.Popen(
        [sys.executable, str(BOT), "--server", live, "--client-id", client_id],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    yield process, client_id
    if process.poll() is None:
        process.kill()
    process.wait(10)


@pytest.mark.django_db(transaction=True)
def test_the_example_bot_logs_in_by_the_device_flow_and_wins(
    live: str, bot_process: tuple[subprocess.Popen[str], str]
) -> None:
    process, client_id = bot_process
    assert process.stdout is not None
    first = process.stdout.readline() + process.stdout.readline()
    match = re.search(r"open (\S+)\n\(or (\S+) and enter the code (\S+)\)", first)
    assert match, first + (process.stderr.read() if process.stderr else "")
    complete_uri, _, user_code = match.groups()
    assert complete_uri.startswith(live)

    # The player opens the link in their browser, checks the code and allows the bot.
    browser = signed_in_browser(live, "bot-owner@example.com")
    page = browser.get(complete_uri.removeprefix(live))
    assert page.status_code == 200, page.text
    assert user_code in page.text
    assert "Example Bot" in page.text
    assert "Start games, play moves and ask for hints in your name" in page.text
    allowed = browser.post(
        complete_uri.removeprefix(live),
        data={"action": "confirm", "csrfmiddlewaretoken": form_csrf(page.text)},
        headers={"Referer": complete_uri},
    )
    assert "Example Bot is connected" in allowed.text

    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, out + err
    assert "Allowed: games:play" in out
    won = re.search(r"Game (\S+) is won after (\d+) moves\.", out)
    assert won, out

    # The game is the player's, and won; the bot could do nothing else with its token.
    from games.models import Game

    game = Game.objects.get(pk=won.group(1))
    assert game.owner.email == "bot-owner@example.com"
    assert game.status == "won"
    assert game.seed == 5
    assert int(won.group(2)) == len(json.loads(LINE.read_text())["line"])
    apps = browser.get("/account/apps/").text
    assert "Example Bot" in apps
    assert client_id in apps


def test_the_bot_says_an_oauth_refusal_in_a_sentence() -> None:
    """Before: "Stopped: 400: access_denied" (the server's answer has no description)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("device_flow_bot", BOT)
    assert spec is not None
    assert spec.loader is not None
    bot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bot)
    denied = str(bot.ApiError(400, {"error": "access_denied"}))
    assert denied == "You did not allow the bot (Deny on the device page)."
    spent = str(bot.ApiError(400, {"error": "invalid_grant", "error_description": "invalid_grant"}))
    assert spent.startswith("The bot's access is no longer valid")
    own = {"error": "invalid_grant", "error_description": "This refresh token was used before."}
    assert str(bot.ApiError(400, own)) == "This refresh token was used before."
    problem = {"code": "insufficient_scope", "detail": "This needs the scope games:read."}
    assert str(bot.ApiError(403, problem)) == "This needs the scope games:read."
