"""Deal difficulty calibrated against players' results (docs/difficulty.md, "Calibration")."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db import models
from django.db.models import Q

from accounts.models import AppKind
from games.engine.difficulty import band_for
from games.models import (
    PLAYED,
    DailyDeal,
    Game,
    GameMode,
    GameStatus,
    WinnableDeal,
)
from games.services.certification import deal_difficulty_rate

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
