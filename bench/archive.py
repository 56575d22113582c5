"""What archiving a finished game's log saves: bytes per game in the tables vs in the archive.

Run from the repository root against a PostgreSQL database of your own (migrated here; every
row this script makes is deleted at the end):
``DATABASE_URL=postgres://... .venv/bin/python bench/archive.py [--games 100] [--events 150]``.

Each game is a Scorpion deal (seed ``i``) played through ``games.services.game_execute_command``
(the command endpoint minus HTTP), every command with an ``Idempotency-Key`` as the API's clients
send: random legal actions (``random.Random(i)``), an undo and a redo after every fifth, two undos
when stuck, until the game has ``--events`` events, then resigned; it is then dated finished 100
days ago. The events and snapshots tables' size with their indexes (``pg_total_relation_size``)
is read before and after the games are played, then the games are archived
(``games.services.game_logs_archive`` into a temporary directory) and the files' bytes added
up. Prints bytes per game and per event both ways, and the archive's wall time per game.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_site.settings")
os.environ.setdefault("DEBUG", "true")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--events", type=int, default=150)
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="scorpion-archive-bench-")
    os.environ["ARCHIVE_DIR"] = directory

    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from games import services
    from games.engine.actions import Move
    from games.engine.legal import legal_actions
    from games.history import Command, GameState
    from games.models import Game, GameEvent, GameMode, GameSnapshot

    assert connection.vendor == "postgresql", "set DATABASE_URL to a PostgreSQL database"
    call_command("migrate", verbosity=0)

    def table_bytes() -> int:
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE games_gameevent, games_gamesnapshot")
            cursor.execute(
                "SELECT pg_total_relation_size(%s) + pg_total_relation_size(%s)",
                [GameEvent._meta.db_table, GameSnapshot._meta.db_table],
            )
            return int(cursor.fetchone()[0])

    owner = User.objects.create_user("archive-bench", "archive-bench@example.invalid", "x" * 20)
    before = table_bytes()
    events = 0
    game_ids = []
    for seed in range(args.games):
        rng = random.Random(seed)
        game = services.game_create(
            owner=owner, choice=services.DealChoice(mode=GameMode.SEEDED, seed=seed)
        )
        game_ids.append(game.pk)
        played = 0
        while game.version < args.events - 1 and not game.is_finished:
            actions = legal_actions(GameState.from_dict(game.state).position)
            if actions:
                action = rng.choice(actions)
                commands = [
                    Command("move", action.card, action.to)
                    if isinstance(action, Move)
                    else Command("deal")
                ]
            else:  # stuck: take back the last two and play on
                commands = [Command("undo"), Command("undo")]
            played += 1
            if played % 5 == 0:
                commands += [Command("undo"), Command("redo")]
            for command in commands:
                result = services.game_execute_command(
                    owner=owner,
                    game_id=game.pk,
                    command=command,
                    idempotency_key=f"bench-{seed}-{game.version}",
                )
                game = result.game
        if not game.is_finished:
            game = services.game_execute_command(
                owner=owner, game_id=game.pk, command=Command("resign")
            ).game
        events += game.version
    Game.objects.filter(pk__in=game_ids).update(
        finished_at=timezone.now() - datetime.timedelta(days=100)
    )
    in_tables = table_bytes() - before

    started = time.perf_counter()
    run = services.game_logs_archive(
        finished_before=timezone.now() - datetime.timedelta(days=90), limit=args.games
    )
    elapsed = time.perf_counter() - started
    files = sum(path.stat().st_size for path in Path(directory).rglob("*.gz"))
    assert run.archived == args.games, run
    assert run.bytes == files, (run, files)

    games = args.games
    print(f"{games} games, {events} events ({events / games:.1f} a game)")
    print(
        f"tables (events + snapshots, with indexes): {in_tables / games:,.0f} bytes a game, "
        f"{in_tables / events:.0f} an event"
    )
    print(
        f"archive (gzip'd JSON lines): {files / games:,.0f} bytes a game, "
        f"{files / events:.0f} an event"
    )
    print(f"ratio: {in_tables / files:.1f}x; archiving took {elapsed / games * 1000:.1f} ms a game")
    owner.delete()
    shutil.rmtree(directory)


if __name__ == "__main__":
    main()
