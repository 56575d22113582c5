"""The archive of finished games' logs: a finished game's events, once it is old enough, live in
one compressed file of the archive storage instead of the events table, and are read back from
there on demand (docs/architecture.md, "Archived games").

The game's row stays, with its final state (``Game.state``, the projection) and everything else
a list, a leaderboard or the statistics read; only the log moves. An archived game answers
its replay, states, events, export and the player's data export exactly as before: every read
of a game's log goes through ``game_events_between`` (or ``game_event_with_key``), which reads
the table, or the file for an archived game.

A file is gzip'd JSON lines: a header line (the format, the game, its version and its number of
events), then one line per event with every column of the row. Compressed with a fixed header
(no name, no time), so the same log always gives the same bytes: a run that stops between the
file and the database, run again, finds the same file and reuses it. Its SHA-256 is stored on
the game (``Game.archive_sha256``), so a file changed or cut short is an error, never a silent
wrong answer (``ArchiveUnreadableError``, answered as 503 ``archive_unreadable``).

Nothing is kept in process memory across requests: a game's archived log is read once per
request at most, cached on the ``Game`` instance that request loaded.
"""

from __future__ import annotations

import datetime
import gzip
import hashlib
import io
import json
import logging
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.core.files.storage import Storage, storages

from games.models import Game, GameEvent

logger = logging.getLogger(__name__)

# The alias of the archive's storage in settings.STORAGES (a local directory by default, any
# Django storage by setting: docs/settings.md, "Archived games").
ARCHIVE_STORAGE = "scorpion_archive"
ARCHIVE_FORMAT = "scorpion-archive/1"
_EVENT_COLUMNS = ("id", "seq", "type", "payload", "idempotency_key", "request_fingerprint")
# The attribute of a Game instance caching its archived log for the request that loaded it.
_CACHE = "_archived_events"
# How many files ``archived_events_read`` reads at once.
PARALLEL_READS = 8


class ArchiveUnreadableError(Exception):
    """An archived log that cannot be read back as it was written: the file is missing, the
    storage does not answer, or its bytes are not the ones archived (checksum, format)."""


def archive_storage() -> Storage:
    return storages[ARCHIVE_STORAGE]


def archive_name(game_id: Any) -> str:
    """Where a game's log goes in the storage: spread over 256 folders by the id's first two
    digits, so no folder of a local directory holds millions of files."""
    text = str(game_id)
    return f"games/{text[:2]}/{text}.jsonl.gz"


def archive_bytes(*, game: Game, events: list[GameEvent]) -> bytes:
    """The archive file of ``game``'s log: the same bytes for the same log."""
    lines = [
        json.dumps(
            {
                "format": ARCHIVE_FORMAT,
                "game": str(game.pk),
                "version": game.version,
                "events": len(events),
            }
        )
    ]
    for event in events:
        row = {column: getattr(event, column) for column in _EVENT_COLUMNS}
        row["created_at"] = event.created_at.isoformat()
        lines.append(json.dumps(row, ensure_ascii=False))
    text = "\n".join(lines) + "\n"
    buffer = io.BytesIO()
    # mtime=0 and no file name in the header: deterministic bytes.
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as out:
        out.write(text.encode())
    return buffer.getvalue()


def archive_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def archive_events_parse(*, game: Game, data: bytes, sha256: str) -> list[GameEvent]:
    """The events a file holds, checked against the checksum and the game: raises
    ``ArchiveUnreadableError`` unless they are exactly the game's log (seq 1 to its version)."""
    if archive_sha256(data) != sha256:
        raise ArchiveUnreadableError(f"the archive of game {game.pk} fails its checksum")
    try:
        lines = gzip.decompress(data).decode().splitlines()
        header = json.loads(lines[0])
        rows = [json.loads(line) for line in lines[1:]]
    except (OSError, EOFError, UnicodeDecodeError, ValueError, IndexError):
        raise ArchiveUnreadableError(f"the archive of game {game.pk} is not readable") from None
    expected = {
        "format": ARCHIVE_FORMAT,
        "game": str(game.pk),
        "version": game.version,
        "events": game.version,
    }
    if header != expected or [row.get("seq") for row in rows] != list(range(1, game.version + 1)):
        raise ArchiveUnreadableError(f"the archive of game {game.pk} is not this game's log")
    events = []
    for row in rows:
        event = GameEvent(
            game=game,
            created_at=datetime.datetime.fromisoformat(row["created_at"]),
            **{column: row[column] for column in _EVENT_COLUMNS},
        )
        # Loaded, not new: its save() refuses, as a row read from the table does.
        event._state.adding = False
        events.append(event)
    return events


