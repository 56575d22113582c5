"""Writes to games: create, restart, and apply a player's command to the event log."""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
import logging
import math
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, cast
from uuid import UUID

import redis
from allauth.idp.oidc.models import Client
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache, caches
from django.db import IntegrityError, connection, models, transaction
from django.db.models import F, Q
from django.http import Http404
from django.utils import timezone

from accounts.models import AppKind
from accounts.services import account_lock
from games import history, selectors
from games.analysis import analyse, analysis_budgets, inline_analysis_budgets
from games.broadcast import publish
from games.deal_choice import DealChoice
from games.engine.cards import parse_deal_code
from games.engine.chances import DEFAULT_CHANCE_NODE_BUDGET, TimeUp, VisibleTable, chances
from games.engine.deals import daily_seed, deal_code_for_pysol, deal_code_for_seed, random_seed
from games.engine.difficulty import BANDS, band_for, rate
from games.engine.solver import Solution, solve
from games.engine.solver import compiled as solver_compiled
from games.engine.variant_solver import compiled as variants_compiled
from games.history import Command, GameFinishedError, GameState
from games.models import (
    DAILY_REVEAL_DAYS,
    FINISHED_STATUSES,
    PLAYED,
    SNAPSHOT_INTERVAL,
    DailyDeal,
    Game,
    GameAnalysis,
    GameChances,
    GameEvent,
    GameMode,
    GameSnapshot,
    GameStatus,
    RankedDailyClaim,
    WinnableDeal,
    daily_reveal_moment,
)
from games.variants import (
    CERTIFIED_VARIANTS,
    CHANCES_VARIANTS,
    DEFAULT_VARIANT,
    deal_state,
    normalise_deal_code,
    offered_variant_choices,
    variant_named,
)
from games.variants import deal_code_for_seed as variant_deal_code_for_seed
from infrastructure import background, throttles
from infrastructure.cache import redis_client
from infrastructure.queues import ANALYSIS_TASK, CHANCES_TASK, POOL_TOP_UP_TASK, queue_for
from stats import services as stats_services

logger = logging.getLogger(__name__)

# How often a command without expected_version is retried after losing a race to another
# command on the same game. Each retry re-reads the game and re-validates the command against
# the position that won, so a retry can never apply a stale move.
MAX_ATTEMPTS = 5


class VersionConflictError(Exception):
    def __init__(self, game: Game, expected: int | None) -> None:
        self.game = game
        self.expected = expected
        super().__init__(
            f"the game is at version {game.version}"
            + ("" if expected is None else f", not {expected}")
            + ": it changed meanwhile; reload it and try again"
        )


class IdempotencyKeyReusedError(Exception):
    """The key was already used on this game for a different command."""


@dataclass(frozen=True, slots=True)
class CommandResult:
    game: Game
    state: GameState
    event: GameEvent
    replayed: bool  # True when an Idempotency-Key matched an earlier command


class VariantNotOfferedError(Exception):
    """The variant cannot be played in the mode asked for (the daily challenge and the
    winnable pool are Scorpion deals; PySolFC numbers deal Scorpion), or is no longer offered
    for new games (kept for the games begun in it)."""


@dataclass(frozen=True, slots=True)
class PlayingApp:
    """The third-party app a request comes from (an access token's app), and its kind
    (accounts.models.AppKind: ``client`` or ``bot``). None for first-party play."""

    client: Client
    kind: str

    @property
    def is_bot(self) -> bool:
        return self.kind == AppKind.BOT


def game_create(
    *,
    owner: User,
    choice: DealChoice,
    idempotency_key: str | None = None,
    app: PlayingApp | None = None,
) -> Game:
    """A new game at version 0; the deal belongs to the game, not to an event. ``app``: the
    third-party app that starts it (recorded on the game: a bot's games never rank).

    With an ``idempotency_key``, a retried create returns the game the first one made (a
    lost answer can be retried safely); the key reused for another request is refused.
    """
    request: list[Any] = ["create", choice.mode, choice.seed, choice.code, choice.pysol_number]
    if choice.variant != DEFAULT_VARIANT:
        # Appended only for other variants: a Scorpion create keeps the fingerprint it had
        # before variants, so a retry across the upgrade still finds its game.
        request.append(choice.variant)
    if choice.difficulty is not None:
        # Appended only when given, so the fingerprints of earlier keys stay the same.
        request.append({"difficulty": choice.difficulty})
    fingerprint = _fingerprint(request)
    prior = _prior_creation(owner=owner, key=idempotency_key, fingerprint=fingerprint)
    if prior is not None:
        return prior
    chosen = variant_named(choice.variant)  # raises UnknownVariantError
    variant = chosen.name
    if not chosen.offered:
        # Kept so that the games begun in it replay and go on (a restart keeps its game's
        # variant); a new game takes today's rules (docs/rules.md, "The Scorpion family").
        offered = ", ".join(name for name, _ in offered_variant_choices())
        raise VariantNotOfferedError(
            f"{chosen.title} is kept for the games begun in it; a new game is one of {offered}"
        )
    if variant not in CERTIFIED_VARIANTS and choice.mode in (GameMode.DAILY, GameMode.WINNABLE):
        raise VariantNotOfferedError(
            f"the {choice.mode} mode deals Scorpion only, not {variant}: the daily challenge is "
            "one deal for everyone, and its deals and the winnable pool are certified by the "
            "Scorpion solver ahead of time (play a random or seeded game of this variant)"
        )
    if variant != DEFAULT_VARIANT and choice.pysol_number is not None:
        raise VariantNotOfferedError(
            f"PySolFC numbers deal Scorpion only, not {variant}: give a seed or a deal code"
        )
    creation = _Creation(owner, idempotency_key, fingerprint, app)
    if choice.mode == GameMode.DAILY:
        daily = daily_deal_ensure(day=timezone.now().date())
        identities = selectors.ranked_identities(owner=owner)
        return _create_game(
            creation,
            mode=GameMode.DAILY,
            deal_code=daily.deal_code,
            seed=daily.seed,
            daily_date=daily.date,
            difficulty=daily.difficulty_band,
            # The first attempt of the day ranks, every later one is practice (docs/api.md),
            # even once the games are deleted (RankedDailyClaim). Only a hint: the unique
            # constraints decide between racing creates (_create_game).
            ranked=not selectors.ranked_attempt_had(
                owner=owner, day=daily.date, identities=identities
            ),
            claims=identities,
        )
    if choice.mode == GameMode.WINNABLE:
        deal = winnable_deal_draw(owner=owner, difficulty=choice.difficulty)
        return _create_game(
            creation,
            mode=GameMode.WINNABLE,
            deal_code=deal.deal_code,
            seed=deal.seed,
            difficulty=deal.difficulty_band,
        )
    seed: int | None = choice.seed
    if choice.code is not None:
        # Read in the chosen variant: raises DealCodeError naming what is wrong.
        deal_code = normalise_deal_code(choice.code, variant)
    elif choice.pysol_number is not None:
        deal_code = deal_code_for_pysol(choice.pysol_number)
    else:
        if seed is None:
            seed = random_seed()
        deal_code = variant_deal_code_for_seed(seed, variant)
    return _create_game(
        creation,
        mode=choice.mode,
        variant=variant,
        deal_code=deal_code,
        seed=seed,
        pysol_number=choice.pysol_number,
        deal_supplied=choice.mode != GameMode.RANDOM,
    )


