"""The account commands: ``signup``, ``login`` (by the device flow, or ``--password``) and
``logout``."""

from __future__ import annotations

import contextlib
import os

from rich.markup import escape

from scorpion_client._cli_arguments import SCOPES
from scorpion_client._cli_base import CliBase
from scorpion_client._cli_texts import sentence_free
from scorpion_client.errors import (
    AuthenticationError,
    MethodNotAllowed,
    NotFound,
    OAuthError,
    ScorpionError,
)
from scorpion_client.oauth import DeviceAuthorization


class AccountCommands(CliBase):
    """``signup``, ``login`` and ``logout``: the token each gives goes to the token file."""

    def _credentials(self) -> tuple[str, str]:
        email = self.args.email or self.read_line("E-mail: ").strip()
        password = os.environ.get("SCORPION_PASSWORD") or self.read_password("Password: ")
        return email, password

    def signup(self) -> int:
        email, password = self._credentials()
        session = self.client.auth.signup(email, password)
        self.store.set(self.url, session.token)
        self.console.print(f"[green]Signed up and logged in as {session.email or email}.[/green]")
        return 0

    def login(self) -> int:
        if not self.args.password:
            status = self._device_login()
            if status is not None:
                return status
        return self._password_login()

    def _device_login(self) -> int | None:
        """Log in by the device flow (RFC 8628): the player allows the terminal client in a
        browser, where they are signed in, and types no password here. None when the server
        does not offer it (no OAuth provider, or no such app): log in by password then."""
        client_id = self.args.client_id
        try:
            device = self.client.oauth.device_code(client_id, SCOPES)
        except (NotFound, MethodNotAllowed) as exc:
            self.console.print(
                f"This server offers no device log-in (HTTP {exc.status}): "
                "log in with your password."
            )
            return None
        except OAuthError as exc:  # e.g. invalid_client: no such app on this server
            self.console.print(
                f"This server offers no device log-in for {escape(client_id)} "
                f"({escape(sentence_free(exc.message))}): log in with your password."
            )
            return None
        self._show_device_code(device)
        # The token, and each refresh of it (which spends the refresh token), goes to the file.
        self.client.credentials.on_refresh = lambda token: self.store.set_oauth(
            self.url, token, client_id
        )
        self.client.oauth.poll_device_token(device, client_id)
        who = ""
        with contextlib.suppress(ScorpionError):
            who = f" as {self.client.me.get().email}"
        self.console.print(f"[green]Logged in{escape(who)}.[/green]")
        return 0

    def _show_device_code(self, device: DeviceAuthorization) -> None:
        console = self.console
        console.print("To log in, open this page in a browser where you can sign in:")
        console.print(f"  {escape(device.verification_uri_complete or device.verification_uri)}")
        console.print(f"and check that it shows the code [bold]{escape(device.user_code)}[/bold].")
        console.print("Waiting for you to allow the terminal client... (Ctrl-C to stop)")

    def _password_login(self) -> int:
        email, password = self._credentials()
        session = self.client.auth.login(email, password)
        self.store.set(self.url, session.token)
        self.console.print(f"[green]Logged in as {session.email or email}.[/green]")
        return 0

    def logout(self) -> int:
        if self.store.entry(self.url) is None and os.environ.get("SCORPION_TOKEN"):
            # Not ours to end: a personal access token lives until revoked on the site, and
            # the environment keeps sending it (saying "Logged out." would be untrue).
            self.console.print(
                "The token comes from $SCORPION_TOKEN: unset it to stop using it, or revoke "
                "it on the site (Apps, Personal access tokens)."
            )
            return 1
        # A token that had already expired is logged out all the same.
        with contextlib.suppress(AuthenticationError):
            if self.client.token_type == "bearer":
                self.client.oauth.revoke()
            else:
                self.client.auth.logout()
        self.store.set(self.url, None)
        self.console.print("Logged out.")
        return 0
