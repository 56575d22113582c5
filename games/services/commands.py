"""A player's command applied to the event log: validated by the engine, then the version
compare-and-set and the event appended in one statement on PostgreSQL."""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast
from uuid import UUID

from allauth.idp.oidc.models import Client
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, models, transaction
from django.utils import timezone
from django.utils.module_loading import import_string
from django.utils.translation import gettext

from accounts.models import AppKind
from games import archive, history, selectors
from games.broadcast import publish
from games.history import Command, GameState
from games.models import (
    FINISHED_STATUSES,
    SNAPSHOT_INTERVAL,
    Game,
    GameEvent,
    GameMode,
    GameSnapshot,
    daily_reveal_moment,
)
from games.services.analysis import game_analysis_enqueue_on_commit
from infrastructure.transactions import on_commit_robust
from infrastructure.wiring import wired_functions

# How often a command without expected_version is retried after losing a race to another
# command on the same game. Each retry re-reads the game and re-validates the command against
# the position that won, so a retry can never apply a stale move.
MAX_ATTEMPTS = 5


def _finish_recorder(path: str) -> Callable[..., None]:
    """What counts a finished game in the statistics, by the path the configuration names
    (``settings.GAME_FINISHED_RECORDER``: ``stats.services.stats_record_game_finished``).

    Called, not published: the command calls it in the transaction that appends the finishing
    event, so the statistics can never miss or double a game, and an error in it rolls the
    command back. By path so that ``games`` stands below ``stats`` (which reads the games'
    models) without importing it: the configuration, above both, wires them together, as it
    does the API's scope check (``settings.API_SCOPE_CHECK``). Looked up at each call (a
    dictionary lookup of a module already imported, once per finished game), so it is always
    the function the stats module holds now."""
    recorder: Callable[..., None] = import_string(path)
    return recorder


class VersionConflictError(Exception):
    def __init__(self, game: Game, expected: int | None) -> None:
        self.game = game
        self.expected = expected
        super().__init__(
            gettext(
                "the game is at version %(version)d: it changed meanwhile; reload it and try again"
            )
            % {"version": game.version}
            if expected is None
            else gettext(
                "the game is at version %(version)d, not %(expected)d: it changed meanwhile; "
                "reload it and try again"
            )
            % {"version": game.version, "expected": expected}
        )


class IdempotencyKeyReusedError(Exception):
    """The key was already used on this game for a different command."""


@dataclass(frozen=True, slots=True)
class CommandResult:
    game: Game
    state: GameState
    event: GameEvent
    replayed: bool  # True when an Idempotency-Key matched an earlier command


@dataclass(frozen=True, slots=True)
class PlayingApp:
    """The third-party app a request comes from (an access token's app), and its kind
    (accounts.models.AppKind: ``client`` or ``bot``). None for first-party play."""

    client: Client
    kind: str

    @property
    def is_bot(self) -> bool:
        return self.kind == AppKind.BOT


def _fingerprint(request: list[Any]) -> str:
    return hashlib.sha256(json.dumps(request).encode()).hexdigest()


def request_fingerprint(command: Command) -> str:
    request: list[Any] = [command.type, command.card, command.to]
    if command.source is not None:
        request.append(command.source)  # only then: older fingerprints stay as they were
    if command.copy is not None:
        request.append({"copy": command.copy})  # likewise
    return _fingerprint(request)