def game_restart(
    *,
    owner: User,
    game_id: UUID,
    idempotency_key: str | None = None,
    app: PlayingApp | None = None,
) -> Game:
    """A new game with the same deal as the given one (docs/rules.md, restart). A restarted daily
    game is practice: only the first attempt of the day ranks. ``app`` as for ``game_create``."""
    original = selectors.game_get(owner=owner, game_id=game_id)
    fingerprint = _fingerprint(["restart", str(original.pk)])
    prior = _prior_creation(owner=owner, key=idempotency_key, fingerprint=fingerprint)
    if prior is not None:
        return prior
    return _create_game(
        _Creation(owner, idempotency_key, fingerprint, app),
        mode=original.mode,
        variant=original.variant,
        deal_code=original.deal_code,
        seed=original.seed,
        pysol_number=original.pysol_number,
        deal_supplied=original.deal_supplied,
        daily_date=original.daily_date,
        difficulty=original.difficulty,
        restarted_from=original,
    )


@dataclass(frozen=True, slots=True)
class _Creation:
    """Who creates a game, the Idempotency-Key (with its request's fingerprint) if any, and
    the third-party app the request comes from, if any."""

    owner: User
    key: str | None
    fingerprint: str
    app: PlayingApp | None = None


def _fingerprint(request: list[Any]) -> str:
    return hashlib.sha256(json.dumps(request).encode()).hexdigest()


def _prior_creation(*, owner: User, key: str | None, fingerprint: str) -> Game | None:
    if key is None:
        return None
    prior = Game.objects.filter(owner=owner, creation_key=key).first()
    if prior is not None and prior.creation_fingerprint != fingerprint:
        raise IdempotencyKeyReusedError(
            "this Idempotency-Key was already used for a different request"
        )
    return prior


# How long a day's claims are kept after it: a day, so that a clock skew between servers
# around midnight cannot free the day again while it is still "today" somewhere.
RANKED_CLAIM_KEPT = datetime.timedelta(days=1)


def ranked_claims_purge(*, today: datetime.date) -> int:
    """Delete the claims of days no attempt can rank any more (a ranked attempt begins on its
    own day only): the ledger keeps no more than it needs. Returns how many went."""
    deleted, _ = RankedDailyClaim.objects.filter(day__lt=today - RANKED_CLAIM_KEPT).delete()
    return deleted


def _create_game(
    creation: _Creation,
    *,
    mode: str,
    deal_code: str,
    seed: int | None,
    variant: str = DEFAULT_VARIANT,
    pysol_number: int | None = None,
    deal_supplied: bool = False,
    daily_date: datetime.date | None = None,
    difficulty: str = "",
    restarted_from: Game | None = None,
    ranked: bool = False,
    claims: Sequence[str] = (),
) -> Game:
    state = deal_state(deal_code, variant)
    known_deal = (restarted_from is not None and restarted_from.is_finished) or _deal_seen(
        owner=creation.owner, variant=variant, deal_code=deal_code
    )
    fields: dict[str, Any] = {
        "owner": creation.owner,
        "mode": mode,
        "variant": variant,
        "deal_code": deal_code,
        "seed": seed,
        "pysol_number": pysol_number,
        "deal_supplied": deal_supplied,
        "daily_date": daily_date,
        "difficulty": difficulty,
        "restarted_from": restarted_from,
        "known_deal": known_deal,
        "state": state.to_dict(),
        "status": state.status,
        "creation_key": creation.key,
        "creation_fingerprint": creation.fingerprint if creation.key else "",
        "app": creation.app.client if creation.app else None,
        "app_kind": creation.app.kind if creation.app else "",
    }
    try:
        # A savepoint: two racing creates with the same key collide on the unique
        # (owner, creation_key) constraint, and the loser returns the winner's game. Two
        # racing first attempts at a daily collide on the one-ranked-attempt constraint.
        with transaction.atomic():
            # Not while the player's data or account is being deleted (accounts.services):
            # the new game lands after the deletion, or not at all if the account went.
            if not account_lock(user_id=creation.owner.pk):
                raise Http404("no such account: it was closed")
            if (
                restarted_from is not None
                and not Game.objects.filter(pk=restarted_from.pk).exists()
            ):
                raise Http404("no such game")  # erased meanwhile, with the player's data
            if ranked:
                # The player's identities claim the day's ranked attempt in the same savepoint
                # as the game: two racing first attempts (two devices, or two accounts of one
                # e-mail) collide on the claims' unique constraint, and the loser is practice.
                assert daily_date is not None  # only a daily game ranks (a check constraint)
                RankedDailyClaim.objects.bulk_create(
                    [RankedDailyClaim(identity=identity, day=daily_date) for identity in claims]
                )
            game = Game.objects.create(**fields, ranked=ranked)
            _created(game)
            _abandon_left_behind(owner=creation.owner, game=game, restarted_from=restarted_from)
    except IntegrityError:
        prior = _prior_creation(
            owner=creation.owner, key=creation.key, fingerprint=creation.fingerprint
        )
        if prior is not None:
            return prior
        if not ranked:
            raise
        # Another device's first attempt of the day committed first: this one is practice.
        with transaction.atomic():
            game = Game.objects.create(**fields, ranked=False)
            _created(game)
            _abandon_left_behind(owner=creation.owner, game=game, restarted_from=restarted_from)
    return game


def revealed_to_player(*, today: datetime.date) -> Q:
    """The games whose whole deal their player has seen: won (every card ends face up), or
    whose deal the game shows (``Game.reveals_deal``: any finished game or a supplied deal;
    a daily game once its day and the next are over). A new game of such a deal is a game of
    a known deal (``Game.known_deal``)."""
    return (
        Q(status=GameStatus.WON)
        | (~Q(mode=GameMode.DAILY) & (Q(deal_supplied=True) | Q(status__in=FINISHED_STATUSES)))
        | Q(mode=GameMode.DAILY, daily_date__lte=today - datetime.timedelta(days=DAILY_REVEAL_DAYS))
    )


def _deal_seen(*, owner: User, variant: str, deal_code: str) -> bool:
    """Whether one of the player's games has shown them this deal whole (``Game.known_deal``).
    One query on the owner's index, read before the game is created: a game finishing
    meanwhile on another device makes the next game of the deal one of a known deal, not this
    one."""
    return (
        Game.objects.filter(owner=owner, variant=variant, deal_code=deal_code)
        .filter(revealed_to_player(today=timezone.now().date()))
        .exists()
    )


def _created(game: Game) -> None:
    """Publish the new game once committed: registered before the abandonments it causes, so
    the player's feed hears of the new game first, then of the games it left behind, in the
    order of their feed ids (created_at, then finished_at). A hook registered in a savepoint
    that rolls back is dropped with it."""
    transaction.on_commit(partial(publish.game_created_committed, game), robust=True)


