"""Winning chances (a hint worth a worker): computed in the request when cheap, else by a
worker, one task per game and version."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from uuid import UUID

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from games import selectors
from games.engine.chances import DEFAULT_CHANCE_NODE_BUDGET, TimeUp, VisibleTable, chances
from games.engine.solver import compiled as solver_compiled
from games.engine.variant_solver import compiled as variants_compiled
from games.models import (
    FINISHED_STATUSES,
    Game,
    GameChances,
)
from games.services import hints, solver_runs, workers
from games.variants import (
    CHANCES_VARIANTS,
    variant_named,
)
from infrastructure import background
from infrastructure.queues import CHANCES_TASK

# Samples per answer, positions per sampled solve, and the work of the whole answer (positions
# plus a set-up per solve, about 60 us of CPU a unit: games/engine/chances.py): bench/hints.py
# measures the cost (docs/benchmarks.md, "Winning chances"). Budgets in positions, never in seconds,
# so that every run gives one answer. The work budget only binds where samples are dear (a deal's
# start in Wasp took 76 s median, 181 s at most, for 200 samples: past the task's time limit): there
# the answer rests on fewer samples, about 30 s of CPU at most.
CHANCE_SAMPLES = 200


CHANCE_NODE_BUDGET = DEFAULT_CHANCE_NODE_BUDGET


CHANCE_WORK_BUDGET: int | None = 500_000


# samples and work so that it answers within about 2 s of CPU (the answer says how many samples
# it rests on): a work unit's cost differs by variant (Scorpion Tail's search about 80 us, more
# in a first sample), so the work is per variant (every variant of CHANCES_VARIANTS), measured
# side by side (docs/benchmarks.md, "Winning chances", "A request's work per variant"); it depends
# on the variant alone, so an answer still depends only on the visible table, the seed and the
# budgets. With the compiled searches, the worker's own budgets, which take under a second at
# most in every variant (Scorpion 0.31 s, Scorpion Tail 0.65 s; docs/benchmarks.md, "Winning
# chances, compiled"): the worker's very answer.
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


# time) and, when it finishes, stores and serves it: exactly the worker's answer (the engine's
# deadline never changes an answer, it only gives up), with no task and no wait. A task buys
# nothing for those: in Scorpion 43% of the positions of a game's first dozen moves take under
# 0.1 s of CPU (57% under 0.3 s), while the dearest take up to 9 s and hold over 90% of the CPU
# (docs/benchmarks.md, "Winning chances"). Only the dear ones go to the worker, after at most this
# much of a web process's time lost in the request: 100 ms by default, so that a sync web worker is
# never held long for an answer it then hands over.
# How long it takes depends on the visible table and the machine alone, so whether an answer
# comes at once tells nothing about an unseen card. The time is the CHANCES_REQUEST_MS setting.
# While a chances task is queued or running for a game, no other is sent (one per game, however
# often the player pauses); past this, a task lost with its worker is sent again on request.
CHANCES_QUEUED_SECONDS = 120


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
            "game_finished",
            gettext("the game is %(status)s: chances are for games in play")
            % {"status": game.status},
        )
    if game.variant not in CHANCES_VARIANTS:
        # Elsewhere the solver decides too few sampled deals within the budget for a chance to
        # mean anything (games/variants.py).
        raise ChancesUnavailableError(
            "variant_not_analysed",
            gettext(
                "winning chances are not estimated in %(variant)s games yet: the solver leaves "
                "too many sampled deals undecided for a chance to rank the moves (the hints "
                "still do)"
            )
            % {"variant": variant_named(game.variant).title},
        )
    stored = GameChances.objects.filter(game=game, version=game.version).first()
    if stored is None:
        counted = False
        if workers.worker_for(CHANCES_TASK):
            cache.set(_chances_key("wanted", game.pk), game.version, CHANCES_WANTED_SECONDS)
            if cache.get(_chances_key("queued", game.pk)) is not None:  # (version 0 is falsy)
                return ChancesAnswer(game, None, on_request=False)
            # A computation started here or a task sent is a new run: counted, so that asking
            # for the chances of one version after another, or of many games, cannot fill the
            # queue.
            solver_runs.solver_run_take(owner=owner)
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
                solver_runs.solver_run_take(owner=owner)
            stored = game_chances_ensure(game_id=game.pk, version=game.version, inline=True)
            if stored is None:
                # The game moved on or ended meanwhile: the player's next request asks again.
                return ChancesAnswer(game, None)
    if show and GameChances.objects.filter(pk=stored.pk, served=False).update(served=True):
        hints.count_hint(game)
    return ChancesAnswer(game, stored)


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