def game_execute_command(
    *,
    owner: User,
    game_id: UUID,
    command: Command,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
    app: PlayingApp | None = None,
) -> CommandResult:
    """Apply one command: append its event and update the projection, atomically. A command
    of a bot (``app``) marks the game as played by it (``Game.app_kind``): a game a person
    started and a bot played never ranks either.

    Why this is safe under concurrency, on any number of web processes:
    - Each attempt reads the game, computes the new state with the engine, then writes with a
      compare-and-set: ``UPDATE game SET version = v + 1 ... WHERE id = ? AND version = v``,
      and appends the event only if that UPDATE matched, atomically (``_append``). Of two
      commands that read version v, PostgreSQL lets only the first UPDATE match (the second
      waits for the first's row lock, re-checks the WHERE on the committed row, and matches
      nothing), so exactly one of them appends event v + 1. The read needs no transaction:
      the compare-and-set fails unless the row is still the one read.
    - The loser wrote nothing. With ``expected_version`` it answers 409; without, it re-reads
      and re-validates its command against the winner's position and tries again.
    - ``UniqueConstraint(game, seq)`` backs this up in the database: even a code path that
      skipped the compare-and-set could not append a duplicate ``seq``; and since ``seq`` is
      always the version read plus one under that compare-and-set, the log has no gaps.
    - An ``Idempotency-Key`` is looked up before anything else; a concurrent duplicate loses
      the compare-and-set, retries, and then finds the first one's event
      (``UniqueConstraint(game, idempotency_key)`` guards this too).
    - A command that ends the game updates the statistics in the same transaction as its
      event (``settings.GAME_FINISHED_RECORDER``), so they can never miss or double a game.
    """
    fingerprint = request_fingerprint(command)
    for _attempt in range(MAX_ATTEMPTS):
        game = selectors.game_get(owner=owner, game_id=game_id)
        if idempotency_key is not None:
            # An archived game's log is in its file (a retry of its last command, long after).
            prior = archive.game_event_with_key(game=game, idempotency_key=idempotency_key)
            if prior is not None:
                if prior.request_fingerprint != fingerprint:
                    raise IdempotencyKeyReusedError(
                        gettext(
                            "this Idempotency-Key was already used for a different command on "
                            "this game"
                        )
                    )
                # The game may have been read before the first command committed and its
                # event after: read the game again, which now includes that command (it
                # committed with its event).
                game.refresh_from_db()
                state = selectors.game_state_at(game=game, version=prior.seq)
                return CommandResult(game, state, prior, replayed=True)
        if expected_version is not None and expected_version != game.version:
            raise VersionConflictError(game, expected_version)

        state = GameState.from_dict(game.state)
        outcome = history.apply_command(state, command)  # raises EngineError
        new_state = outcome.state
        now = timezone.now()
        new_status = new_state.status
        # Absolute values, not F() expressions: the compare-and-set guarantees the row is
        # still exactly what was read, so the values computed from it are current, and the
        # same values then bring the in-memory game up to date without a re-read.
        changes: dict[str, Any] = {
            "version": game.version + 1,
            "state": new_state.to_dict(),
            "status": new_status,
            "moves": new_state.moves,
            "updated_at": now,
        }
        if outcome.event_type == "undo":
            changes["undo_count"] = game.undo_count + 1
        if app is not None and app.is_bot and game.app_kind != AppKind.BOT:
            # In the same compare-and-set as the command: no bot's move lands unmarked.
            changes["app_id"] = app.client.pk
            changes["app_kind"] = AppKind.BOT
        if game.started_at is None and outcome.event_type in ("move", "deal"):
            changes["started_at"] = now
        finishing = new_status in FINISHED_STATUSES
        if finishing:
            changes["finished_at"] = now
            if not game.known_deal and _deal_public(game, now):
                # Its deal was public before it ended (the game was left open past the reveal):
                # it may have been finished with the deal to hand, so it counts as a replay.
                changes["known_deal"] = True
        event = GameEvent(
            game=game,
            seq=game.version + 1,
            type=outcome.event_type,
            payload=outcome.payload,
            idempotency_key=idempotency_key,
            request_fingerprint=fingerprint,
            created_at=now,
        )
        if finishing:
            with transaction.atomic():
                if not _append(game, changes, event):
                    continue  # another command got there first; nothing was written
                # Same transaction as the event: the stats can never miss or double a game.
                _finish_recorder(settings.GAME_FINISHED_RECORDER)(game=game)
                game_analysis_enqueue_on_commit(game=game)
                for hook in game_finished_hooks():
                    hook(game=game)
        elif not _append(game, changes, event):
            continue  # another command got there first; nothing was written
        # Live streams get the event once it is durable (a lost publish is repaired from the
        # log by the stream itself). Outside a transaction the statement above has committed
        # already, and on_commit runs at once.
        if app is not None and game.app_id == app.client.pk:
            game.app = app.client  # the answer names the app without reading it again
        on_commit_robust(publish.game_event_committed, game, new_state, event)
        return CommandResult(game, new_state, event, replayed=False)
    current = selectors.game_get(owner=owner, game_id=game_id)
    raise VersionConflictError(current, expected_version)


def _deal_public(game: Game, now: datetime.datetime) -> bool:
    """Whether a daily game's deal is revealed to everyone by ``now``
    (``daily_reveal_moment``): any finished game of that day then shows it, so a game that
    ends after it is one of a known deal (``Game.known_deal``), however it began."""
    return (
        game.mode == GameMode.DAILY
        and game.daily_date is not None
        and now >= daily_reveal_moment(game.daily_date)
    )


def game_finished_hooks() -> tuple[Callable[..., None], ...]:
    """The functions told of every game that ends, in the transaction that ends it
    (``settings.GAME_FINISHED_HOOKS``, dotted paths: the layers above the games, such as the
    challenges' notices in social, are named there so that the games import none of them)."""
    return wired_functions("GAME_FINISHED_HOOKS")