def _abandon_left_behind(*, owner: User, game: Game, restarted_from: Game | None) -> None:
    """Abandon the games the player leaves behind by starting ``game``: every other game of
    theirs of the same kind (mode and variant) still in play or stuck, and the game it
    restarts. A random Wasp game leaves a random Scorpion game open, as a second table would.

    One game in play per kind of deal, as PySolFC and Microsoft Solitaire count: a game left
    behind after at least one move counts as played and not won (stats), so quitting a bad
    deal for a new one costs what resigning costs. An ``abandon`` event is appended to each
    (the log stays the truth; its streams and the player's feed hear of it) through the same
    compare-and-set as any command, in the transaction that creates the new game.
    """
    left = Game.objects.filter(
        owner=owner, status__in=(GameStatus.PLAYING, GameStatus.STUCK)
    ).exclude(pk=game.pk)
    same_kind = Q(mode=game.mode, variant=game.variant)
    if restarted_from is not None:
        same_kind |= Q(pk=restarted_from.pk)
    for game_id in left.filter(same_kind).order_by("pk").values_list("pk", flat=True):
        try:
            game_execute_command(owner=owner, game_id=game_id, command=Command("abandon"))
        except (GameFinishedError, Http404):
            continue  # finished or erased meanwhile: nothing left behind


def game_hints_request(*, owner: User, game_id: UUID) -> tuple[Game, selectors.HintsView]:
    """The hints a player asked for; asking is counted (``Game.hint_count``), since a win
    without hints is a "clean" win in the statistics.

    Counting must not cost a write of the game row per read. So only the game's first hint is
    written at once (an F() increment, outside the version's compare-and-set: a hint changes
    no position, and no command writes this column): that one decides whether a win can be
    clean, so it is in the database before the answer leaves. Later hints only change the
    number: with Redis they are counted there (one pipelined round trip) and added to the row
    in batches (``hint_counts_flush``, every minute, by the worker). Without Redis, or with
    Redis failing, every hint is written at once, as before.
    """
    game = selectors.game_get(owner=owner, game_id=game_id)
    hints = selectors.game_hints(game=game)
    if not game.is_finished and (game.hint_count == 0 or not _hint_pending(game.pk)):
        Game.objects.filter(pk=game.pk).update(hint_count=F("hint_count") + 1)
    return game, hints


# Redis keys (through the cache, so with its prefix) of hints counted but not yet written: one
# counter per game, and the set of games that have one. A day's TTL bounds what a lost flush
# could leave behind; the flush runs every minute.
_HINTS_PENDING = "hints:pending:{game}"
_HINTS_GAMES = "hints:games"
_HINTS_TTL = 86400


def _hint_pending(game_id: UUID) -> bool:
    """Count one hint of the game in Redis; False if there is no Redis or it failed."""
    cache = caches["default"]
    client = redis_client(cache)
    if client is None:
        return False
    counter = cache.make_and_validate_key(_HINTS_PENDING.format(game=game_id))
    try:
        with client.pipeline(transaction=False) as pipe:
            pipe.incr(counter)
            pipe.expire(counter, _HINTS_TTL)
            pipe.sadd(cache.make_and_validate_key(_HINTS_GAMES), str(game_id))
            pipe.execute()
    except redis.RedisError as exc:
        logger.warning("could not count a hint in Redis, writing it at once: %s", exc)
        return False
    return True


def hint_counts_flush(*, batch: int = 500) -> int:
    """Add the hints counted in Redis to their games' rows; returns how many hints.

    Each game's counter is taken with GETDEL (atomic: two flushes cannot both add it) and
    added with one UPDATE; if the UPDATE fails, the count goes back to Redis. Hints counted
    meanwhile start a new counter. A game deleted meanwhile takes its hints with it.
    """
    cache = caches["default"]
    client = redis_client(cache)
    if client is None:
        return 0
    games_key = cache.make_and_validate_key(_HINTS_GAMES)
    flushed = 0
    while True:
        game_ids = [member.decode() for member in client.spop(games_key, batch) or []]
        if not game_ids:
            return flushed
        for game_id in game_ids:
            counter = cache.make_and_validate_key(_HINTS_PENDING.format(game=game_id))
            count = int(client.getdel(counter) or 0)
            if not count:
                continue
            try:
                Game.objects.filter(pk=game_id).update(hint_count=F("hint_count") + count)
            except Exception:
                with client.pipeline(transaction=False) as pipe:
                    pipe.incrby(counter, count)
                    pipe.expire(counter, _HINTS_TTL)
                    pipe.sadd(games_key, game_id)
                    pipe.execute()
                raise
            flushed += count


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
      event, so they can never miss or double a game.
    """
    fingerprint = request_fingerprint(command)
    for _attempt in range(MAX_ATTEMPTS):
        game = selectors.game_get(owner=owner, game_id=game_id)
        if idempotency_key is not None:
            prior = game.events.filter(idempotency_key=idempotency_key).first()
            if prior is not None:
                if prior.request_fingerprint != fingerprint:
                    raise IdempotencyKeyReusedError(
                        "this Idempotency-Key was already used for a different command on this game"
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
                stats_services.stats_record_game_finished(game=game)
                game_analysis_enqueue_on_commit(game=game)
        elif not _append(game, changes, event):
            continue  # another command got there first; nothing was written
        # Live streams get the event once it is durable (a lost publish is repaired from the
        # log by the stream itself). Outside a transaction the statement above has committed
        # already, and on_commit runs at once.
        if app is not None and game.app_id == app.client.pk:
            game.app = app.client  # the answer names the app without reading it again
        transaction.on_commit(
            partial(publish.game_event_committed, game, new_state, event), robust=True
        )
        return CommandResult(game, new_state, event, replayed=False)
    current = selectors.game_get(owner=owner, game_id=game_id)
    raise VersionConflictError(current, expected_version)


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


# --- Certified deals: the daily challenge and the winnable pool ---

# Node budgets, not time budgets, bound the solver here: a node budget gives the same verdict
# on every machine, so every process that derives a day's deal derives the same one.
DAILY_NODE_BUDGET = 300_000
POOL_NODE_BUDGET = 300_000
# How many candidates a day may need at most: with about one random deal in nine winnable and
# a budget that decides most deals, running out would take astronomically bad luck; the bound
# turns a bug into a clear error instead of an endless loop.
MAX_DAILY_CANDIDATES = 500


class CertificationError(Exception):
    """No deal could be certified within the bounds."""


class DifficultyUnavailableError(Exception):
    """No unplayed deal of the band the player asked for, right now (problem
    ``difficulty_unavailable``): the pool's top-up restocks it."""


