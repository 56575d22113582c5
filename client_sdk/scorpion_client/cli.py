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
import contextlib
import getpass
import os
import sys
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from scorpion_client import _sync
from scorpion_client._core import DEFAULT_BASE_URL, StreamOptions
from scorpion_client._sync import GameHandle, Scorpion
from scorpion_client.cli_progress import (
    achievements_table,
    badges_line,
    calendar_summary,
    calendar_table,
)
from scorpion_client.config import StoredToken, TokenStore
from scorpion_client.errors import (
    AuthenticationError,
    MethodNotAllowed,
    NotFound,
    OAuthError,
    ScorpionError,
    TransportError,
)
from scorpion_client.models import Copy, Event, GameUpdate, Variant
from scorpion_client.oauth import DeviceAuthorization
from scorpion_client.render import (
    VARIANT_TITLES,
    cards_text,
    describe_event,
    format_duration,
    problem_text,
    render_analysis,
    render_chances,
    render_game,
    render_hints,
)

_HEX_DIGITS = frozenset("0123456789abcdef")
_ID_SHAPE = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"


def _id_start_digits(text: str) -> str | None:
    """The hex digits of the start of a game's id as a player may type it (lower case):
    digits alone, or with the id's hyphens where it has them (8-4-4-4-12); else None."""
    if "-" not in text:
        return text if 0 < len(text) <= 32 and set(text) <= _HEX_DIGITS else None
    if len(text) > len(_ID_SHAPE):
        return None
    for char, shape in zip(text, _ID_SHAPE, strict=False):
        if (char == "-") != (shape == "-") or (char != "-" and char not in _HEX_DIGITS):
            return None
    return text.replace("-", "")


class CliError(Exception):
    """A mistake in what the player typed on the command line, said before any request."""


# The terminal client's OAuth app: a public client (no secret) that logs in by the device
# flow. ``--client-id`` or ``$SCORPION_CLIENT_ID`` name another one.
DEFAULT_CLIENT_ID = "scorpion-cli"
SCOPES = ("games:play", "games:read", "stats:read", "account:read")

__all__ = ["main", "parse_move", "run"]

ReadLine = Callable[[str], str]

HELP = """\
[bold]Commands[/bold]
  [cyan]8h[/cyan]          move the 8 of hearts (and what lies on it) onto the 9 of hearts
  [cyan]kh 5[/cyan]        move the King of hearts to the empty column 5 (columns are 1-7,
              or 1-10)
  [cyan]8h from 3[/cyan]   the 8 of hearts of column 3 (two decks: when both 8s could move)
  [cyan]d[/cyan]           deal the stock (once per game)
  [cyan]u[/cyan] / [cyan]r[/cyan]       undo / redo
  [cyan]h[/cyan]           hints: the best moves first
  [cyan]c[/cyan]           winning chances of the best moves, if every card were known
  [cyan]restart[/cyan]     a new game with the same deal
  [cyan]resign[/cyan]      give up this game
  [cyan]q[/cyan]           quit (the game stays on the server: scorpion play --resume)
Ranks: A 2-9 T(10) J Q K; suits: s h d c."""


@dataclass(frozen=True)
class Move:
    card: str
    to: int | None  # 0-based, as the API
    source: int | None = None  # 0-based: the column the card is taken from ("from 3")
    copy: Copy | None = None  # of two copies in that column ("from 3 lower")


# The variants a new game may be in: double-scorpion-3-2 is kept for the games begun in it.
VARIANTS: tuple[str, ...] = tuple(
    name for name in get_args(Variant) if name != "double-scorpion-3-2"
)
# The most places a card is picked from: ten columns and Three Blind Mice's two reserve cards.
MAX_COLUMNS = 12