def _append(game: Game, changes: dict[str, Any], event: GameEvent) -> bool:
    """Compare-and-set the game from ``game.version`` to ``changes`` and append ``event``
    (and, at a multiple of ``SNAPSHOT_INTERVAL``, the snapshot of the new state), all or
    nothing; False, having written nothing, if the game is no longer at ``game.version``.
    On success ``game`` and ``event`` are brought up to date in memory.

    On PostgreSQL one statement does it all: the UPDATE with the compare-and-set in a
    data-modifying CTE, and the INSERTs selecting from its RETURNING, so an INSERT happens only
    if the UPDATE matched, and one statement is one transaction (no BEGIN or COMMIT round
    trip unless the caller opened a transaction). Elsewhere the ORM does the same in a
    transaction.
    """
    snapshot = event.seq % SNAPSHOT_INTERVAL == 0
    if connection.vendor == "postgresql":
        statement, params = _append_statement(game, changes, event, snapshot=snapshot)
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            row = cursor.fetchone()
        if row is None:
            return False
        event.pk = row[0]
        event._state.adding = False
        event._state.db = connection.alias
    else:
        with transaction.atomic():
            if not Game.objects.filter(pk=game.pk, version=game.version).update(**changes):
                return False
            event.save(force_insert=True)
            if snapshot:
                GameSnapshot.objects.create(game=game, version=event.seq, state=changes["state"])
    for name, value in changes.items():
        setattr(game, name, value)
    return True


def _field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    return cast("models.Field[Any, Any]", model._meta.get_field(name))


def _column(model: type[models.Model], name: str) -> str:
    """A column's quoted name (``pk`` for the primary key)."""
    field = model._meta.pk if name == "pk" else _field(model, name)
    return str(connection.ops.quote_name(str(field.column)))


def _table(model: type[models.Model]) -> str:
    return str(connection.ops.quote_name(model._meta.db_table))


_EVENT_FIELDS = ("seq", "type", "payload", "idempotency_key", "request_fingerprint", "created_at")


def _append_statement(
    game: Game, changes: dict[str, Any], event: GameEvent, *, snapshot: bool
) -> tuple[str, list[Any]]:
    """The one statement of ``_append`` on PostgreSQL, and its parameters (each prepared by
    its field, as the ORM would)."""
    statement, game_fields, event_fields = _append_sql(tuple(changes), snapshot)
    params: list[Any] = [
        field.get_db_prep_save(value, connection)
        for field, value in zip(game_fields, changes.values(), strict=True)
    ]
    params += [game.pk, game.version]
    if snapshot:
        state = _field(GameSnapshot, "state").get_db_prep_save(changes["state"], connection)
        params += [event.seq, state]
    params += [
        field.get_db_prep_save(getattr(event, name), connection)
        for name, field in zip(_EVENT_FIELDS, event_fields, strict=True)
    ]
    return statement, params


@functools.cache
def _append_sql(
    names: tuple[str, ...], snapshot: bool
) -> tuple[str, tuple[models.Field[Any, Any], ...], tuple[models.Field[Any, Any], ...]]:
    """The statement's text for the game columns ``names`` (a handful of combinations: built
    once per process each), and the fields that prepare its parameters."""
    sets = ", ".join(f"{_column(Game, name)} = %s" for name in names)
    statement = (
        f"WITH moved AS (UPDATE {_table(Game)} SET {sets} "
        f"WHERE {_column(Game, 'pk')} = %s AND {_column(Game, 'version')} = %s "
        f"RETURNING {_column(Game, 'pk')} AS id)"
    )
    if snapshot:
        statement += (
            f", kept AS (INSERT INTO {_table(GameSnapshot)} ({_column(GameSnapshot, 'game')}, "
            f"{_column(GameSnapshot, 'version')}, {_column(GameSnapshot, 'state')}) "
            "SELECT id, %s, %s FROM moved)"
        )
    columns = ", ".join(_column(GameEvent, name) for name in ("game", *_EVENT_FIELDS))
    statement += (
        f" INSERT INTO {_table(GameEvent)} ({columns}) "
        f"SELECT id, {', '.join(['%s'] * len(_EVENT_FIELDS))} FROM moved "
        f"RETURNING {_column(GameEvent, 'pk')}"
    )
    game_fields = tuple(_field(Game, name) for name in names)
    return statement, game_fields, tuple(_field(GameEvent, name) for name in _EVENT_FIELDS)
