"""Moving finished games' logs to the archive (games/archive.py): beat's task and
``manage.py archive_finished_games`` call ``game_logs_archive``; a player's data deleted takes
their archive files with it (``owner_archives_delete_on_commit``)."""

from __future__ import annotations

import datetime
import logging
import uuid
from dataclasses import dataclass

from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games import archive
from games.models import Game, GameEvent, GameSnapshot
from infrastructure.transactions import on_commit_robust

logger = logging.getLogger(__name__)


# Where a run's candidates start: after this game (its finished_at, then its id) in their order.
ArchiveCursor = tuple[datetime.datetime, uuid.UUID]


@dataclass(frozen=True, slots=True)
class ArchiveRun:
    archived: int  # games whose log moved to the archive
    events: int  # event rows deleted from the table
    bytes: int  # compressed bytes written
    examined: int = 0  # candidates taken, archived or left (gone meanwhile, log not whole)
    last: ArchiveCursor | None = None  # the last of them: where a next batch goes on


def game_logs_archive(
    *, finished_before: datetime.datetime, limit: int, after: ArchiveCursor | None = None
) -> ArchiveRun:
    """Archive the logs of at most ``limit`` games finished before ``finished_before``, the
    oldest first (after ``after``: a batch of a run of several, so that the games a batch
    left are not taken again by the next). Idempotent and safe beside everything else: a
    game archived already is not taken again, and a run stopped anywhere (a time limit, a
    killed worker) leaves each game wholly in the table or wholly archived
    (``game_log_archive``). A storage that fails (a write, a read-back) raises and ends the
    run: the games archived before it stay archived, the next run goes on from the oldest
    left. A game whose log is not whole is logged and left in the table."""
    candidates = Game.objects.filter(finished_at__lt=finished_before, archived_at__isnull=True)
    if after is not None:
        at, game_id = after
        candidates = candidates.filter(Q(finished_at__gt=at) | Q(finished_at=at, pk__gt=game_id))
    rows = candidates.order_by("finished_at", "pk").values_list("finished_at", "pk")[:limit]
    batch = [(at, game_id) for at, game_id in rows if at is not None]  # none is: finished_at__lt
    archived = events = written = 0
    for _finished_at, game_id in batch:
        result = game_log_archive(game_id=game_id, finished_before=finished_before)
        if result is not None:
            archived, events, written = archived + 1, events + result[0], written + result[1]
    return ArchiveRun(
        archived=archived,
        events=events,
        bytes=written,
        examined=len(batch),
        last=batch[-1] if batch else None,
    )


def game_log_archive(
    *, game_id: uuid.UUID, finished_before: datetime.datetime
) -> tuple[int, int] | None:
    """Move one finished game's log to the archive; its (events, bytes), or None if it was not
    archived (archived already, gone, not finished before then, or its log not whole).

    The order makes every stop safe: the file is written first and read back equal, and only
    then, in one transaction, the game is marked archived and its event and snapshot rows are
    deleted. Stopped before that transaction, the game is still read from the table (a file
    may be left: the next run writes the very same bytes, since the file is deterministic, and
    reuses it); after it, from the file. The rows are deleted by game (``DELETE ... WHERE
    game_id = ...``): the one path that deletes events besides the game's own deletion,
    taken only under the game's row lock, for a finished game (which takes no more commands,
    so nothing appends to its log meanwhile), with its archive in place."""
    game = Game.objects.filter(pk=game_id).first()
    if (
        game is None
        or game.archived_at is not None
        or game.finished_at is None
        or game.finished_at >= finished_before
    ):
        return None
    events = list(GameEvent.objects.filter(game=game).order_by("seq"))
    if [event.seq for event in events] != list(range(1, game.version + 1)):
        logger.error("game %s not archived: its log is not events 1 to %d", game.pk, game.version)
        return None
    data = archive.archive_bytes(game=game, events=events)
    sha256 = archive.archive_sha256(data)
    name = archive.archive_name(game.pk)
    _file_store(name=name, data=data, sha256=sha256)
    # Read back through the storage, parsed as every read will: equal, or nothing is deleted.
    readback = archive.archive_events_parse(
        game=game, data=archive.archive_read(name=name), sha256=sha256
    )
    if [_row(event) for event in readback] != [_row(event) for event in events]:
        raise archive.ArchiveUnreadableError(f"the archive of game {game.pk} reads back wrong")
    with transaction.atomic():
        # The row lock orders this against the deletion of the player's data (which locks
        # every game row of the player first): a game deleted meanwhile is not found here, and
        # its file goes; one deleted after waits for this commit and then deletes the file
        # (owner_archives_delete_on_commit reads the archived games after taking the locks).
        locked = Game.objects.select_for_update().filter(pk=game.pk, archived_at=None).first()
        if locked is None or locked.version != game.version:
            if not Game.objects.filter(pk=game.pk).exists():
                archive.archive_storage().delete(name)
            return None
        Game.objects.filter(pk=game.pk).update(
            archived_at=timezone.now(), archive_name=name, archive_sha256=sha256
        )
        deleted, _ = GameEvent.objects.filter(game_id=game.pk).delete()
        GameSnapshot.objects.filter(game_id=game.pk).delete()
    return deleted, len(data)