def parse_move(text: str) -> Move | None:
    """``"8h"`` -> Move("8H", None); ``"kh 5"`` -> Move("KH", 4) (on screen columns are 1-7,
    or 1-10); ``"8h from 3"`` -> Move("8H", None, 2) (the copy in column 3, two decks);
    ``"8h from 3 lower"`` -> Move("8H", None, 2, "lower") (the lower of two copies there); None
    if ``text`` is not a move."""
    parts = text.split()
    source: int | None = None
    copy: Copy | None = None
    if len(parts) >= 4 and parts[-3].lower() == "from" and parts[-1].lower() in ("upper", "lower"):
        copy = "lower" if parts[-1].lower() == "lower" else "upper"
        parts = parts[:-1]
    if len(parts) >= 3 and parts[-2].lower() == "from":
        if not parts[-1].isdigit() or not 1 <= int(parts[-1]) <= MAX_COLUMNS:
            return None
        source = int(parts[-1]) - 1
        parts = parts[:-2]
    if not 1 <= len(parts) <= 2:
        return None
    card = parts[0].upper()
    if card.startswith("10"):
        card = "T" + card[2:]
    if len(card) != 2 or card[0] not in "A23456789TJQK" or card[1] not in "SHDC":
        return None
    to: int | None = None
    if len(parts) == 2:
        if not parts[1].isdigit() or not 1 <= int(parts[1]) <= MAX_COLUMNS:
            return None
        to = int(parts[1]) - 1
    return Move(card, to, source, copy)


class Follower:
    """Follows the game being played on its stream, in a thread of its own, and draws it again
    when it changes elsewhere (another device, another terminal).

    The lock is held by the main loop while one of its own commands is on its way, so the
    follower sees the handle after that command's answer: an event of the handle's own version
    or older is this terminal's own doing and is not drawn twice.
    """

    def __init__(self, cli: Cli, game: GameHandle, lock: threading.Lock) -> None:
        self.cli = cli
        self.game = game
        self.lock = lock
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="scorpion-follow", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        # A client of its own, used and closed by this thread only (an httpx client must not
        # be closed under a request of another thread).
        source = self.cli.client
        client = _sync.Scorpion(self.cli.url, token=source.token, token_type=source.token_type)
        # One set of credentials for both clients: a refresh made by either (which spends the
        # refresh token) is the other's too.
        client.credentials = source.credentials
        client._refresh_lock = source._refresh_lock
        options = StreamOptions(stop=self.stopped.is_set)
        try:
            stream = client.games.stream(self.game.id, since=self.game.version, options=options)
            for update in stream:
                with self.lock:
                    if update.version <= self.game.version:
                        continue
                    self.game._update(update.game)
                    if isinstance(update, GameUpdate):
                        self.game.last_event = update.event
                    self._draw(update)
        except ScorpionError:
            pass  # a server without streams, or gone: play goes on as before, unfollowed
        finally:
            client.close()

    def _draw(self, update: object) -> None:
        console = self.cli.console
        console.print()
        what = (
            describe_event(update.event) if isinstance(update, GameUpdate) else "the game changed"
        )
        console.print(f"[magenta]Played on another device:[/magenta] {what}")
        console.print(render_game(self.game))
        if self.game.is_finished:
            console.print(ended_elsewhere(self.game))
            # Not "restart" after an abandon: it would abandon the new game in turn.
            again = "" if self.game.status == "abandoned" else ", or restart to play it again"
            console.print(f"(Enter to leave{again})")
        console.print("> ", end="")

    def stop(self) -> None:
        """The thread ends when anything next arrives (a heartbeat at the latest)."""
        self.stopped.set()