class SolverLimitError(Exception):
    """The player has started as many solver runs as ``THROTTLE_SOLVER`` allows for now
    (the API's 429 ``throttled``); ``wait`` is the seconds until they may start another."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        super().__init__(
            "you have asked for as much solver work (winning chances, analyses, deals "
            f"certified on the spot) as is allowed for now; retry in {math.ceil(wait)} seconds"
        )


def _solver_run_take(*, owner: User) -> None:
    """Count one solver run started by the player's request, or SolverLimitError.

    Each run (chances computed or queued, an analysis computed in the request, deals certified
    on the spot) costs up to seconds of CPU or of a worker's time, and a player can make new
    work at will (a move and an undo make a new version; a resigned game wants an analysis),
    so the request throttles alone would let one account keep cores busy. Only work that
    starts is counted: what is stored or already queued is served whatever the count."""
    wait = _solver_run_count(owner_id=owner.pk)
    if wait is not None:
        raise SolverLimitError(wait)


def _solver_run_count(*, owner_id: int) -> float | None:
    """Count one solver run of the player: None if within the limit, else the seconds left."""
    rates = cast(dict[str, str], settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    return throttles.take(f"solver:{owner_id}", rates["solver"], now=time.time())


def _difficulty_fields(deal_code: str, solution: Solution) -> dict[str, Any]:
    """The rating of a deal just certified (games.engine.difficulty), as model fields. A
    fresh rating is the model's alone: calibration (``deal_difficulty_calibrate``) comes
    with players' games."""
    rating = rate(deal_code, solution=solution)
    return {
        "difficulty_band": rating.band,
        "difficulty_score": rating.score,
        "difficulty_model_score": rating.score,
        "difficulty_measures": rating.measures.to_dict(),
        "difficulty_games": 0,
    }


def _certify(deal_code: str, *, node_budget: int) -> Solution | None:
    """The solver's winning line for a deal, or None when it is lost or undecided."""
    solution = solve(parse_deal_code(deal_code), node_budget=node_budget, time_budget=None)
    return solution if solution.verdict == "won" else None


def _daily_secret() -> bytes:
    """The key of the daily deals (settings.DAILY_DEAL_SECRET, docs/deals.md)."""
    return str(settings.DAILY_DEAL_SECRET).encode()


def _daily_certify(
    *, day: datetime.date, generation: int, avoid: str | None = None
) -> tuple[int, int, str, Solution]:
    """The first candidate of the day's ``generation`` that the solver proves winnable:
    ``(candidate, seed, deal_code, solution)``. A candidate dealing ``avoid`` (the deal a
    regeneration replaces) is skipped, so a regenerated day always gets another deal."""
    secret = _daily_secret()
    for candidate in range(MAX_DAILY_CANDIDATES):
        seed = daily_seed(day, candidate, secret=secret, generation=generation)
        deal_code = deal_code_for_seed(seed)
        if deal_code == avoid:
            continue
        solution = _certify(deal_code, node_budget=DAILY_NODE_BUDGET)
        if solution is not None:
            return candidate, seed, deal_code, solution
    raise CertificationError(f"no winnable deal among {MAX_DAILY_CANDIDATES} candidates of {day}")


def daily_deal_ensure(*, day: datetime.date) -> DailyDeal:
    """The day's deal, certifying it now if no worker has done so yet.

    Idempotent and safe to race: candidates are derived from the date and the server's secret,
    so every process finds the same first winnable candidate; ``DailyDeal.date`` is unique, so
    when two of them insert at once one insert wins and the other reads the winner's row.
    """
    existing = DailyDeal.objects.filter(date=day).first()
    if existing is not None:
        return existing
    candidate, seed, deal_code, solution = _daily_certify(day=day, generation=0)
    # Rated before the transaction, which stays as short as one insert. Deterministic (a seeded
    # rating of a deal every process derives alike), so racing processes rate the day alike.
    difficulty_fields = _difficulty_fields(deal_code, solution)
    try:
        with transaction.atomic():
            return DailyDeal.objects.create(
                date=day,
                seed=seed,
                generation=0,
                candidate=candidate,
                deal_code=deal_code,
                certificate=solution.line,
                solver_nodes=solution.nodes,
                solver_seconds=solution.seconds,
                **difficulty_fields,
            )
    except IntegrityError:
        return DailyDeal.objects.get(date=day)


def daily_deals_ensure_ahead(*, today: datetime.date, days_ahead: int) -> list[DailyDeal]:
    """Today's deal and the next ``days_ahead`` days', certified ahead of time, and rated: a
    day certified before ratings existed is rated here (docs/difficulty.md), so the daily
    shows its band without waiting for ``manage.py deal_difficulty --recompute``."""
    deals: list[DailyDeal] = []
    for offset in range(days_ahead + 1):
        deal = daily_deal_ensure(day=today + datetime.timedelta(days=offset))
        if not deal.difficulty_band:
            deal_difficulty_rate(deal=deal)
        deals.append(deal)
    return deals


# Past days rated per run of the daily task: a backlog of days certified before ratings existed
# is worked off a few at a time (about 0.1-0.7 s each), never in one long task.
DAILY_RATING_BACKLOG_BATCH = 10


def daily_deals_rate_backlog(
    *, today: datetime.date, limit: int = DAILY_RATING_BACKLOG_BATCH
) -> int:
    """Rate up to ``limit`` past days' deals that have no difficulty yet, latest first, so that
    every certified deal gets one without staff running ``deal_difficulty --recompute``.
    Returns how many were rated. Idempotent: a rated deal is never picked again."""
    backlog = DailyDeal.objects.filter(date__lt=today, difficulty_band="").order_by("-date")
    rated = 0
    for deal in backlog[:limit]:
        deal_difficulty_rate(deal=deal)
        rated += 1
    return rated


def daily_deal_regenerate(*, day: datetime.date, today: datetime.date) -> DailyDeal:
    """Give a future day another deal (staff), e.g. after its deal leaked. Past and current
    days are never changed: players have played them and the leaderboard depends on them.

    The day's row is kept and its ``generation`` counter goes up by one; the next generation
    is a fresh series of HMAC candidates, so the new deal differs from the old one (a
    candidate dealing the old deal again is skipped). The row is locked while the solver runs,
    so two regenerations of one day follow each other instead of both writing the same
    generation.
    """
    if day <= today:
        raise CertificationError("only a future day's deal can be regenerated")
    current = daily_deal_ensure(day=day)
    with transaction.atomic():
        deal = DailyDeal.objects.select_for_update().get(pk=current.pk)
        generation = deal.generation + 1
        candidate, seed, deal_code, solution = _daily_certify(
            day=day, generation=generation, avoid=deal.deal_code
        )
        deal.generation = generation
        deal.candidate = candidate
        deal.seed = seed
        deal.deal_code = deal_code
        deal.certificate = solution.line
        deal.solver_nodes = solution.nodes
        deal.solver_seconds = solution.seconds
        for name, value in _difficulty_fields(deal_code, solution).items():
            setattr(deal, name, value)
        deal.save()
    return deal


def _winnable_certify_random() -> WinnableDeal | None:
    """One random deal certified, rated and put in the pool; None if it is not winnable (or
    not proven so within the pool's budget). A seed certified twice keeps its first row."""
    seed = random_seed()
    deal_code = deal_code_for_seed(seed)
    solution = _certify(deal_code, node_budget=POOL_NODE_BUDGET)
    if solution is None:
        return None
    deal, _created = WinnableDeal.objects.get_or_create(
        seed=seed,
        defaults={
            "deal_code": deal_code,
            "certificate": solution.line,
            "solver_nodes": solution.nodes,
            "solver_seconds": solution.seconds,
            **_difficulty_fields(deal_code, solution),
        },
    )
    return deal


def winnable_pool_add(*, max_attempts: int = 200) -> WinnableDeal:
    """Certify one new random deal and add it to the pool."""
    for _attempt in range(max_attempts):
        deal = _winnable_certify_random()
        if deal is not None:
            return deal
    raise CertificationError(f"no winnable deal among {max_attempts} random deals")


