"""Certified deals: the daily challenge (one a day, proven winnable, secret until played) and
the winnable pool, with their difficulty, and a winnable deal drawn for a player."""

from __future__ import annotations

import datetime
import logging
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import IntegrityError, models, transaction
from django.utils.translation import gettext

from games.engine.cards import parse_deal_code
from games.engine.deals import daily_seed, deal_code_for_seed, random_seed
from games.engine.difficulty import BANDS, rate
from games.engine.solver import Solution, solve
from games.models import (
    DailyDeal,
    Game,
    GameMode,
    WinnableDeal,
)
from games.services import solver_runs
from infrastructure import background
from infrastructure.queues import POOL_TOP_UP_TASK

logger = logging.getLogger(__name__)

# Node budgets, not time budgets, bound the solver here: a node budget gives the same verdict
# on every machine, so every process that derives a day's deal derives the same one.
DAILY_NODE_BUDGET = 300_000


POOL_NODE_BUDGET = 300_000


# a budget that decides most deals, running out would take astronomically bad luck; the bound
# turns a bug into a clear error instead of an endless loop.
MAX_DAILY_CANDIDATES = 500


class CertificationError(Exception):
    """No deal could be certified within the bounds."""


class DifficultyUnavailableError(Exception):
    """No unplayed deal of the band the player asked for, right now (problem
    ``difficulty_unavailable``): the pool's top-up restocks it."""


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
    raise CertificationError(
        gettext("no winnable deal among %(count)d candidates of %(day)s")
        % {"count": MAX_DAILY_CANDIDATES, "day": day}
    )


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


def daily_deals_ensure_ahead(
    *, today: datetime.date, days_ahead: int, days_behind: int = 0
) -> list[DailyDeal]:
    """Today's deal and the next ``days_ahead`` days', certified ahead of time, and rated: a
    day certified before ratings existed is rated here (docs/difficulty.md), so the daily
    shows its band without waiting for ``manage.py deal_difficulty --recompute``. With
    ``days_behind``, the past days' too (played late from the calendar: certified now rather
    than at their first late play)."""
    deals: list[DailyDeal] = []
    for offset in range(-days_behind, days_ahead + 1):
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
    raise CertificationError(
        gettext("no winnable deal among %(count)d random deals") % {"count": max_attempts}
    )


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
        solver_runs.solver_run_take(owner=owner)
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
    solver_runs.solver_run_take(owner=owner)
    if not cache.add(BAND_INLINE_LOCK, True, BAND_INLINE_LOCK_SECONDS):
        transaction.on_commit(_pool_top_up_enqueue, robust=True)
        raise DifficultyUnavailableError(_no_band_deal(difficulty))
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
    raise DifficultyUnavailableError(_no_band_deal(difficulty))


def _no_band_deal(difficulty: str) -> str:
    return gettext(
        "no %(difficulty)s deal you have not played is ready right now; try again in a few "
        "minutes or pick another difficulty"
    ) % {"difficulty": difficulty}


def _pool_top_up_enqueue() -> bool:
    return background.enqueue(POOL_TOP_UP_TASK)
