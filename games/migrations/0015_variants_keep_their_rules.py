"""The family as PySolFC 3.4.0 deals it: the games already played keep the rules they began with.

PySolFC 3.4.0 deals Wasp with Scorpion's face-down cards (columns 1-4) and keeps the layout Wasp
had up to 3.2.0 as "Wasp II"; it deals Double Scorpion ten by ten with a stock of four. A game's
variant decides how its deal code is read and which rules its log replays by
(``games.variants.deal_state``), so every game begun before this release is renamed to the
variant that keeps its rules: ``wasp`` -> ``wasp-ii`` (the same layout and rules, PySolFC's
name for them now), ``double-scorpion`` -> ``double-scorpion-3-2`` (kept for those games only:
docs/rules.md, "The Scorpion family"). The stored positions name their variant too (the
engine's ``Position.to_dict``): the projection and the snapshots are renamed with the game, so
each still equals the fold of its log (tests/api/test_variant_migration.py replays them all).

Runs once, before any game of the new rules exists: after it, ``wasp`` and ``double-scorpion``
are the 3.4.0 games.
"""

from django.db import migrations, models

RENAMED = {"wasp": "wasp-ii", "double-scorpion": "double-scorpion-3-2"}
BATCH = 500


def _renamed_state(state: dict, old: str, new: str) -> dict:
    position = state.get("position")
    if isinstance(position, dict) and position.get("variant") == old:
        position = {**position, "variant": new}
        return {**state, "position": position}
    return state


def forwards(apps, schema_editor, renamed=RENAMED):
    Game = apps.get_model("games", "Game")
    GameSnapshot = apps.get_model("games", "GameSnapshot")
    for old, new in renamed.items():
        games = Game.objects.filter(variant=old).only("pk", "state")
        for game in games.iterator(chunk_size=BATCH):
            # QuerySet.update: the snapshots' save() refuses updates (they are derived data,
            # rewritten here with their game so they keep equalling the fold of its log).
            Game.objects.filter(pk=game.pk).update(
                variant=new, state=_renamed_state(game.state, old, new)
            )
            for snapshot in GameSnapshot.objects.filter(game_id=game.pk).only("pk", "state"):
                GameSnapshot.objects.filter(pk=snapshot.pk).update(
                    state=_renamed_state(snapshot.state, old, new)
                )


def backwards(apps, schema_editor):
    # Only when nothing of the new rules was played yet would the old names mean these games
    # again; the rename back is that case's inverse.
    forwards(apps, schema_editor, renamed={new: old for old, new in RENAMED.items()})


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0014_game_analyses_plural"),
    ]

    operations = [
        migrations.AlterField(
            model_name="game",
            name="variant",
            field=models.CharField(
                choices=[
                    ("scorpion", "Scorpion"),
                    ("wasp", "Wasp"),
                    ("wasp-ii", "Wasp II"),
                    ("scorpion-tail", "Scorpion Tail"),
                    ("three-blind-mice", "Three Blind Mice"),
                    ("double-scorpion", "Double Scorpion"),
                    ("double-scorpion-3-2", "Double Scorpion 3.2"),
                ],
                default="scorpion",
                max_length=32,
            ),
        ),
        migrations.RunPython(forwards, backwards),
    ]
