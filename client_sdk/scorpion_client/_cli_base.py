"""What every command of the terminal client works with: the parsed arguments, the console,
how to read a line, the token file and the client; and finding a game by its id's start."""

from __future__ import annotations

import argparse
import contextlib
import uuid
from collections.abc import Callable

from rich.console import Console

from scorpion_client._cli_input import id_start_digits
from scorpion_client._sync import Scorpion
from scorpion_client.config import TokenStore

ReadLine = Callable[[str], str]


class CliError(Exception):
    """A mistake in what the player typed on the command line, said before any request."""


class CliBase:
    """The state the command mixins share (set by ``cli.Cli``)."""

    args: argparse.Namespace
    console: Console
    read_line: ReadLine
    read_password: ReadLine
    store: TokenStore
    url: str
    client: Scorpion

    def _game_id(self, typed: str) -> str:
        """A game's id as the player typed it: whole, or its first characters as the table's
        footer shows them ("game c52caf3a"), hyphens where the id has them or none. The
        server finds the game among the player's own (``id_prefix``), in one request."""
        text = typed.strip().lower()
        with contextlib.suppress(ValueError):
            return str(uuid.UUID(text))
        digits = id_start_digits(text)
        if digits is None or len(digits) < 4:
            raise CliError(f"{typed!r} is not a game id (scorpion games lists yours).")
        page = self.client.games.list(id_prefix=digits, page_size=2)
        if len(page.results) > 1:
            raise CliError(f"Several of your games start with {text}: give more of the id.")
        if not page.results:
            raise CliError(f"None of your games has an id starting with {text}.")
        return page.results[0].id
