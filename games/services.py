"""Writes to games: create, restart, and apply a player's command to the event log."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games import history, selectors
from games.engine.cards import parse_deal_code
from games.engine.deals import deal_code_for_pysol, deal_code_for_seed, random_seed
from games.history import Command, GameState
from games.models import Game, GameEvent, GameMode, GameStatus

# How often a command without expected_version is retried after losing a race to another
# command on the same game. Each retry re-reads the game and re-validates the command against
# the position that won, so a retry can never apply a stale move.
MAX_ATTEMPTS = 5


class ModeUnavailableError(Exception):
    """A game mode this deployment cannot serve yet."""


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


@dataclass(frozen=True, slots=True)
class DealChoice:
    """Where a new game's deal comes from. At most one of seed, code or pysol_number is set."""

    mode: str = GameMode.RANDOM
    seed: int | None = None
    code: str | None = None
    pysol_number: int | None = None


def game_create(*, owner: User, choice: DealChoice) -> Game:
    """A new game at version 0; the deal belongs to the game, not to an event."""
    seed: int | None = choice.seed
    if choice.mode in (GameMode.DAILY, GameMode.WINNABLE):
        raise ModeUnavailableError(
            f"the {choice.mode} mode needs the solver's certified deals, which this "
            "deployment does not serve yet"
        )
    if choice.code is not None:
        deal_code = choice.code.strip().upper()
        parse_deal_code(deal_code)  # raises DealCodeError naming what is wrong
    elif choice.pysol_number is not None:
        deal_code = deal_code_for_pysol(choice.pysol_number)
    else:
        if seed is None:
            seed = random_seed()
        deal_code = deal_code_for_seed(seed)
    supplied = choice.mode != GameMode.RANDOM
    return _create_game(
        owner=owner,
        mode=choice.mode,
        deal_code=deal_code,
        seed=seed,
        pysol_number=choice.pysol_number,
        deal_supplied=supplied,
    )


def game_restart(*, owner: User, game_id: UUID) -> Game:
    """A new game with the same deal as the given one (RULES.md, restart)."""
    original = selectors.game_get(owner=owner, game_id=game_id)
    return _create_game(
        owner=owner,
        mode=original.mode,
        deal_code=original.deal_code,
        seed=original.seed,
        pysol_number=original.pysol_number,
        deal_supplied=original.deal_supplied,
        daily_date=original.daily_date,
        restarted_from=original,
    )


def _create_game(
    *,
    owner: User,
    mode: str,
    deal_code: str,
    seed: int | None,
    pysol_number: int | None,
    deal_supplied: bool,
    daily_date: Any = None,
    restarted_from: Game | None = None,
) -> Game:
    state = history.new_game_state(parse_deal_code(deal_code))
    return Game.objects.create(
        owner=owner,
        mode=mode,
        deal_code=deal_code,
        seed=seed,
        pysol_number=pysol_number,
        deal_supplied=deal_supplied,
        daily_date=daily_date,
        restarted_from=restarted_from,
        state=state.to_dict(),
        status=state.status,
    )


def request_fingerprint(command: Command) -> str:
    body = json.dumps([command.type, command.card, command.to])
    return hashlib.sha256(body.encode()).hexdigest()


def game_execute_command(
    *,
    owner: User,
    game_id: UUID,
    command: Command,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
) -> CommandResult:
    """Apply one command: append its event and update the projection, atomically.

    Why this is safe under concurrency, on any number of web processes:
    - Each attempt runs in one transaction that reads the game, computes the new state with the
      engine, then writes with a compare-and-set: ``UPDATE game SET version = v + 1 ... WHERE
      id = ? AND version = v``. Of two commands that read version v, PostgreSQL lets only the
      first UPDATE match (the second waits for the first's row lock, re-checks the WHERE on the
      committed row, and matches nothing), so exactly one of them appends event v + 1.
    - The loser's transaction wrote nothing. With ``expected_version`` it answers 409; without,
      it re-reads and re-validates its command against the winner's position and tries again.
    - ``UniqueConstraint(game, seq)`` backs this up in the database: even a code path that
      skipped the compare-and-set could not append a duplicate ``seq``; and since ``seq`` is
      always the version read plus one under that compare-and-set, the log has no gaps.
    - An ``Idempotency-Key`` is looked up inside the same transaction, before anything else; a
      concurrent duplicate loses the compare-and-set, retries, and then finds the first one's
      event (``UniqueConstraint(game, idempotency_key)`` guards this too).
    """
    fingerprint = request_fingerprint(command)
    for _attempt in range(MAX_ATTEMPTS):
        with transaction.atomic():
            game = selectors.game_get(owner=owner, game_id=game_id)
            if idempotency_key is not None:
                prior = game.events.filter(idempotency_key=idempotency_key).first()
                if prior is not None:
                    if prior.request_fingerprint != fingerprint:
                        raise IdempotencyKeyReusedError(
                            "this Idempotency-Key was already used for a different command "
                            "on this game"
                        )
                    state = selectors.game_state_at(game=game, version=prior.seq)
                    return CommandResult(game, state, prior, replayed=True)
            if expected_version is not None and expected_version != game.version:
                raise VersionConflictError(game, expected_version)

            state = GameState.from_dict(game.state)
            outcome = history.apply_command(state, command)  # raises EngineError
            new_state = outcome.state
            now = timezone.now()
            new_status = new_state.status
            changes: dict[str, Any] = {
                "version": F("version") + 1,
                "state": new_state.to_dict(),
                "status": new_status,
                "moves": new_state.moves,
                "updated_at": now,
            }
            if outcome.event_type == "undo":
                changes["undo_count"] = F("undo_count") + 1
            if game.started_at is None and outcome.event_type in ("move", "deal"):
                changes["started_at"] = now
            if new_status in (GameStatus.WON, GameStatus.RESIGNED):
                changes["finished_at"] = now
            won_race = Game.objects.filter(pk=game.pk, version=game.version).update(**changes)
            if not won_race:
                continue  # another command got there first; nothing was written
            event = GameEvent.objects.create(
                game=game,
                seq=game.version + 1,
                type=outcome.event_type,
                payload=outcome.payload,
                idempotency_key=idempotency_key,
                request_fingerprint=fingerprint,
            )
            game.refresh_from_db()
            return CommandResult(game, new_state, event, replayed=False)
    current = selectors.game_get(owner=owner, game_id=game_id)
    raise VersionConflictError(current, expected_version)
