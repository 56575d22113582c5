"""What a player asks for when starting a game: read from the request by the API's serializer,
acted on by games.services.game_create."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from games.models import GameMode
from games.variants import DEFAULT_VARIANT


@dataclass(frozen=True, slots=True)
class DealChoice:
    """Where a new game's deal comes from, and which game of the Scorpion family it is. At
    most one of seed, code or pysol_number is set; they are read in ``variant``."""

    mode: str = GameMode.RANDOM
    seed: int | None = None
    code: str | None = None
    pysol_number: int | None = None
    variant: str = DEFAULT_VARIANT
    difficulty: str | None = None  # winnable mode only: draw from this band (None: any)
    # Daily mode only: a past day's daily, played late (None: today's).
    daily_date: datetime.date | None = None
