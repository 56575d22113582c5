"""Abandon the games players left behind before abandoning existed (docs/api.md, "Statistics").

A game still in play or stuck is left behind when the same player later started another game
of the same kind (mode), or restarted it: the rule ``games.services`` applies from now on. Each
gets the ``abandon`` event it would have got then (the log stays the truth, and the projection
its fold), and ends when the game that left it behind was created. The player's latest open
game of each kind stays open. stats/migrations/0004 then recomputes the statistics.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

OPEN = ("playing", "stuck")


def abandon_left_behind(apps: Any, schema_editor: Any) -> None:
    Game = apps.get_model("games", "Game")
    GameEvent = apps.get_model("games", "GameEvent")
    open_games = Game.objects.filter(status__in=OPEN).order_by("owner_id", "mode", "created_at")
    for game in open_games.iterator(chunk_size=500):
        later = (
            Game.objects.filter(
                owner_id=game.owner_id, mode=game.mode, created_at__gt=game.created_at
            )
            .order_by("created_at")
            .values_list("created_at", flat=True)
            .first()
        )
        restart = (
            Game.objects.filter(restarted_from_id=game.pk)
            .order_by("created_at")
            .values_list("created_at", flat=True)
            .first()
        )
        moments = [moment for moment in (later, restart) if moment is not None]
        if not moments:
            continue  # the player's latest game of its kind: still theirs to play
        ended = max(min(moments), game.started_at or game.created_at)
        seq = game.version + 1
        GameEvent.objects.create(game_id=game.pk, seq=seq, type="abandon", payload={})
        GameEvent.objects.filter(game_id=game.pk, seq=seq).update(created_at=ended)
        state = dict(game.state)
        state["abandoned"] = True
        Game.objects.filter(pk=game.pk).update(
            status="abandoned", version=seq, state=state, finished_at=ended, updated_at=ended
        )


class Migration(migrations.Migration):
    dependencies = [("games", "0008_game_abandoned")]

    operations = [migrations.RunPython(abandon_left_behind, migrations.RunPython.noop)]