class Cli:
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
        if entry is not None and entry.oauth is not None and entry.client_id:
            client_id = entry.client_id
            return Scorpion(
                self.url,
                token=entry.oauth,
                client_id=client_id,
                on_token_refresh=lambda token: self.store.set_oauth(self.url, token, client_id),
            )
        return Scorpion(self.url, token=entry.session if entry else None, token_type="session")

    # --- accounts ---

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
        # A token that had already expired is logged out all the same.
        with contextlib.suppress(AuthenticationError):
            if self.client.token_type == "bearer":
                self.client.oauth.revoke()
            else:
                self.client.auth.logout()
        self.store.set(self.url, None)
        self.console.print("Logged out.")
        return 0

    # --- lists and figures ---

    def games(self) -> int:
        table = Table(title="Your games (newest first)")
        for name in ("id", "game", "mode", "status", "moves", "time", "created"):
            table.add_column(name)
        page = self.client.games.list(status=self.args.status, page_size=self.args.limit)
        for game in page.results:
            table.add_row(
                game.id,
                VARIANT_TITLES.get(game.variant, game.variant),
                game.mode,
                game.status,
                str(game.moves),
                format_duration(game.elapsed_seconds),
                game.created_at.strftime("%Y-%m-%d %H:%M") if game.created_at else "",
            )
        self.console.print(table)
        if page.count is not None and page.count > len(page.results):
            self.console.print(f"{len(page.results)} of {page.count} shown.")
        return 0

    def analyse(self) -> int:
        game_id = self.args.game
        if game_id == "last":
            finished = [
                game
                for status in ("won", "resigned")
                for game in self.client.games.list(status=status, page_size=1).results
            ]
            if not finished:
                self.console.print("[yellow]You have no finished game yet.[/yellow]")
                return 1
            game_id = max(finished, key=lambda game: str(game.finished_at or "")).id
        else:
            game_id = self._game_id(game_id)
        analysis = self.client.games.analysis(game_id, wait=self.args.wait)
        self.console.print(f"Analysis of game {game_id}")
        self.console.print(render_analysis(analysis))
        return 0 if analysis.ready else 1

    def chances(self) -> int:
        """The winning chance of each legal action of a game in play (counted as a hint)."""
        game_id = self.args.game
        if game_id == "last":
            playing = self.client.games.list(status="playing", page_size=1).results
            if not playing:
                self.console.print("[yellow]You have no game in play.[/yellow]")
                return 1
            game_id = playing[0].id
        else:
            game_id = self._game_id(game_id)
        chances = self.client.games.chances(game_id, wait=self.args.wait)
        self.console.print(f"Winning chances in game {game_id}, version {chances.version}")
        self.console.print(render_chances(chances))
        return 0 if chances.ready else 1

    def _game_id(self, typed: str) -> str:
        """A game's id as the player typed it: whole, or its first characters as the table's
        footer shows them ("game c52caf3a"), hyphens where the id has them or none. The
        server finds the game among the player's own (``id_prefix``), in one request."""
        text = typed.strip().lower()
        with contextlib.suppress(ValueError):
            return str(uuid.UUID(text))
        digits = _id_start_digits(text)
        if digits is None or len(digits) < 4:
            raise CliError(f"{typed!r} is not a game id (scorpion games lists yours).")
        page = self.client.games.list(id_prefix=digits, page_size=2)
        if len(page.results) > 1:
            raise CliError(f"Several of your games start with {text}: give more of the id.")
        if not page.results:
            raise CliError(f"None of your games has an id starting with {text}.")
        return page.results[0].id

    def stats(self) -> int:
        try:
            stats = self.client.stats.get()
        except NotFound:
            self.console.print("[yellow]This server does not serve statistics yet.[/yellow]")
            return 1
        table = Table(title="Statistics")
        table.add_column("")
        table.add_column("all games", justify="right")
        if stats.daily is not None:
            table.add_column("daily challenge", justify="right")
        if stats.daily_practice is not None:
            table.add_column("daily practice", justify="right")
        rows = [
            ("played", lambda s: str(s.played)),
            ("won", lambda s: str(s.won)),
            ("win rate", lambda s: "-" if s.win_rate is None else f"{s.win_rate:.0%}"),
            ("current streak", lambda s: _dash(s.current_streak)),
            ("best streak", lambda s: _dash(s.best_streak)),
            (
                "best time",
                lambda s: "-" if s.best_time is None else format_duration(s.best_time),
            ),
            ("fewest moves", lambda s: _dash(s.fewest_moves)),
        ]
        for label, value in rows:
            cells = [label, value(stats)]
            if stats.daily is not None:
                cells.append(value(stats.daily))
            if stats.daily_practice is not None:
                cells.append(value(stats.daily_practice))
            table.add_row(*cells)
        self.console.print(table)
        bands = [
            f"{band} {figures.won}/{figures.played}"
            + ("" if figures.win_rate is None else f" ({figures.win_rate:.0%})")
            for band, figures in stats.difficulty.items()
            if figures.played
        ]
        if bands:
            self.console.print("Won by difficulty: " + ", ".join(bands))
        return 0

    def achievements(self) -> int:
        answer = self.client.stats.achievements()
        self.console.print(achievements_table(answer))
        self.console.print(badges_line(answer))
        return 0

    def calendar(self) -> int:
        view = self.client.daily.calendar(self.args.month)
        self.console.print(calendar_table(view))
        self.console.print(calendar_summary(view))
        return 0

    # --- playing ---

    def _open_game(self) -> GameHandle:
        args = self.args
        games = self.client.games
        if args.game:
            return games.get(self._game_id(args.game))
        variant = args.variant
        if args.seed is not None:
            return games.create(seed=args.seed, variant=variant)
        if args.code:
            return games.create(code=args.code, variant=variant)
        if args.pysol is not None:
            return games.create(pysol_number=args.pysol, variant=variant)
        if args.daily_date:
            return games.create(mode="daily", date=args.daily_date, variant=variant)
        if args.winnable or args.difficulty:
            return games.create(mode="winnable", variant=variant, difficulty=args.difficulty)
        if args.daily:
            if variant not in (None, "scorpion"):
                # Said by the server (variant_not_offered), in its words.
                return games.create(mode="daily", variant=variant)
            today = self.client.daily.today()
            if today.game and today.status in ("playing", "stuck"):
                self.console.print("Resuming your attempt at today's challenge.")
                return games.get(today.game)
            if today.attempts:
                self.console.print(
                    "A new attempt at today's challenge: practice, it will not rank "
                    "(only your first attempt of the day does)."
                )
            return games.create(mode="daily")
        if args.resume:
            candidates = [
                game
                for status in ("playing", "stuck")
                for game in games.list(status=status, page_size=1).results
            ]
            if candidates:
                latest = max(candidates, key=lambda g: (g.updated_at is not None, g.updated_at))
                self.console.print("Resuming your latest game.")
                return games.handle(latest)
            self.console.print("No game in progress: a new one.")
        return games.create(variant=variant)

    def play(self) -> int:
        game = self._open_game()
        lock = threading.Lock()
        follower = self._follow(game, lock)
        try:
            return self._play(game, lock, follower)
        finally:
            if follower is not None:
                follower.stop()

    def _follow(self, game: GameHandle, lock: threading.Lock) -> Follower | None:
        if self.args.no_follow or game.is_finished:
            return None
        return Follower(self, game, lock)

    def _play(self, game: GameHandle, lock: threading.Lock, follower: Follower | None) -> int:
        console = self.console
        console.print(render_game(game))
        console.print("Type a card to move it ([cyan]8h[/cyan]), [cyan]?[/cyan] for help.")
        over_already = game.is_finished  # opened finished (play --game): not ended elsewhere
        while True:
            try:
                line = self.read_line("> ").strip()
            except (EOFError, KeyboardInterrupt):
                console.print()
                break
            word = line.lower()
            if word in ("q", "quit", "exit"):
                break
            if game.is_finished and not over_already and word != "restart":
                # Ended on another device while this terminal waited for a line: nothing
                # more can be played here (the follower has said how it ended).
                console.print(ended_elsewhere(game))
                return 0
            if word in ("", "board"):
                console.print(render_game(game.refresh()))
                continue
            if word in ("?", "help"):
                console.print(HELP)
                continue
            try:
                if word in ("h", "hint", "hints"):
                    console.print(render_hints(game.hints()))
                    continue
                if word in ("c", "chance", "chances"):
                    console.print(render_chances(game.chances(wait=15), limit=3))
                    continue
                if word in ("restart",):
                    game = game.restart()
                    if follower is not None:
                        follower.stop()
                    follower = self._follow(game, lock)
                    over_already = False
                    console.print("[cyan]A new game with the same deal.[/cyan]")
                elif word == "resign":
                    answer = self.read_line("Resign this game? [y/N] ").strip().lower()
                    # (read_line shows the prompt as plain text: "[y/N]" is not markup.)
                    if answer not in ("y", "yes"):
                        continue
                    with lock:
                        game.resign()
                else:
                    with lock:
                        event = self._command(game, word)
                    if event is None:
                        console.print(
                            f"[red]Not a card or a command: {escape(repr(line))}[/red] (? for help)"
                        )
                        continue
                    console.print(describe_event(event))
            except TransportError as exc:
                console.print(f"[red]No answer from the server: {escape(exc.message)}[/red]")
                continue
            except ScorpionError as exc:
                if isinstance(exc, AuthenticationError):
                    raise
                console.print(error_line(exc))
                continue
            console.print(render_game(game))
            if game.is_won:
                console.print(
                    f"[bold green]You won in {game.moves} moves, "
                    f"{format_duration(game.elapsed_seconds)}![/bold green]"
                )
                return 0
            if game.status == "resigned":
                if game.code:
                    console.print("[red]Resigned.[/red] The deal was:")
                    console.print(game.code)
                else:
                    console.print(
                        "[red]Resigned.[/red] Today's deal stays secret until the day after "
                        "tomorrow, 00:00 UTC."
                    )
                return 0
            if game.is_stuck:
                console.print("[yellow]No moves available: undo, restart or resign.[/yellow]")
        if game.is_finished and not over_already:
            console.print(ended_elsewhere(game))
        elif not game.is_finished:
            console.print(f"The game stays on the server (id {game.id}): scorpion play --resume")
        return 0

    def _command(self, game: GameHandle, word: str) -> Event | None:
        if word in ("d", "deal"):
            return game.deal()
        if word in ("u", "undo"):
            return game.undo()
        if word in ("r", "redo"):
            return game.redo()
        move = parse_move(word)
        if move is None:
            return None
        return game.move(move.card, move.to, from_=move.source, copy=move.copy)


