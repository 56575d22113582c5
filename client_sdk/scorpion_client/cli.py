"""``scorpion``: play Scorpion Solitaire in the terminal against any Scorpion server.

    scorpion signup | login [--password] | logout
    scorpion play [--random | --seed N | --code CODE | --pysol N | --daily | --winnable
                   | --resume | --game ID
                   | --daily-date YYYY-MM-DD] [--difficulty easy|medium|hard]
    scorpion games [--status S]
    scorpion stats | achievements | calendar [YYYY-MM]

In a game, type a card to move it (``8h``; ``10h`` or ``th`` for the ten), a King and a column
number to pick an empty column (``kh 5``; columns are numbered 1-7 on screen, 1-10 in the
ten-column games), ``d`` to deal,
``u`` undo, ``r`` redo, ``h`` hint, ``restart``, ``resign``, ``q`` to quit (the game stays on
the server: ``scorpion play --resume``). The table follows the game live: a move made on
another device (the browser, another terminal) is drawn at once (``--no-follow`` to stop that).
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.text import Text

# The names marked noqa stay importable from here as they were before the terminal client was
# split into its _cli_* modules (the app and scopes of the device log-in, the parser, ...).
from scorpion_client import cli_social
from scorpion_client._cli_account import AccountCommands
from scorpion_client._cli_arguments import (  # noqa: F401
    DEFAULT_CLIENT_ID,
    SCOPES,
    VARIANTS,
    build_parser,
    parse_arguments,
)
from scorpion_client._cli_base import CliError, ReadLine
from scorpion_client._cli_input import MAX_COLUMNS, Move, parse_move  # noqa: F401
from scorpion_client._cli_play import (
    HELP,  # noqa: F401
    PlayCommands,
)
from scorpion_client._cli_reports import ReportCommands
from scorpion_client._cli_texts import error_line, error_text
from scorpion_client._sync import Scorpion
from scorpion_client.config import StoredToken, TokenStore
from scorpion_client.errors import AuthenticationError, ScorpionError, TransportError

__all__ = ["main", "parse_move", "run"]


class Cli(AccountCommands, ReportCommands, PlayCommands):
    """The terminal client: the commands of its mixins (accounts, reports, play), on one
    client made from the token file's entry for the server."""

    def __init__(
        self,
        args: argparse.Namespace,
        console: Console,
        read_line: ReadLine,
        read_password: ReadLine,
    ) -> None:
        self.args = args
        self.console = console
        self.read_line = read_line
        self.read_password = read_password
        self.store = TokenStore(Path(args.config) if args.config else None)
        self.url: str = args.url
        self.client = self._client(self.store.entry(self.url))

    def _client(self, entry: StoredToken | None) -> Scorpion:
        # ``Scorpion`` is looked up in this module, where a program or a test may replace it.
        if entry is not None and entry.oauth is not None and entry.client_id:
            client_id = entry.client_id
            return Scorpion(
                self.url,
                token=entry.oauth,
                client_id=client_id,
                on_token_refresh=lambda token: self.store.set_oauth(self.url, token, client_id),
            )
        if entry is None:
            # Nothing kept for this server: the SDK's own default, ``$SCORPION_TOKEN`` sent as
            # ``$SCORPION_TOKEN_TYPE`` says (a script's personal access token: ``bearer``).
            return Scorpion(self.url)
        return Scorpion(self.url, token=entry.session, token_type="session")


def terminal_reader(console: Console) -> ReadLine:
    """Reads a line after showing ``prompt`` as plain text (not rich markup, which would
    take "[y/N]" for a style and print nothing of it)."""
    return lambda prompt: console.input(Text(prompt))


def _read_password(prompt: str) -> str:
    if sys.stdin.isatty():
        return getpass.getpass(prompt)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def run(
    argv: Sequence[str] | None = None,
    *,
    console: Console | None = None,
    read_line: ReadLine | None = None,
    read_password: ReadLine | None = None,
) -> int:
    """Run the ``scorpion`` command; returns the exit status. ``read_line`` and
    ``read_password`` (default: the terminal) let a program or a test drive it."""
    args = parse_arguments(argv)
    console = console or Console(highlight=False)
    cli = Cli(
        args,
        console,
        read_line or terminal_reader(console),
        read_password or read_line or _read_password,
    )
    handlers = {
        "signup": cli.signup,
        "login": cli.login,
        "logout": cli.logout,
        "play": cli.play,
        "new": cli.play,
        "games": cli.games,
        "stats": cli.stats,
        "achievements": cli.achievements,
        "calendar": cli.calendar,
        "analyse": cli.analyse,
        "analyze": cli.analyse,
        "chances": cli.chances,
        "challenge": lambda: cli_social.challenge(cli),
        "friends": lambda: cli_social.friends(cli),
    }
    try:
        return handlers[args.command]()
    except AuthenticationError as exc:
        hint = "" if args.command in ("login", "signup") else " To log in again: scorpion login"
        console.print(f"[red]{escape(error_text(exc))}[/red]{hint}")
        return 1
    except TransportError as exc:
        console.print(f"[red]Cannot reach {escape(args.url)}: {escape(exc.message)}[/red]")
        return 1
    except ScorpionError as exc:
        console.print(error_line(exc))
        return 1
    except CliError as exc:
        console.print(f"[red]{escape(str(exc))}[/red]")
        return 1
    except (EOFError, KeyboardInterrupt):
        console.print()
        return 130
    finally:
        cli.client.close()


def main(argv: Sequence[str] | None = None) -> int:
    """The console script."""
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
