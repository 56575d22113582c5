"""The terminal client's ``challenge`` and ``friends`` commands (docs/api.md, "Playing
together"): a challenge made from a finished game, opened and played in the terminal, its board
shown once your game of it is over; friends asked by name or invite, accepted, removed, blocked,
and the friends' daily board."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table

from scorpion_client.render import format_duration

if TYPE_CHECKING:
    from scorpion_client.cli import Cli


def add_parsers(commands: Any) -> None:
    challenge = commands.add_parser("challenge", help="challenge a friend on a deal you played")
    actions = challenge.add_subparsers(dest="action", required=True)
    make = actions.add_parser("make", help="a challenge link from one of your finished games")
    make.add_argument("game", metavar="GAME", help="the game's id (or its first characters)")
    for name, help_text in (
        ("play", "play a challenge (its link or id) in the terminal"),
        ("show", "a challenge and, once you have played it, its board"),
        ("close", "close a challenge of yours: nobody new may play it"),
    ):
        action = actions.add_parser(name, help=help_text)
        action.add_argument("challenge", metavar="LINK", help="the challenge's link or id")
    actions.add_parser("list", help="the challenges you made and played")

    friends = commands.add_parser("friends", help="your friends, requests and the friends' board")
    verbs = friends.add_subparsers(dest="action")
    add = verbs.add_parser("add", help="ask a player by the name boards show (Ann#3f9c)")
    add.add_argument("player")
    verbs.add_parser("invite", help="a single-use invite link (7 days)")
    join = verbs.add_parser("join", help="accept an invite link")
    join.add_argument("invite", metavar="LINK")
    accept = verbs.add_parser("accept", help="accept the request with this number")
    accept.add_argument("id", type=int)
    remove = verbs.add_parser("remove", help="refuse, withdraw or end the friendship (number)")
    remove.add_argument("id", type=int)
    block = verbs.add_parser(
        "block", help="block a player by name, or by the number scorpion friends shows"
    )
    block.add_argument("player", metavar="NAME|NO.")
    board = verbs.add_parser("board", help="the daily leaderboard among you and your friends")
    board.add_argument("date", nargs="?", help="YYYY-MM-DD (default today)")


def challenge(cli: Cli) -> int:
    args, social = cli.args, cli.client.social
    if args.action == "make":
        made = social.challenge(cli._game_id(args.game))
        cli.console.print(
            f"Challenge made: send this link to a friend: {cli.url.rstrip('/')}{made['url']}"
        )
        cli.console.print(f"(or its id, for scorpion challenge play: {made['id']})")
        return 0
    if args.action == "list":
        return _list(cli, social.challenges())
    if args.action == "close":
        social.close_challenge(args.challenge)
        cli.console.print("Closed: nobody new may play it; its board stays.")
        return 0
    if args.action == "play":
        game = social.play_challenge(args.challenge)
        status = cli._play(game, threading.Lock(), None)
        if status == 0:
            _board(cli, social.get_challenge(args.challenge))
        return status
    return _board(cli, social.get_challenge(args.challenge))


def _list(cli: Cli, lists: dict[str, Any]) -> int:
    for key, title in (("made", "Challenges you made"), ("played", "Challenges you played")):
        table = Table(title=title)
        for column in ("id", "by", "game", "players", "closed"):
            table.add_column(column)
        for row in lists[key]:
            table.add_row(
                row["id"],
                escape(row["creator"]),
                row["variant"],
                str(row["players"]),
                "yes" if row["closed_at"] else "",
            )
        cli.console.print(table)
    return 0


def _board(cli: Cli, challenge: dict[str, Any]) -> int:
    if challenge["board"] is None:
        cli.console.print(
            f"Challenge by {escape(challenge['creator'])}: its results are shown once your "
            f"game of it is over (scorpion challenge play {challenge['id']})."
        )
        return 0
    table = Table(title=f"Challenge by {escape(challenge['creator'])}")
    for column in ("player", "result", "time", "moves", "undos"):
        table.add_column(column)
    for entry in challenge["board"]:
        name = escape(entry["player"]) + (" (you)" if entry["is_me"] else "")
        table.add_row(
            name,
            "won" if entry["won"] else entry["status"],
            format_duration(entry["time"]),
            str(entry["moves"]),
            str(entry["undos"]),
        )
    cli.console.print(table)
    return 0


def friends(cli: Cli) -> int:
    args, social = cli.args, cli.client.social
    action = args.action
    if action == "add":
        row = social.follow(args.player)
        said = "You are friends" if row["status"] == "accepted" else "Asked"
        cli.console.print(f"{said}: {escape(row['player'])}")
    elif action == "invite":
        invite = social.invite()
        cli.console.print(f"Send this link: {cli.url.rstrip('/')}{invite['url']} (7 days, once)")
    elif action == "join":
        row = social.accept_invite(args.invite)
        cli.console.print(f"You are friends: {escape(row['player'])}")
    elif action == "accept":
        cli.console.print(f"You are friends: {escape(social.accept(args.id)['player'])}")
    elif action == "remove":
        social.remove(args.id)
        cli.console.print("Removed.")
    elif action == "block":
        # A number is a friendship or request of the list: the way to block a player who chose
        # no name (shown masked, which finds no one); a name of digits alone takes its tag.
        if args.player.isdigit():
            blocked = social.block(friendship=int(args.player))
        else:
            blocked = social.block(args.player)
        cli.console.print(f"Blocked: {escape(blocked['player'])}")
    elif action == "board":
        return _friends_board(cli, social.leaderboard(args.date))
    else:
        return _friends_list(cli, social.friends())
    return 0


def _friends_list(cli: Cli, overview: dict[str, Any]) -> int:
    table = Table(title="Friends and requests")
    for column in ("no.", "player", "status"):
        table.add_column(column)
    for key, label in (("friends", "friend"), ("incoming", "asks you"), ("outgoing", "asked")):
        for row in overview[key]:
            table.add_row(str(row["id"]), escape(row["player"]), label)
    cli.console.print(table)
    if overview["incoming"]:
        cli.console.print("scorpion friends accept NO. accepts a request; remove NO. refuses it.")
    return 0


def _friends_board(cli: Cli, board: dict[str, Any]) -> int:
    table = Table(title=f"Daily challenge {board['date']}: you and your friends")
    for column in ("rank", "player", "time", "moves"):
        table.add_column(column)
    for row in board["results"]:
        name = escape(row["player"]) + (" (you)" if row["is_me"] else "")
        table.add_row(str(row["rank"]), name, format_duration(row["time"]), str(row["moves"]))
    cli.console.print(table)
    return 0


__all__ = ["add_parsers", "challenge", "friends"]