def archive_read(*, name: str) -> bytes:
    try:
        with archive_storage().open(name, "rb") as file:
            data: bytes = file.read()
            return data
    except Exception as error:
        # Whatever the storage raises: Django's storage API leaves its errors to each backend.
        # The local directory raises OSError (a missing file); django-storages' S3 raises
        # botocore's ClientError (access denied, a 5xx) or EndpointConnectionError
        # (unreachable), which are not; either way the log cannot be read (503, not a 500).
        raise ArchiveUnreadableError(
            f"the archive {name} cannot be read: {type(error).__name__}: {error}"
        ) from None


def archived_events(*, game: Game) -> list[GameEvent]:
    """An archived game's whole log, read from its file once per ``Game`` instance."""
    cached: list[GameEvent] | None = getattr(game, _CACHE, None)
    if cached is None:
        data = archive_read(name=game.archive_name)
        cached = archive_events_parse(game=game, data=data, sha256=game.archive_sha256)
        setattr(game, _CACHE, cached)
    return cached


def archived_events_read(*, games: Iterable[Game]) -> None:
    """Read the logs of the archived ones of ``games`` into their instances (as
    ``archived_events`` does), up to ``PARALLEL_READS`` files at a time: a player's export
    reads one file per archived game, and an object store answers each in tens of
    milliseconds (30 ms: 1,000 games read one after another take 30 s, the web server's
    timeout). Raises ``ArchiveUnreadableError`` if any cannot be read. The threads read the
    storage only: no database connection is opened in them."""
    pending = [game for game in games if game.archived_at is not None and not hasattr(game, _CACHE)]
    if len(pending) < 2:
        for game in pending:
            archived_events(game=game)
        return
    with ThreadPoolExecutor(max_workers=min(PARALLEL_READS, len(pending))) as pool:
        for _events in pool.map(lambda game: archived_events(game=game), pending):
            pass


def _archived_since_read(game: Game) -> bool:
    """Whether ``game`` (read unarchived) has been archived since: then its archive fields are
    brought up to date on the instance."""
    row = (
        Game.objects.filter(pk=game.pk)
        .values("archived_at", "archive_name", "archive_sha256")
        .first()
    )
    if row is None or row["archived_at"] is None:
        return False
    for field, value in row.items():
        setattr(game, field, value)
    return True


def game_events_between(*, game: Game, after: int, stop: int) -> list[GameEvent]:
    """The events with ``after < seq <= stop`` (``stop`` at most the game's version), oldest
    first: from the table, or from the file for an archived game.

    The log has no gaps (seq 1 to the version), so a table read that finds fewer rows than
    the range holds met a game archived after it was read (its rows deleted in the archive's
    transaction), or deleted: the game's row says which, and an archived one is read from its
    file. So a read racing the archive never answers a log cut short."""
    stop = min(stop, game.version)
    if stop <= after:
        return []
    if game.archived_at is None:
        events = list(game.events.filter(seq__gt=after, seq__lte=stop).order_by("seq"))
        if len(events) == stop - after or not _archived_since_read(game):
            return events
    return [event for event in archived_events(game=game) if after < event.seq <= stop]


def game_event_with_key(*, game: Game, idempotency_key: str) -> GameEvent | None:
    """The event of the game that carried ``idempotency_key``, if any (a retried command)."""
    if game.archived_at is None:
        event = game.events.filter(idempotency_key=idempotency_key).first()
        if event is not None or not game.is_finished or not _archived_since_read(game):
            return event
    return next(
        (one for one in archived_events(game=game) if one.idempotency_key == idempotency_key),
        None,
    )
