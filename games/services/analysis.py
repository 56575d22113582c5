"""Post-game analysis: queued when a game ends, computed by a worker or, without one, in the
request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.http import Http404
from django.utils.translation import gettext

from games import selectors
from games.analysis import analyse, analysis_budgets, inline_analysis_budgets
from games.models import (
    Game,
    GameAnalysis,
    GameStatus,
    daily_reveal_moment,
)
from games.services import solver_runs, workers
from games.variants import (
    deal_state,
)
from infrastructure import background
from infrastructure.queues import ANALYSIS_TASK
from infrastructure.transactions import on_commit_robust


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
    on_commit_robust(_analysis_enqueue_finished, str(game.pk), game.owner_id)


def _analysis_enqueue_finished(game_id: str, owner_id: int) -> bool:
    """Send a finished game's analysis to a worker, within the player's solver runs: a
    script that creates and resigns games would otherwise queue one solver run per game, at
    the request throttle's pace. Past the limit nothing is sent (the game still ends): the
    analysis is computed when asked for, and counted then."""
    if workers.broker_configured() and solver_runs.solver_run_count(owner_id=owner_id) is not None:
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
            gettext(
                "this game's analysis needs more search than a request may do, and no worker "
                "computes analyses right now: ask again later"
            ),
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
    events = [(event.type, event.payload) for event in selectors.game_events(game=game)]
    # The variant's budgets: an undecided deal is analysed as "unknown", never guessed.
    node_budget, total_budget = analysis_budgets(game.variant)
    budgets = (node_budget, total_budget)
    if inline and workers.broker_configured():
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
            gettext("the game is %(status)s: its analysis is served once it is over")
            % {"status": game.status},
        )
    if not game.reveals_deal:
        assert game.daily_date is not None
        moment = daily_reveal_moment(game.daily_date)
        raise AnalysisUnavailableError(
            "deal_not_revealed",
            gettext(
                "the daily deal of %(day)s is secret until %(moment)s: so is the analysis of "
                "its games"
            )
            % {"day": game.daily_date.isoformat(), "moment": moment.isoformat()},
            available_at=moment.isoformat(),
        )
    stored = GameAnalysis.objects.filter(game=game).first()
    if stored is not None:
        return AnalysisAnswer(game, stored)
    worker = workers.worker_for(ANALYSIS_TASK)
    if cache.get(_analysis_pending_key(str(game.pk))) and worker:
        return AnalysisAnswer(game, None)
    if not worker and cache.get(_analysis_needs_worker_key(str(game.pk))):
        raise AnalysisNeedsWorkerError  # known already: no search, nothing counted
    if game.archived_at is not None:
        # The log is read before a run is counted: an archive that cannot be read is a 503
        # (ArchiveUnreadableError) that spends nothing, which the SDK retries (a run counted
        # each time would end in a misleading "too many solver runs").
        selectors.game_events(game=game)
    solver_runs.solver_run_take(owner=owner)
    if worker and _analysis_enqueue(str(game.pk)):
        return AnalysisAnswer(game, None)
    analysis = game_analysis_ensure(game_id=game.pk, inline=True)
    if analysis is None:
        raise Http404(gettext("no such game"))  # erased meanwhile, with the player's data
    return AnalysisAnswer(game, analysis)
