"""The soak's check (bench/soak.py): every game's log, read back from the database with the
stack's code and settings (a Django script), against its projection, its snapshots, what the
players were told and what the live streams sent."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from bench.soak_players import Record, Streamed
from bench.stack import Stack

CHECK_SCRIPT = r"""
import json, sys
from collections import defaultdict

import django

django.setup()
from django.db import connection

from games import history
from games.engine.cards import parse_deal_code
from games.history import GameState
from games.models import Game, GameEvent, GameSnapshot

job = json.loads(open(sys.argv[1]).read())
told = defaultdict(dict)  # game -> seq -> (type, key)
for game_id, seq, event_type, key in job["acknowledged"]:
    told[game_id][seq] = (event_type, key)
unknown = defaultdict(int)
for game_id in job["unknown"]:
    unknown[game_id] += 1
created = job["created"]
problems = []
games = Game.objects.filter(owner__email__in=job["emails"]).order_by("pk")
counts = {"games": 0, "events": 0, "snapshots": 0, "finished": 0, "untold_events": 0,
          "streamed_games": 0}
seen = set()
for game in games.iterator(chunk_size=200):
    gid = str(game.pk)
    seen.add(gid)
    counts["games"] += 1
    counts["finished"] += game.status in ("won", "resigned")
    events = list(
        GameEvent.objects.filter(game=game).order_by("seq").values_list(
            "seq", "type", "payload", "idempotency_key"
        )
    )
    counts["events"] += len(events)
    seqs = [seq for seq, _, _, _ in events]
    if seqs != list(range(1, game.version + 1)):
        problems.append(f"{gid}: events {seqs[:5]}... are not 1..{game.version}")
        continue
    snapshots = dict(
        GameSnapshot.objects.filter(game=game).values_list("version", "state")
    )
    counts["snapshots"] += len(snapshots)
    state = history.new_game_state(parse_deal_code(game.deal_code))
    for seq, event_type, payload, key in events:
        state = history.fold_event(state, event_type, payload)
        if seq in snapshots and GameState.from_dict(snapshots[seq]) != state:
            problems.append(f"{gid}: the snapshot at {seq} is not the fold")
    if state != GameState.from_dict(game.state):
        problems.append(f"{gid}: the fold of its {len(events)} events is not its projection")
    by_seq = {seq: (event_type, key) for seq, event_type, _, key in events}
    for seq, (event_type, key) in told[gid].items():
        if by_seq.get(seq) != (event_type, key):
            problems.append(f"{gid}: told seq {seq} {event_type}, the log has {by_seq.get(seq)}")
    if gid in job["streamed"] and gid not in job["resynced"]:
        got = [(seq, event_type) for seq, event_type in job["streamed"][gid]]
        expected = [(seq, event_type) for seq, event_type, _, _ in events][: len(got)]
        if gid in job["ended"]:
            expected = [(seq, event_type) for seq, event_type, _, _ in events]
        if got != expected:
            problems.append(f"{gid}: its stream sent {got[:3]}... not its log's {expected[:3]}...")
        counts["streamed_games"] += 1
    untold = len(events) - len(told[gid])
    counts["untold_events"] += untold
    if untold > unknown[gid]:
        problems.append(
            f"{gid}: {untold} events nobody was told of, {unknown[gid]} lost answers"
        )
missing = sorted(set(created) - seen)
if missing:
    problems.append(f"games created but not stored: {missing[:5]}")
extra = sorted(seen - set(created))
if extra:
    problems.append(f"games stored that no player was told of: {extra[:5]}")
sizes = {}
with connection.cursor() as cursor:
    for model in (Game, GameEvent, GameSnapshot):
        cursor.execute("SELECT pg_total_relation_size(%s)", [model._meta.db_table])
        sizes[model._meta.db_table] = cursor.fetchone()[0]
print("RESULT " + json.dumps({"problems": problems[:50], "problem_count": len(problems),
                              "counts": counts, "sizes": sizes}))
"""


def check(stack: Stack, record: Record, streamed: Streamed, emails: list[str]) -> bool:
    job_file = stack.workdir / "soak-check.json"
    job_file.write_text(
        json.dumps(
            {
                "emails": emails,
                "acknowledged": record.acknowledged,
                "unknown": record.unknown,
                "created": record.created,
                "streamed": streamed.received,
                "ended": streamed.ended,
                "resynced": streamed.resynced,
            }
        )
    )
    started = time.monotonic()
    completed = subprocess.run(
        [sys.executable, "-c", CHECK_SCRIPT, str(job_file)],
        cwd=stack.tree,
        env=stack.environment,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in completed.stdout.splitlines() if line.startswith("RESULT ")]
    if not lines:
        print(f"\nFAILED: the check did not run:\n{completed.stdout}\n{completed.stderr[-3000:]}")
        return False
    result = json.loads(lines[-1].removeprefix("RESULT "))
    counts, sizes = result["counts"], result["sizes"]
    print()
    print(
        f"Check ({time.monotonic() - started:.0f} s): {counts['games']:,} games "
        f"({counts['finished']:,} finished), {counts['events']:,} events, "
        f"{counts['snapshots']:,} snapshots; {len(record.acknowledged):,} commands answered 200, "
        f"{len(record.unknown)} without an answer, {counts['untold_events']} events nobody was "
        f"told of"
    )
    events = max(counts["events"], 1)
    games = max(counts["games"], 1)
    print(
        "Storage (tables with their indexes): events "
        f"{sizes['games_gameevent'] / events:,.0f} B per event, snapshots "
        f"{sizes['games_gamesnapshot'] / events:,.0f} B per event, games "
        f"{sizes['games_game'] / games:,.0f} B per game; {counts['events'] / games:.1f} events "
        "per game"
    )
    fives = sum(count for status, count in record.statuses.items() if status.startswith("5"))
    if result["problem_count"] or fives:
        print(f"FAILED: {result['problem_count']} problems, {fives} 5xx")
        for problem in result["problems"]:
            print(f"  {problem}")
        return False
    print(
        "PASSED: every log is seq 1..version and folds to its projection (and its snapshots), "
        "every answered command is in its log, no event untold beyond lost answers, every "
        f"created game stored once, no 5xx; the streams of {counts['streamed_games']} games "
        f"sent their logs in order, each event once ({len(streamed.ended)} to their end)"
    )
    return True
