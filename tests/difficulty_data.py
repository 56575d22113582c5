"""Rated certified deals for the difficulty tests of tests/api, tests/stats, tests/sdk and
tests/web (docs/difficulty.md): bands set by hand, so no test waits for a rating."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from games.engine.difficulty import BANDS
from games.models import DailyDeal, WinnableDeal
from tests.data import DEALS

# The daily fixture's deal: the first won deal of tests/data, as tests/api/test_daily_secrecy.
DAILY_CODE: str = DEALS["won"][0]["code"]
DAILY_LINE: list[dict[str, Any]] = DEALS["won"][0]["line"]
DAILY_SEED = 4242424242
BAND_SCORES = {"easy": 20, "medium": 40, "hard": 60}


def rated(band: str, score: int) -> dict[str, Any]:
    """The difficulty fields of a deal rated ``band`` with ``score`` (made-up measures)."""
    return {
        "difficulty_band": band,
        "difficulty_score": score,
        "difficulty_model_score": score,
        "difficulty_measures": {
            "first_actions": 5,
            "first_actions_won": 4,
            "line_length": 52,
            "solver_nodes": 60,
            "playouts": 64,
            "playout_wins": 30,
        },
    }


def banded_pool() -> dict[str, str]:
    """The eight won deals of tests/data in the pool, bands assigned in turn: code -> band."""
    bands: dict[str, str] = {}
    for seed, deal in enumerate(DEALS["won"], start=1):
        band = BANDS[seed % 3]
        WinnableDeal.objects.create(
            seed=seed,
            deal_code=deal["code"],
            certificate=deal["line"],
            **rated(band, BAND_SCORES[band]),
        )
        bands[deal["code"]] = band
    return bands


def today_rated_deal(band: str = "hard", score: int = 64) -> DailyDeal:
    return DailyDeal.objects.create(
        date=timezone.now().date(),
        seed=DAILY_SEED,
        candidate=0,
        deal_code=DAILY_CODE,
        certificate=DAILY_LINE,
        **rated(band, score),
    )
