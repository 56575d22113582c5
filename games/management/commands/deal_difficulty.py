"""Rate certified deals' difficulty and calibrate it against players' results.

python manage.py deal_difficulty                  # the bands' deals and players' win rates
python manage.py deal_difficulty --recompute      # rate the deals that have no rating yet
python manage.py deal_difficulty --recompute --all   # rate every deal again (formula changed)
python manage.py deal_difficulty --calibrate      # blend players' win rates into the scores
python manage.py deal_difficulty --calibrate --min-games 50

Ratings are normally computed when a deal is certified (games.services); --recompute fills in
the deals certified before ratings existed. --calibrate blends each deal's observed win rate
into its score once it has enough counted games (docs/difficulty.md, "Calibration"). Every
change is printed, then the win rate of each band, which should fall from easy to hard.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from games import selectors, services


class Command(BaseCommand):
    help = "Rate certified deals' difficulty; calibrate it against players' win rates."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--recompute", action="store_true", help="rate the deals without a rating"
        )
        parser.add_argument(
            "--all", action="store_true", help="with --recompute: rate every deal again"
        )
        parser.add_argument(
            "--calibrate", action="store_true", help="blend players' win rates into the scores"
        )
        parser.add_argument(
            "--min-games",
            type=int,
            default=services.CALIBRATION_MIN_GAMES,
            help="counted games a deal needs before its players' results count "
            f"(default {services.CALIBRATION_MIN_GAMES})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["all"] and not options["recompute"]:
            raise CommandError("--all goes with --recompute")
        if options["min_games"] < 1:
            raise CommandError("--min-games must be 1 or more")
        if options["recompute"]:
            changes = services.deal_difficulty_recompute(everything=options["all"])
            self._report("rated", changes)
        if options["calibrate"]:
            changes = services.deal_difficulty_calibrate(
                today=timezone.now().date(), min_games=options["min_games"]
            )
            self._report("calibrated", changes)
        bands = selectors.difficulty_bands()
        for row in bands.rows:
            rate = "-" if row.win_rate is None else f"{row.win_rate:.2f}"
            self.stdout.write(
                f"{row.band:>6}: {row.deals} deals, {row.games} first attempts played, "
                f"win rate {rate}"
            )
        self.stdout.write(f"unrated: {bands.unrated} deals")

    def _report(self, verb: str, changes: list[services.DifficultyChange]) -> None:
        for change in changes:
            before = (
                "unrated" if change.old_score is None else f"{change.old_score} {change.old_band}"
            )
            games = (
                ""
                if change.win_rate is None
                else (f" ({change.games} games, win rate {change.win_rate:.2f})")
            )
            self.stdout.write(f"{change.deal}: {before} -> {change.score} {change.band}{games}")
        self.stdout.write(f"{verb} {len(changes)} deal(s)")