def _row(event: GameEvent) -> tuple[object, ...]:
    return (
        event.pk,
        event.seq,
        event.type,
        event.payload,
        event.idempotency_key,
        event.request_fingerprint,
        event.created_at,
    )


def _file_store(*, name: str, data: bytes, sha256: str) -> None:
    """Write the file ``name``, or keep the one there if it holds these very bytes (a run
    stopped after writing it, or one running beside this one)."""
    storage = archive.archive_storage()
    if storage.exists(name):
        try:
            if archive.archive_sha256(archive.archive_read(name=name)) == sha256:
                return
        except archive.ArchiveUnreadableError:
            pass
        storage.delete(name)
    saved = storage.save(name, ContentFile(data))
    if saved != name:
        # Another run saved ``name`` between the check and the save (a storage that does not
        # overwrite gave this copy another name): its bytes are these, checked on read-back.
        storage.delete(saved)


def owner_archives_delete_on_commit(*, user_id: int) -> int:
    """Once the caller's transaction (which deletes the player's games, holding their row
    locks: ``owner_games_lock``) commits, delete the archive files of the player's games: an
    erased player's log must not outlive them in the archive. After the commit, since a file
    cannot be restored by a rollback; a file whose deletion fails then is logged (and found
    by its name, which is the game's id). The number of events the files hold (a game's
    version: its log is events 1 to it), which the deletion counts as the rows it would have
    deleted had they not been archived."""
    archived = list(
        Game.objects.filter(owner_id=user_id, archived_at__isnull=False).values_list(
            "archive_name", "version"
        )
    )
    if archived:
        names = [name for name, _version in archived]
        on_commit_robust(_files_delete, names)
    return sum(version for _name, version in archived)


def _files_delete(names: list[str]) -> None:
    """Delete each file, going on past one the storage fails to delete (left for
    ``archive_sweep_orphans``). Never raises, whatever the storage raises (not only OSError:
    botocore's errors are not): the data is deleted by then, and the hooks behind it must run
    (``infrastructure.transactions.on_commit_robust`` contains an exception too)."""
    storage = archive.archive_storage()
    for name in names:
        try:
            storage.delete(name)
        except Exception:
            logger.exception("the archive file %s of a deleted game could not be deleted", name)


@dataclass(frozen=True, slots=True)
class OrphanSweep:
    orphans: list[str]  # files of no game (deleted unless a dry run)
    kept_recent: int  # orphans younger than the grace period: perhaps of a game just made
    undated: int  # files whose storage cannot say when they were written: left alone


def archive_orphans_delete(*, written_before: datetime.datetime, dry_run: bool) -> OrphanSweep:
    """Delete the archive files whose game is gone: left when deleting a player's files failed
    after their data was erased (``_files_delete`` logs it), or by a run stopped between its
    file and its transaction for a game deleted since. An erased player's log must not stay
    in the archive. A file of a game that still exists stays, archived or not: one left by a
    stopped run is reused by the next (``_file_store``), days old by then, and is read back
    before the transaction that makes it the game's only copy commits, which a sweep cannot
    see. Only files written before ``written_before`` go: a younger one may belong to a game
    created and archived since the sweep read the games. One query per folder of the storage
    (``archive_name``'s 256), whatever the number of files."""
    storage = archive.archive_storage()
    orphans: list[str] = []
    kept_recent = undated = 0
    folders, _files = storage.listdir("games") if storage.exists("games") else ([], [])
    for folder in sorted(folders):
        _dirs, files = storage.listdir(f"games/{folder}")
        names = {f"games/{folder}/{file}" for file in files}
        games = {name: _game_id(name) for name in names}
        existing = {
            str(pk)
            for pk in Game.objects.filter(
                pk__in=[game_id for game_id in games.values() if game_id is not None]
            ).values_list("pk", flat=True)
        }
        for name in sorted(names):
            game_id = games[name]
            if game_id is not None and str(game_id) in existing:
                continue
            try:
                written = storage.get_modified_time(name)
            except NotImplementedError:
                undated += 1
                continue
            if written >= written_before:
                kept_recent += 1
                continue
            orphans.append(name)
            if not dry_run:
                storage.delete(name)
    return OrphanSweep(orphans=orphans, kept_recent=kept_recent, undated=undated)


def _game_id(name: str) -> uuid.UUID | None:
    """The game a file is of, by its name (``archive.archive_name``); None for a file of none."""
    stem = name.rsplit("/", 1)[-1].removesuffix(".jsonl.gz")
    try:
        game_id = uuid.UUID(stem)
    except ValueError:
        return None
    return game_id if archive.archive_name(game_id) == name else None
