"""``scorpion play``: open a game (new, daily, winnable, resumed, or by id) and play it line by
line, the table drawn after each command and whenever another device plays."""

from __future__ import annotations

import threading

from rich.markup import escape

from scorpion_client._cli_base import CliBase
from scorpion_client._cli_follow import Follower
from scorpion_client._cli_input import parse_move
from scorpion_client._cli_texts import ended_elsewhere, error_line
from scorpion_client._sync import GameHandle
from scorpion_client.errors import AuthenticationError, ScorpionError, TransportError
from scorpion_client.models import Event
from scorpion_client.render import (
    describe_event,
    format_duration,
    render_chances,
    render_game,
    render_hints,
)

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


class PlayCommands(CliBase):
    """``play``: opens the game, follows it on its stream, and reads commands until the
    game is over or the player quits."""

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
                    console.print(render_hints(game.hints(), variant=game.variant))
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
