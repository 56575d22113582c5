"""The terminal client's command line: its commands and options, parsed and checked."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import get_args

from scorpion_client import cli_social
from scorpion_client._core import DEFAULT_BASE_URL
from scorpion_client.models import Variant

# The terminal client's OAuth app: a public client (no secret) that logs in by the device
# flow. ``--client-id`` or ``$SCORPION_CLIENT_ID`` name another one.
DEFAULT_CLIENT_ID = "scorpion-cli"
SCOPES = (
    "games:play",
    "games:read",
    "stats:read",
    "account:read",
    "social:read",
    "social:write",
)


# The variants a new game may be in: double-scorpion-3-2 is kept for the games begun in it.
VARIANTS: tuple[str, ...] = tuple(
    name for name in get_args(Variant) if name != "double-scorpion-3-2"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scorpion",
        description="Play Scorpion Solitaire in the terminal.",
        epilog="In a game: a card (8h) moves it; kh 5 moves a King to column 5 (columns "
        "1-7 on screen, 1-10 in the ten-column games; 8h from 3 names the copy in two decks); "
        "d deal, u undo, r redo, h hint, c chances (if every card were known), restart, "
        "resign, q quit.",
    )
    parser.add_argument(
        "--url",
        default=os.environ.get("SCORPION_URL", DEFAULT_BASE_URL),
        help="the server (default: $SCORPION_URL or %(default)s)",
    )
    parser.add_argument(
        "--config",
        default=None,
        help="the token file (default: $SCORPION_CONFIG or ~/.config/scorpion/token)",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    signup = commands.add_parser("signup", help="create an account")
    signup.add_argument("--email", help="asked for when not given")
    login = commands.add_parser(
        "login", help="log in: in a browser (the device flow), or --password here"
    )
    login.add_argument(
        "--password",
        action="store_true",
        help="log in with your e-mail address and password, typed here",
    )
    login.add_argument("--email", help="with --password: asked for when not given")
    login.add_argument(
        "--client-id",
        default=os.environ.get("SCORPION_CLIENT_ID") or DEFAULT_CLIENT_ID,
        help="the OAuth app of the device log-in (default: $SCORPION_CLIENT_ID or %(default)s)",
    )
    commands.add_parser("logout", help="log out")
    play = commands.add_parser(
        "play", aliases=["new"], help="play a game (a new random one by default)"
    )
    choice = play.add_mutually_exclusive_group()
    choice.add_argument("--random", action="store_true", help="a random deal (the default)")
    choice.add_argument("--seed", type=int, help="the deal of a seed")
    choice.add_argument("--code", help="a deal code (104 characters)")
    choice.add_argument("--pysol", type=int, metavar="N", help="PySolFC's game number N")
    choice.add_argument("--daily", action="store_true", help="today's daily challenge")
    choice.add_argument(
        "--daily-date",
        metavar="YYYY-MM-DD",
        help="a past day's daily challenge, played late (practice: it never ranks)",
    )
    choice.add_argument("--winnable", action="store_true", help="a deal proven winnable")
    choice.add_argument("--resume", action="store_true", help="your latest unfinished game")
    choice.add_argument(
        "--game", metavar="ID", help="the game with this id (or its first characters)"
    )
    play.add_argument(
        "--variant",
        choices=list(VARIANTS),
        help="the game of the Scorpion family for a new game (default scorpion; the daily "
        "and winnable deals are Scorpion only)",
    )
    play.add_argument(
        "--difficulty",
        choices=["easy", "medium", "hard"],
        help="a winnable deal of this difficulty band (implies --winnable)",
    )
    play.add_argument(
        "--no-follow",
        action="store_true",
        help="do not draw moves made on other devices as they happen",
    )
    games = commands.add_parser("games", help="list your games")
    games.add_argument("--status", choices=["playing", "stuck", "won", "resigned", "abandoned"])
    games.add_argument("--limit", type=int, default=20)
    commands.add_parser("stats", help="your statistics")
    commands.add_parser("achievements", help="your achievements and monthly badges")
    month = commands.add_parser(
        "calendar", help="a month of your daily challenges: results, streak, badge"
    )
    month.add_argument("month", nargs="?", metavar="YYYY-MM", help="default: this month (UTC)")
    for name, aliases, help_text, last in (
        (
            "analyse",
            ["analyze"],
            "a finished game's analysis: could it be won, where it turned, a winning line",
            "latest finished",
        ),
        (
            "chances",
            [],
            "the winning chance of each move of a game in play (counts as a hint)",
            "your latest game in play",
        ),
    ):
        command = commands.add_parser(name, aliases=aliases, help=help_text)
        command.add_argument(
            "game",
            metavar="GAME",
            help=f"the game's id (or its first characters), or 'last' ({last})",
        )
        command.add_argument(
            "--wait", type=float, default=60.0, help="seconds to wait for a worker (default 60)"
        )
    cli_social.add_parsers(commands)
    return parser


# The deal choices --difficulty cannot go with (it picks a winnable deal).
_OTHER_DEALS = ("random", "seed", "code", "pysol", "daily", "daily_date", "resume", "game")


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line read, or the usage and exit status 2 (argparse's) for a wrong one."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "difficulty", None) and any(
        getattr(args, name, None) not in (None, False) for name in _OTHER_DEALS
    ):
        parser.error("--difficulty chooses a winnable deal: it goes with --winnable only")
    return args
