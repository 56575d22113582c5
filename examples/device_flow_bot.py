#!/usr/bin/env python3
"""A small Scorpion bot: it logs in by the OAuth 2 device flow and plays a line of moves.

Python 3.11+ and its standard library only, so it runs anywhere. Register a *public* app on
the site first (/developers/apps/), then:

    python examples/device_flow_bot.py --server https://scorpion.example --client-id ID

The bot asks for the ``games:play`` scope only: it can start games and play them for you,
and nothing else (not your history, statistics or account). It prints a link and a code;
open the link, check the code, allow the bot. It then starts the deal of the line file
(``--line``, by default the winning line of seed 5 next to this file) and plays it. Tokens
are kept in memory only; revoke the bot at any time under "Your apps" on the site.

docs/third-party.md walks through the same steps with curl.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
DEFAULT_LINE = Path(__file__).with_name("seed-5.json")


# What the token endpoint's error words mean (RFC 6749 5.2, RFC 8628 3.5), for answers that
# carry no description of their own.
OAUTH_ERRORS = {
    "access_denied": "You did not allow the bot (Deny on the device page).",
    "expired_token": "The code expired before anyone allowed the bot: run the bot again.",
    "invalid_grant": "The bot's access is no longer valid (used, expired or revoked): run the "
    "bot again to allow it anew.",
    "invalid_client": "The server does not know this client id, or the app is suspended.",
    "unauthorized_client": "This app may not use the device flow: register a public app.",
    "invalid_scope": "The server does not grant the scope the bot asks for.",
}


def describe(status: int, body: dict[str, Any]) -> str:
    """An error answer as a sentence: the API's problem ``detail``, the OAuth endpoint's
    ``error_description``, or what its ``error`` word means."""
    if body.get("detail"):
        return str(body["detail"])
    word = str(body.get("error", ""))
    description = str(body.get("error_description") or "")
    if description and description != word:
        return description
    return OAUTH_ERRORS.get(word, f"The server answered {status} ({word or body}).")


class ApiError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(describe(status, body))
        self.status = status
        self.body = body


def http(
    method: str,
    url: str,
    *,
    form: dict[str, str] | None = None,
    json_body: Any = None,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """One request; the JSON answer, or ApiError with the JSON problem or OAuth error."""
    data = None
    headers = {
        "Accept": "application/json",
        "User-Agent": "scorpion-example-bot/1",
        **(headers or {}),
    }
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif json_body is not None:
        data = json.dumps(json_body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
            return json.loads(body) if body else {}
    except urllib.error.HTTPError as error:
        body = error.read()
        try:
            parsed = json.loads(body) if body else {}
        except ValueError:
            parsed = {"detail": body.decode(errors="replace")[:200]}
        raise ApiError(error.code, parsed) from None


class Session:
    """The bot's tokens, and authorised calls that refresh the access token when it expires."""

    def __init__(self, server: str, client_id: str) -> None:
        self.server = server.rstrip("/")
        self.client_id = client_id
        self.access_token = ""
        self.refresh_token = ""

    def log_in(self, scope: str) -> None:
        """The device flow (RFC 8628): get a code, show it, poll until the player answers."""
        start = http(
            "POST",
            f"{self.server}/identity/o/api/device/code",
            form={"client_id": self.client_id, "scope": scope},
        )
        print(
            f"To let this bot play for you, open {start['verification_uri_complete']}\n"
            f"(or {start['verification_uri']} and enter the code {start['user_code']}).",
            flush=True,
        )
        interval = int(start.get("interval", 5))
        deadline = time.monotonic() + int(start["expires_in"])
        while time.monotonic() < deadline:
            time.sleep(interval)
            try:
                tokens = http(
                    "POST",
                    f"{self.server}/identity/o/api/token",
                    form={
                        "grant_type": DEVICE_GRANT,
                        "device_code": start["device_code"],
                        "client_id": self.client_id,
                    },
                )
            except ApiError as error:
                code = error.body.get("error")
                if code == "authorization_pending":
                    continue
                if code == "slow_down":
                    interval += 5  # RFC 8628, section 3.5
                    continue
                raise  # access_denied, expired_token, ...
            self._keep(tokens)
            print(f"Allowed: {tokens['scope']}", flush=True)
            return
        raise SystemExit("The code expired before anyone allowed the bot.")

    def _keep(self, tokens: dict[str, Any]) -> None:
        self.access_token = tokens["access_token"]
        # Refresh tokens rotate: each refresh answers a new one and spends the old.
        self.refresh_token = tokens.get("refresh_token", self.refresh_token)

    def _refresh(self) -> None:
        tokens = http(
            "POST",
            f"{self.server}/identity/o/api/token",
            form={
                "grant_type": "refresh_token",
                "refresh_token": self.refresh_token,
                "client_id": self.client_id,
            },
        )
        self._keep(tokens)

    def api(self, method: str, path: str, body: Any = None, **headers: str) -> dict[str, Any]:
        """A call of the game API; on a 401 (an expired access token), one refresh and retry.
        A 401 after that means the player revoked the bot (or staff suspended it)."""
        for attempt in (1, 2):
            try:
                return http(
                    method,
                    f"{self.server}/api/v1/{path}",
                    json_body=body,
                    headers={"Authorization": f"Bearer {self.access_token}", **headers},
                )
            except ApiError as error:
                if error.status != 401 or attempt == 2 or not self.refresh_token:
                    raise
                self._refresh()
        raise AssertionError("unreachable")


def play(session: Session, seed: int, line: list[dict[str, Any]]) -> dict[str, Any]:
    """Start the deal of ``seed`` and play ``line``. Each write carries an Idempotency-Key, so
    a retry after a lost answer is applied once (the API deduplicates)."""
    game = session.api("POST", "games/", {"seed": seed}, **{"Idempotency-Key": str(uuid.uuid4())})
    print(f"Game {game['id']}: seed {seed}, {len(line)} commands to play", flush=True)
    for number, command in enumerate(line, 1):
        game = session.api(
            "POST",
            f"games/{game['id']}/commands/",
            command,
            **{"Idempotency-Key": f"{game['id']}-{number}"},
        )
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True, help="e.g. https://scorpion.example")
    parser.add_argument("--client-id", required=True, help="your public app's client id")
    parser.add_argument("--line", type=Path, default=DEFAULT_LINE, help="a JSON line file")
    args = parser.parse_args(argv)
    plan = json.loads(args.line.read_text())

    session = Session(args.server, args.client_id)
    try:
        session.log_in("games:play")
        game = play(session, plan["seed"], plan["line"])
    except ApiError as error:
        print(f"Stopped: {error}", file=sys.stderr)
        return 1
    print(f"Game {game['id']} is {game['status']} after {game['moves']} moves.", flush=True)
    return 0 if game["status"] == "won" else 1


if __name__ == "__main__":
    sys.exit(main())