def _thinnest_band() -> int:
    """How many rated deals the pool's least stocked band holds."""
    counts = dict(
        WinnableDeal.objects.exclude(difficulty_band="")
        .order_by()
        .values("difficulty_band")
        .annotate(n=models.Count("pk"))
        .values_list("difficulty_band", "n")
    )
    return min(counts.get(band, 0) for band in BANDS)


def winnable_pool_top_up(*, target: int, max_new: int) -> int:
    """Rate the pool's deals certified before ratings existed (at most ``max_new``), then add
    deals until every difficulty band holds ``target`` (at most ``max_new``); returns how many
    deals were added.

    A new deal falls in whatever band it falls in: filling the thinnest band adds deals to
    the others too (with the bands at terciles, about three deals for one of a band). Each
    deal is one short transaction, so a worker killed mid-way leaves only whole, certified,
    rated deals."""
    for deal in WinnableDeal.objects.filter(difficulty_band="").order_by("id")[:max_new]:
        deal_difficulty_rate(deal=deal)
    added = 0
    while added < max_new and _thinnest_band() < target:
        winnable_pool_add()
        added += 1
    return added


def deal_difficulty_rate(*, deal: DailyDeal | WinnableDeal) -> DailyDeal | WinnableDeal:
    """Rate (again) a certified deal from its deal code: the model's score and band, keeping
    nothing of an earlier calibration (``deal_difficulty_calibrate`` blends players' results
    in again). The certificate's node count is kept as the search measure when the solver
    needs the same search again (it does: the search is deterministic)."""
    solution = solve(parse_deal_code(deal.deal_code), node_budget=DAILY_NODE_BUDGET)
    if not solution.won:
        # Certified with another budget: the stored certificate still proves the win.
        solution = Solution("won", list(deal.certificate), deal.solver_nodes, deal.solver_seconds)
    fields = _difficulty_fields(deal.deal_code, solution)
    type(deal).objects.filter(pk=deal.pk).update(**fields)
    for name, value in fields.items():
        setattr(deal, name, value)
    return deal


# --- Calibration against players' results (docs/difficulty.md, "Calibration") ---

# A deal's score takes players' results into account from this many counted games on it: below
# that, one player's luck would move it. The weight of the observed rate grows with the games:
# n / (n + CALIBRATION_PRIOR_GAMES), a half at 50 games.
CALIBRATION_MIN_GAMES = 20
CALIBRATION_PRIOR_GAMES = 50


@dataclass(frozen=True, slots=True)
class DifficultyChange:
    """What a recompute or a calibration did to one deal (for the management command)."""

    deal: str  # "daily 2026-12-01" or "winnable <id>"
    old_score: int | None
    old_band: str
    score: int
    band: str
    games: int
    win_rate: float | None


def _counted_games(deal: DailyDeal | WinnableDeal) -> models.QuerySet[Game]:
    """The games whose result calibrates a deal: first attempts, played (won, resigned, or
    abandoned after a move, as the statistics count them), none of a known deal. For the daily, the
    ranked first attempt of each player; for the winnable pool, games that are not restarts."""
    if isinstance(deal, DailyDeal):
        games = Game.objects.filter(mode=GameMode.DAILY, daily_date=deal.date, ranked=True)
    else:
        games = Game.objects.filter(
            mode=GameMode.WINNABLE, deal_code=deal.deal_code, restarted_from__isnull=True
        )
    # A game of a known deal, or a bot's, says nothing of how hard the deal is for people.
    return games.filter(PLAYED, known_deal=False).exclude(app_kind=AppKind.BOT)


def _deal_label(deal: DailyDeal | WinnableDeal) -> str:
    return f"daily {deal.date}" if isinstance(deal, DailyDeal) else f"winnable {deal.pk}"


def deal_difficulty_calibrate(
    *, today: datetime.date, min_games: int = CALIBRATION_MIN_GAMES
) -> list[DifficultyChange]:
    """Blend players' real win rates into the score of every rated deal with at least
    ``min_games`` counted games (``_counted_games``):
    ``score = (1 - w) * model_score + w * 100 * (1 - win_rate)``, ``w = n / (n + 50)``; the band
    follows from the score. Idempotent: always from the model's score, never from an earlier
    blend. A daily deal only once its day is over, so the day's announced band never moves
    while it is played. Returns the deals whose score, band or game count changed."""
    changes: list[DifficultyChange] = []
    deals: list[DailyDeal | WinnableDeal] = [
        *DailyDeal.objects.exclude(difficulty_band="").filter(date__lt=today),
        *WinnableDeal.objects.exclude(difficulty_band=""),
    ]
    for deal in deals:
        if deal.difficulty_model_score is None:
            continue
        results = _counted_games(deal).aggregate(
            n=models.Count("pk"), won=models.Count("pk", filter=Q(status=GameStatus.WON))
        )
        games, won = results["n"], results["won"]
        if games < min_games:
            continue
        win_rate = won / games
        weight = games / (games + CALIBRATION_PRIOR_GAMES)
        score = round((1 - weight) * deal.difficulty_model_score + weight * 100 * (1 - win_rate))
        band = band_for(score)
        if (score, band, games) == (
            deal.difficulty_score,
            deal.difficulty_band,
            deal.difficulty_games,
        ):
            continue
        changes.append(
            DifficultyChange(
                _deal_label(deal),
                deal.difficulty_score,
                deal.difficulty_band,
                score,
                band,
                games,
                round(win_rate, 4),
            )
        )
        type(deal).objects.filter(pk=deal.pk).update(
            difficulty_score=score, difficulty_band=band, difficulty_games=games
        )
    return changes


def deal_difficulty_recompute(*, everything: bool = False) -> list[DifficultyChange]:
    """Rate the certified deals that have no rating (all of them with ``everything``: after
    the formula or its thresholds changed; that drops earlier calibrations, so calibrate
    again after)."""
    changes: list[DifficultyChange] = []
    deals: list[DailyDeal | WinnableDeal] = [*DailyDeal.objects.all(), *WinnableDeal.objects.all()]
    for deal in deals:
        if deal.difficulty_band and not everything:
            continue
        old_score, old_band = deal.difficulty_score, deal.difficulty_band
        deal_difficulty_rate(deal=deal)
        assert deal.difficulty_score is not None
        changes.append(
            DifficultyChange(
                _deal_label(deal),
                old_score,
                old_band,
                deal.difficulty_score,
                deal.difficulty_band,
                0,
                None,
            )
        )
    return changes


# Inline certification for a band the pool has no unplayed deal of: a bound on the random
# deals tried in the request (about one in nine is winnable, a third of those in a band: about
# 1 - (2/3)**4.5 = 84% of the time one is found). Every deal certified joins the pool anyway.
BAND_INLINE_ATTEMPTS = 40