def ended_elsewhere(game: GameHandle) -> str:
    """What a game that ended on another device (under this terminal) leaves the player."""
    if game.is_won:
        return "The game was won on another device."
    if game.status == "resigned":
        return "The game was resigned on another device."
    return (
        "The game was left for a new game on another device: "
        "scorpion play --resume goes on with the game in play."
    )


def error_text(exc: ScorpionError) -> str:
    """An error as the player reads it: one sentence, columns numbered 1-7."""
    return problem_text(exc.body, exc.detail or exc.message)


def error_line(exc: ScorpionError) -> Text:
    """The error in red, its card codes drawn as the table draws cards ("8H can only go on
    the exposed 9H" -> "8♥ can only go on the exposed 9♥")."""
    return cards_text(error_text(exc), style="red")


def sentence_free(text: str) -> str:
    return text.strip().rstrip(".")


def terminal_reader(console: Console) -> ReadLine:
    """Reads a line after showing ``prompt`` as plain text (not rich markup, which would
    take "[y/N]" for a style and print nothing of it)."""
    return lambda prompt: console.input(Text(prompt))


def _dash(value: int | None) -> str:
    return "-" if value is None else str(value)


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
    return parser


def _read_password(prompt: str) -> str:
    if sys.stdin.isatty():
        return getpass.getpass(prompt)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


# The deal choices --difficulty cannot go with (it picks a winnable deal).
_OTHER_DEALS = ("random", "seed", "code", "pysol", "daily", "daily_date", "resume", "game")


def run(
    argv: Sequence[str] | None = None,
    *,
    console: Console | None = None,
    read_line: ReadLine | None = None,
    read_password: ReadLine | None = None,
) -> int:
    """Run the ``scorpion`` command; returns the exit status. ``read_line`` and
    ``read_password`` (default: the terminal) let a program or a test drive it."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "difficulty", None) and any(
        getattr(args, name, None) not in (None, False) for name in _OTHER_DEALS
    ):
        parser.error("--difficulty chooses a winnable deal: it goes with --winnable only")
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
