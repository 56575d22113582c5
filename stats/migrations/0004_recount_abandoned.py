"""Recount every player's statistics now that abandoned games count (games/migrations/0008).

The same definitions as ``stats.services.stats_recompute`` (stats/models.py), written against
the historical models so that this migration keeps working whatever the code becomes: the
played games are the won, the resigned, and the abandoned after a move; streaks follow the
order of finishing. ``manage.py rebuild_stats`` gives the same rows (a test checks it).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.db import migrations

FINISHED = ("won", "resigned", "abandoned")
MODES = ("all", "random", "seeded", "daily", "winnable", "daily_practice")


def _row(game: Any) -> str:
    return "daily_practice" if game.mode == "daily" and not game.ranked else game.mode


def recount(apps: Any, schema_editor: Any) -> None:
    Game = apps.get_model("games", "Game")
    PlayerStats = apps.get_model("stats", "PlayerStats")
    owners = Game.objects.filter(status__in=FINISHED).values_list("owner_id", flat=True).distinct()
    for owner_id in sorted(
        set(owners) | set(PlayerStats.objects.values_list("user_id", flat=True))
    ):
        games = (
            Game.objects.filter(owner_id=owner_id, status__in=FINISHED)
            .exclude(status="abandoned", started_at__isnull=True)
            .order_by("finished_at", "pk")
        )
        figures: dict[str, dict[str, Any]] = {
            mode: {
                "won": 0,
                "resigned": 0,
                "abandoned": 0,
                "current_streak": 0,
                "best_streak": 0,
                "best_time": None,
                "fewest_moves": None,
                "total_win_time": datetime.timedelta(0),
                "clean_wins": 0,
                "last_finished_at": None,
                "last_finished_game": None,
            }
            for mode in MODES
        }
        for game in games.iterator(chunk_size=2000):
            for mode in ("all", _row(game)):
                row = figures[mode]
                if game.status == "won":
                    time = max(
                        datetime.timedelta(0),
                        game.finished_at - (game.started_at or game.finished_at),
                    )
                    row["won"] += 1
                    row["current_streak"] += 1
                    row["best_streak"] = max(row["best_streak"], row["current_streak"])
                    row["best_time"] = (
                        time if row["best_time"] is None else min(row["best_time"], time)
                    )
                    row["fewest_moves"] = (
                        game.moves
                        if row["fewest_moves"] is None
                        else min(row["fewest_moves"], game.moves)
                    )
                    row["total_win_time"] += time
                    if game.undo_count == 0 and game.hint_count == 0:
                        row["clean_wins"] += 1
                else:
                    row[game.status] += 1
                    row["current_streak"] = 0
                row["last_finished_at"] = game.finished_at
                row["last_finished_game"] = game.pk
        for mode, values in figures.items():
            PlayerStats.objects.update_or_create(user_id=owner_id, mode=mode, defaults=values)


class Migration(migrations.Migration):
    dependencies = [
        ("stats", "0003_stats_abandoned"),
        ("games", "0009_abandon_left_behind"),
    ]

    operations = [migrations.RunPython(recount, migrations.RunPython.noop)]