def winnable_deal_draw(*, owner: User, difficulty: str | None = None) -> WinnableDeal:
    """A certified deal the player has not played, drawn at random (``secrets``) among those,
    so that no two accounts meet the pool in the same order and a deal seen on one account
    says nothing about the next deal of another. When the player has played every deal of
    the pool, one is certified on the spot (and joins the pool), so the mode never runs dry
    and never repeats a deal for them.

    With ``difficulty`` ("easy", "medium" or "hard"), only deals of that band are drawn. When
    the player has played every one of them, a few random deals are certified on the spot
    (``BAND_INLINE_ATTEMPTS``); if none falls in the band, DifficultyUnavailableError (the
    API's ``difficulty_unavailable``) and the pool's top-up is asked to restock."""
    played = Game.objects.filter(owner=owner, mode=GameMode.WINNABLE).values("deal_code")
    unplayed = WinnableDeal.objects.exclude(deal_code__in=played).order_by("id")
    if difficulty is not None:
        unplayed = unplayed.filter(difficulty_band=difficulty)
    # COUNT then OFFSET: two indexed queries, unlike ORDER BY RANDOM() over the whole pool.
    # A deal added or removed in between only shifts which deal the offset lands on.
    count = unplayed.count()
    picked: list[WinnableDeal] = []
    if count:
        offset = secrets.randbelow(count)
        picked = list(unplayed[offset : offset + 1])
    deal = picked[0] if picked else unplayed.first()
    if deal is None and difficulty is not None:
        return _winnable_band_inline(owner=owner, difficulty=difficulty)
    if deal is None:
        logger.warning(
            "winnable pool has no unplayed deal for user %s: certifying inline", owner.pk
        )
        _solver_run_take(owner=owner)
        deal = winnable_pool_add()
    return deal


# Held while a request certifies deals for a band on the spot: one such run at a time in the
# whole service (a band run dry for one player is likely dry for others; they get
# difficulty_unavailable at once rather than a core each). Expires by itself should the
# process die holding it. Under "throttle:" so that, while Redis is down, it is held in each
# process (infrastructure/cache.py) instead of failing open.
BAND_INLINE_LOCK = "throttle:winnable-band-inline"
BAND_INLINE_LOCK_SECONDS = 120


def _winnable_band_inline(*, owner: User, difficulty: str) -> WinnableDeal:
    _solver_run_take(owner=owner)
    if not cache.add(BAND_INLINE_LOCK, True, BAND_INLINE_LOCK_SECONDS):
        transaction.on_commit(_pool_top_up_enqueue, robust=True)
        raise DifficultyUnavailableError(
            f"no {difficulty} deal you have not played is ready right now; try again in a few "
            "minutes or pick another difficulty"
        )
    try:
        return _winnable_band_certify(difficulty=difficulty)
    finally:
        cache.delete(BAND_INLINE_LOCK)


def _winnable_band_certify(*, difficulty: str) -> WinnableDeal:
    for _attempt in range(BAND_INLINE_ATTEMPTS):
        deal = _winnable_certify_random()
        if deal is None:
            continue
        if deal.difficulty_band == difficulty:
            return deal
    transaction.on_commit(_pool_top_up_enqueue, robust=True)
    raise DifficultyUnavailableError(
        f"no {difficulty} deal you have not played is ready right now; try again in a few "
        "minutes or pick another difficulty"
    )


def _pool_top_up_enqueue() -> bool:
    return background.enqueue(POOL_TOP_UP_TASK)


# --- Post-game analysis ---


class AnalysisUnavailableError(Exception):
    """The analysis may not be served (yet): ``code`` is the API's problem code."""

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        self.code = code
        self.extra = extra
        super().__init__(detail)


@dataclass(frozen=True, slots=True)
class AnalysisAnswer:
    """A finished game's analysis, or None while a worker computes it."""

    game: Game
    analysis: GameAnalysis | None


def game_analysis_enqueue_on_commit(*, game: Game) -> None:
    """Have a worker analyse the game once the transaction that finished it commits (without a
    broker nothing is sent: the analysis is computed when first asked for). Whatever ends a
    game (a winning move, resign, abandon) calls this in the transaction that ends it."""
    transaction.on_commit(
        partial(_analysis_enqueue_finished, str(game.pk), game.owner_id), robust=True
    )


def _broker_configured() -> bool:
    return bool(settings.REDIS_URL)


def _analysis_enqueue_finished(game_id: str, owner_id: int) -> bool:
    """Send a finished game's analysis to a worker, within the player's solver runs: a
    script that creates and resigns games would otherwise queue one solver run per game, at
    the request throttle's pace. Past the limit nothing is sent (the game still ends): the
    analysis is computed when asked for, and counted then."""
    if _broker_configured() and _solver_run_count(owner_id=owner_id) is not None:
        return False
    return _analysis_enqueue(game_id)


# While a worker holds a game's analysis task, requests answer "pending" without sending it
# again (polling clients would otherwise have several workers compute the same analysis); past
# this, a task lost with its worker is sent again by the next request.
ANALYSIS_PENDING_SECONDS = 300


def _analysis_pending_key(game_id: str) -> str:
    return f"analysis-pending:{game_id}"


def _analysis_enqueue(game_id: str) -> bool:
    sent = background.enqueue(ANALYSIS_TASK, game_id)
    if sent:
        cache.set(_analysis_pending_key(game_id), True, ANALYSIS_PENDING_SECONDS)
    return sent


# Without a live worker, a request computes an analysis with smaller budgets than a worker's
# (games.analysis.inline_analysis_budgets), so that it ends well within the web worker's timeout
# (gunicorn's 30 s: a Scorpion analysis may take 90 s of CPU with the Python search; compiled,
# Scorpion's request budgets are the full ones: games/analysis.py). What those leave undecided
# is not stored (the worker's budgets might decide it): the answer is 503 analysis_needs_worker,
# and the request remembers it for this long, so that asking again costs no search.
ANALYSIS_NEEDS_WORKER_SECONDS = 3600
ANALYSIS_NEEDS_WORKER_RETRY_AFTER = 60


class AnalysisNeedsWorkerError(AnalysisUnavailableError):
    """A request's budgets left the analysis undecided: only a worker may compute it."""

    def __init__(self) -> None:
        super().__init__(
            "analysis_needs_worker",
            "this game's analysis needs more search than a request may do, and no worker "
            "computes analyses right now: ask again later",
            retry_after=ANALYSIS_NEEDS_WORKER_RETRY_AFTER,
        )


def _analysis_needs_worker_key(game_id: str) -> str:
    return f"analysis-needs-worker:{game_id}"


