"""The commands that report what the server knows: ``games`` (the list), ``stats``,
``analyse`` (a finished game) and ``chances`` (a game in play)."""

from __future__ import annotations

from rich.table import Table

from scorpion_client._cli_base import CliBase
from scorpion_client._cli_texts import dash
from scorpion_client.cli_progress import (
    achievements_table,
    badges_line,
    calendar_summary,
    calendar_table,
)
from scorpion_client.errors import NotFound
from scorpion_client.render import VARIANT_TITLES, format_duration, render_analysis, render_chances


class ReportCommands(CliBase):
    """``games``, ``stats``, ``analyse`` and ``chances``: what the server knows, drawn as a
    table or a text."""

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
        for game in page.results:
            if game.leaderboard_hidden is not None:
                self.console.print(
                    f"{game.id}: hidden from the leaderboard by staff: "
                    f"{game.leaderboard_hidden.reason}",
                    markup=False,
                )
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
            ("current streak", lambda s: dash(s.current_streak)),
            ("best streak", lambda s: dash(s.best_streak)),
            (
                "best time",
                lambda s: "-" if s.best_time is None else format_duration(s.best_time),
            ),
            ("fewest moves", lambda s: dash(s.fewest_moves)),
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