def game_analysis_ensure(*, game_id: UUID, inline: bool = False) -> GameAnalysis | None:
    """The game's analysis, computed now if it is not stored yet; None if the game is gone or
    not finished. Idempotent and safe to race: the solver runs outside any transaction (with a
    node budget, so every run gives the same answer), and the one-analysis-per-game constraint
    keeps the first insert.

    ``inline`` (a request computes it, no live worker): with a broker configured -- a deployment
    whose requests have a timeout and whose worker is only away -- the request's budgets, and
    ``AnalysisNeedsWorkerError`` unless every solver call was decided within them (then the
    analysis is the one the full budgets give, and is stored as such). Without a broker there
    is no worker to wait for (the embedded ``make run``, served without a request timeout): the
    full budgets, as a worker's."""
    existing = GameAnalysis.objects.filter(game_id=game_id).first()
    if existing is not None:
        return existing
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not game.is_finished:
        return None
    events = list(
        game.events.filter(seq__lte=game.version).order_by("seq").values_list("type", "payload")
    )
    # The variant's budgets: an undecided deal is analysed as "unknown", never guessed.
    node_budget, total_budget = analysis_budgets(game.variant)
    budgets = (node_budget, total_budget)
    if inline and _broker_configured():
        budgets = inline_analysis_budgets(game.variant)
    result = analyse(
        deal_state(game.deal_code, game.variant).position,
        events,
        won=game.status == GameStatus.WON,
        node_budget=budgets[0],
        total_budget=budgets[1],
    )
    if budgets != (node_budget, total_budget) and not result.settled:
        cache.set(_analysis_needs_worker_key(str(game.pk)), True, ANALYSIS_NEEDS_WORKER_SECONDS)
        raise AnalysisNeedsWorkerError
    try:
        with transaction.atomic():
            if not Game.objects.filter(pk=game.pk).exists():
                return None  # erased meanwhile, with the player's data
            analysis, _created = GameAnalysis.objects.get_or_create(
                game=game,
                defaults={
                    "version": game.version,
                    "deal_verdict": result.deal,
                    "outcome": result.outcome,
                    "last_winnable_version": result.last_winnable_version,
                    "line_version": result.line_version,
                    "line": result.line,
                    "solver_nodes": result.nodes,
                    "solver_seconds": result.seconds,
                    "node_budget": node_budget,
                },
            )
    except IntegrityError:
        # Another process inserted it first, or the game was deleted in between.
        return GameAnalysis.objects.filter(game_id=game_id).first()
    return analysis


def _worker_for(task_name: str) -> bool:
    """A live worker consumes the queue the task is routed to (infrastructure/queues.py)."""
    return _worker_available(queue_for(task_name))


def _worker_available(queue: str) -> bool:
    """A broker is configured and a worker consuming ``queue`` ran its heartbeat lately
    (infrastructure.liveness)."""
    if not settings.REDIS_URL:
        return False
    from infrastructure import liveness

    return liveness.read(redis_url=settings.REDIS_URL, now=timezone.now()).queue_ok(queue)


def game_analysis_request(*, owner: User, game_id: UUID) -> AnalysisAnswer:
    """A player's request for their game's analysis (docs/api.md).

    Refused while the game is on, and for a daily until its deal is revealed
    (``daily_reveal_moment``): the analysis is computed from every card, face-down ones and
    the stock included, so it must never reach a player before the deal itself may. Served at
    once when stored. Otherwise a worker is asked to compute it (the answer says "pending"),
    or, without a broker or a live worker, it is computed here and now, within the request's
    budgets (``game_analysis_ensure``; ``AnalysisNeedsWorkerError`` where they do not decide it).
    """
    game = selectors.game_get(owner=owner, game_id=game_id)
    if not game.is_finished:
        raise AnalysisUnavailableError(
            "game_not_finished",
            f"the game is {game.status}: its analysis is served once it is over",
        )
    if not game.reveals_deal:
        assert game.daily_date is not None
        moment = daily_reveal_moment(game.daily_date)
        raise AnalysisUnavailableError(
            "deal_not_revealed",
            f"the daily deal of {game.daily_date.isoformat()} is secret until "
            f"{moment.isoformat()}: so is the analysis of its games",
            available_at=moment.isoformat(),
        )
    stored = GameAnalysis.objects.filter(game=game).first()
    if stored is not None:
        return AnalysisAnswer(game, stored)
    worker = _worker_for(ANALYSIS_TASK)
    if cache.get(_analysis_pending_key(str(game.pk))) and worker:
        return AnalysisAnswer(game, None)
    if not worker and cache.get(_analysis_needs_worker_key(str(game.pk))):
        raise AnalysisNeedsWorkerError  # known already: no search, nothing counted
    _solver_run_take(owner=owner)
    if worker and _analysis_enqueue(str(game.pk)):
        return AnalysisAnswer(game, None)
    analysis = game_analysis_ensure(game_id=game.pk, inline=True)
    if analysis is None:
        raise Http404("no such game")  # erased meanwhile, with the player's data
    return AnalysisAnswer(game, analysis)


# --- Winning chances (a hint worth a worker) ---

# Samples per answer, positions per sampled solve, and the work of the whole answer (positions
# plus a set-up per solve, about 60 us of CPU a unit: games/engine/chances.py): bench/hints.py
# measures the cost (README, "Winning chances"). Budgets in positions, never in seconds, so that
# every run gives one answer. The work budget only binds where samples are dear (a deal's start
# in Wasp took 76 s median, 181 s at most, for 200 samples: past the task's time limit): there
# the answer rests on fewer samples, about 30 s of CPU at most.
CHANCE_SAMPLES = 200
CHANCE_NODE_BUDGET = DEFAULT_CHANCE_NODE_BUDGET
CHANCE_WORK_BUDGET: int | None = 500_000
# Without a live worker a request computes them itself. With the Python searches, with fewer
# samples and work so that it answers within about 2 s of CPU (the answer says how many samples
# it rests on): a work unit's cost differs by variant (Scorpion Tail's search about 80 us, more
# in a first sample), so the work is per variant (every variant of CHANCES_VARIANTS), measured
# side by side (README, "Winning chances", "A request's work per variant"); it depends on the
# variant alone, so an answer still depends only on the visible table, the seed and the
# budgets. With the compiled searches, the worker's own budgets, which take under a second at
# most in every variant (Scorpion 0.31 s, Scorpion Tail 0.65 s; README, "Winning chances,
# compiled"): the worker's very answer.
_SEARCHES_COMPILED = solver_compiled() and variants_compiled()
INLINE_CHANCE_SAMPLES = CHANCE_SAMPLES if _SEARCHES_COMPILED else 50
INLINE_CHANCE_WORK_BUDGETS: dict[str, int | None] = (
    dict.fromkeys(sorted(CHANCES_VARIANTS), CHANCE_WORK_BUDGET)
    if _SEARCHES_COMPILED
    else {
        "scorpion": 30_000,
        "wasp": 25_000,
        "wasp-ii": 25_000,
        "scorpion-tail": 15_000,
        "three-blind-mice": 7_000,
    }
)
# With a live worker, a request first tries the worker's own computation for a while (wall
# time) and, when it finishes, stores and serves it: exactly the worker's answer (the engine's
# deadline never changes an answer, it only gives up), with no task and no wait. A task buys
# nothing for those: in Scorpion 43% of the positions of a game's first dozen moves take under
# 0.1 s of CPU (57% under 0.3 s), while the dearest take up to 9 s and hold over 90% of the CPU
# (README, "Winning chances"). Only the dear ones go to the worker, after at most this much of
# a web process's time lost in the request: 100 ms by default, so that a sync web worker is
# never held long for an answer it then hands over.
# How long it takes depends on the visible table and the machine alone, so whether an answer
# comes at once tells nothing about an unseen card. The time is the CHANCES_REQUEST_MS setting.
# While a chances task is queued or running for a game, no other is sent (one per game, however
# often the player pauses); past this, a task lost with its worker is sent again on request.
CHANCES_QUEUED_SECONDS = 120
# The latest version a player wanted the chances of, per game: a finishing task follows it up.
CHANCES_WANTED_SECONDS = 3600


class ChancesUnavailableError(Exception):
    """No chances for this game: it is over (``code`` is the API's problem code)."""

    def __init__(self, code: str, detail: str) -> None:
        self.code = code
        super().__init__(detail)


@dataclass(frozen=True, slots=True)
class ChancesAnswer:
    """The chances at the game's current version, or None while a worker computes them."""

    game: Game
    chances: GameChances | None
    # Not computed, and nothing on it: no live worker, so only a GET computes them.
    on_request: bool = False


def chance_seed(*, game_id: UUID | str, version: int) -> int:
    """The sampling seed of a game's version: from its id and version only, never from a card,
    so it tells nothing about the deal; a 63-bit int (it fits the database's bigint)."""
    digest = hashlib.sha256(f"chances:{game_id}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _chances_key(kind: str, game_id: UUID | str) -> str:
    return f"chances-{kind}:{game_id}"


def game_chances_request(*, owner: User, game_id: UUID, show: bool) -> ChancesAnswer:
    """A player's request for the winning chances of the game's current version (docs/api.md).

    Served at once when stored. Otherwise a worker is asked (coalesced per game: at most one
    task queued, the latest version wins) and the answer is None ("pending"); without a broker
    or a live worker it is computed here and now. ``show`` is False when the client only wants
    them ready for later (the player paused): then nothing is served or counted. A served
    answer counts as one hint, once per version, however often it is served again.
    """
    game = selectors.game_get(owner=owner, game_id=game_id)
    if game.is_finished:
        raise ChancesUnavailableError(
            "game_finished", f"the game is {game.status}: chances are for games in play"
        )
    if game.variant not in CHANCES_VARIANTS:
        # Elsewhere the solver decides too few sampled deals within the budget for a chance to
        # mean anything (games/variants.py).
        raise ChancesUnavailableError(
            "variant_not_analysed",
            f"winning chances are not estimated in {variant_named(game.variant).title} games "
            "yet: the solver leaves too many sampled deals undecided for a chance to rank the "
            "moves (the hints still do)",
        )
    stored = GameChances.objects.filter(game=game, version=game.version).first()
    if stored is None:
        counted = False
        if _worker_for(CHANCES_TASK):
            cache.set(_chances_key("wanted", game.pk), game.version, CHANCES_WANTED_SECONDS)
            if cache.get(_chances_key("queued", game.pk)) is not None:  # (version 0 is falsy)
                return ChancesAnswer(game, None, on_request=False)
            # A computation started here or a task sent is a new run: counted, so that asking
            # for the chances of one version after another, or of many games, cannot fill the
            # queue.
            _solver_run_take(owner=owner)
            counted = True
            # A cheap position is answered here and now, as the worker would answer it.
            stored = game_chances_ensure(
                game_id=game.pk,
                version=game.version,
                deadline=time.perf_counter() + settings.CHANCES_REQUEST_MS / 1000,
            )
            if stored is None and _chances_schedule(str(game.pk), game.version):
                return ChancesAnswer(game, None, on_request=False)
        if stored is None:
            if not show:
                # Preparing is a worker's job: without one, nothing is computed until asked.
                return ChancesAnswer(game, None, on_request=True)
            if not counted:
                _solver_run_take(owner=owner)
            stored = game_chances_ensure(game_id=game.pk, version=game.version, inline=True)
            if stored is None:
                # The game moved on or ended meanwhile: the player's next request asks again.
                return ChancesAnswer(game, None)
    if show and GameChances.objects.filter(pk=stored.pk, served=False).update(served=True):
        _count_hint(game)
    return ChancesAnswer(game, stored)


def _count_hint(game: Game) -> None:
    """One hint, counted as ``game_hints_request`` counts them."""
    if game.hint_count == 0 or not _hint_pending(game.pk):
        Game.objects.filter(pk=game.pk).update(hint_count=F("hint_count") + 1)


def _chances_schedule(game_id: str, version: int) -> bool:
    """Send a chances task unless one is queued or running for the game; True if one is."""
    if not cache.add(_chances_key("queued", game_id), version, CHANCES_QUEUED_SECONDS):
        return True
    if background.enqueue(CHANCES_TASK, game_id, version):
        return True
    cache.delete(_chances_key("queued", game_id))
    return False


def game_chances_task(*, game_id: UUID, version: int) -> GameChances | None:
    """What the worker runs: the chances of ``version`` if it is still the game's current one
    (a task for an older version exits), then the latest version wanted meanwhile is queued."""
    try:
        return game_chances_ensure(game_id=game_id, version=version)
    finally:
        cache.delete(_chances_key("queued", game_id))
        wanted = cache.get(_chances_key("wanted", game_id))
        if wanted is not None and wanted != version:
            current = Game.objects.filter(pk=game_id).values_list("version", "status").first()
            if (
                current is not None
                and current[0] == wanted
                and current[1] not in FINISHED_STATUSES
                and not GameChances.objects.filter(game_id=game_id, version=wanted).exists()
            ):
                _chances_schedule(str(game_id), wanted)


def game_chances_ensure(
    *, game_id: UUID, version: int, inline: bool = False, deadline: float | None = None
) -> GameChances | None:
    """The chances of the game at ``version``, computed now if not stored; None if the game is
    gone, over, or no longer at ``version``, or if ``deadline`` (a ``time.perf_counter()``
    moment) passed first: then nothing is stored. With the worker's budgets, or the smaller
    inline ones (``inline``: a request computes them without a worker): at most that many
    samples, fewer once the work budget is spent (the row records how many). Idempotent and
    safe to race: the engine is deterministic (seed from id and version, budgets), and the
    one-row-per-version constraint keeps the first insert. Older versions' rows are dropped:
    they never come back."""
    existing = GameChances.objects.filter(game_id=game_id, version=version).first()
    if existing is not None:
        return existing
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.is_finished or game.version != version:
        return None
    # Only the visible table goes in: nothing computed below can depend on an unseen card.
    table = VisibleTable.of(selectors.game_state(game=game).position)
    samples, work_budget = (
        (INLINE_CHANCE_SAMPLES, INLINE_CHANCE_WORK_BUDGETS[game.variant])
        if inline
        else (CHANCE_SAMPLES, CHANCE_WORK_BUDGET)
    )
    started = time.process_time()
    try:
        found = chances(
            table,
            samples=samples,
            seed=chance_seed(game_id=game.pk, version=version),
            node_budget=CHANCE_NODE_BUDGET,
            work_budget=work_budget,
            deadline=deadline,
        )
    except TimeUp:
        return None  # a dear position: the worker's to compute
    cpu_seconds = time.process_time() - started
    # Every action rests on the same samples: as many as were drawn before the work ran out.
    samples = found[0].samples if found else samples
    try:
        with transaction.atomic():
            if not Game.objects.filter(pk=game.pk).exists():
                return None  # erased meanwhile, with the player's data
            stored, _created = GameChances.objects.get_or_create(
                game=game,
                version=version,
                defaults={
                    "samples": samples,
                    "node_budget": CHANCE_NODE_BUDGET,
                    "actions": [entry.to_dict() for entry in found],
                    "cpu_seconds": cpu_seconds,
                },
            )
            GameChances.objects.filter(game=game, version__lt=version).delete()
    except IntegrityError:
        return GameChances.objects.filter(game_id=game_id, version=version).first()
    return stored
