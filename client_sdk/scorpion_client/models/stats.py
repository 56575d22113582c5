"""The caller's statistics: overall, per mode, per variant and per difficulty band."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from scorpion_client.models._fields import (
    _extra,
    _list_of,
    _opt_float,
    _opt_int,
    _str,
)
from scorpion_client.models.games import Variant

_FIGURES_KEYS = (
    "played",
    "won",
    "resigned",
    "abandoned",
    "in_play",
    "win_rate",
    "current_streak",
    "best_streak",
    "best_time",
    "fewest_moves",
    "average_win_time",
    "clean_wins",
    "modes",
    "variants",
    "daily",
    "difficulty",
)


@dataclass
class VariantFigures:
    """The caller's record at one variant, every mode together (no streaks: those are kept
    overall and per mode). Times in seconds."""

    variant: Variant
    played: int = 0
    won: int = 0
    resigned: int = 0
    abandoned: int = 0
    in_play: int = 0
    win_rate: float | None = None
    best_time: float | None = None
    fewest_moves: int | None = None
    clean_wins: int = 0
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> VariantFigures:
        return cls(
            variant=cast(Variant, _str(data["variant"])),
            played=_opt_int(data.get("played")) or 0,
            won=_opt_int(data.get("won")) or 0,
            resigned=_opt_int(data.get("resigned")) or 0,
            abandoned=_opt_int(data.get("abandoned")) or 0,
            in_play=_opt_int(data.get("in_play")) or 0,
            win_rate=_opt_float(data.get("win_rate")),
            best_time=_opt_float(data.get("best_time")),
            fewest_moves=_opt_int(data.get("fewest_moves")),
            clean_wins=_opt_int(data.get("clean_wins")) or 0,
            extra=_extra(
                data,
                (
                    "variant",
                    "played",
                    "won",
                    "resigned",
                    "abandoned",
                    "in_play",
                    "win_rate",
                    "best_time",
                    "fewest_moves",
                    "clean_wins",
                ),
            ),
        )


@dataclass
class BandResults:
    """A player's played games on deals of one difficulty band, and their wins."""

    played: int = 0
    won: int = 0
    win_rate: float | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BandResults:
        return cls(
            played=_opt_int(data.get("played")) or 0,
            won=_opt_int(data.get("won")) or 0,
            win_rate=_opt_float(data.get("win_rate")),
            extra=_extra(data, ("played", "won", "win_rate")),
        )


@dataclass
class Stats:
    """The caller's statistics over all games; ``modes`` holds the same figures per mode
    (``random``, ``seeded``, ``daily``, ``winnable``), so the daily challenge's stand apart,
    and ``daily_practice`` (the daily challenge's later attempts of a day, which never rank).
    Times are in seconds; ``played`` counts won, resigned and abandoned games (a game left
    behind with a move in it), ``in_play`` the games still open; ``win_rate`` is won / played,
    0 to 1. ``difficulty``: played, won and win rate by difficulty band (``easy``, ``medium``,
    ``hard``) of the daily and winnable games."""

    played: int = 0
    won: int = 0
    resigned: int = 0
    abandoned: int = 0
    in_play: int = 0
    win_rate: float | None = None
    current_streak: int | None = None
    best_streak: int | None = None
    best_time: float | None = None
    fewest_moves: int | None = None
    average_win_time: float | None = None
    clean_wins: int | None = None
    modes: dict[str, Stats] = field(default_factory=dict)
    variants: list[VariantFigures] = field(default_factory=list)
    difficulty: dict[str, BandResults] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def variant(self, name: Variant) -> VariantFigures | None:
        """The figures of one variant (``"wasp"``, ...), None if the server has none."""
        return next((row for row in self.variants if row.variant == name), None)

    @property
    def daily(self) -> Stats | None:
        """The daily challenge's figures: each day's first (ranked) attempt."""
        return self.modes.get("daily")

    @property
    def daily_practice(self) -> Stats | None:
        """The daily challenge's practice attempts (after the first attempt of a day)."""
        return self.modes.get("daily_practice")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Stats:
        modes: dict[str, Stats] = {}
        raw_modes = data.get("modes")
        if isinstance(raw_modes, Mapping):
            for name, figures in raw_modes.items():
                if isinstance(figures, Mapping):
                    modes[str(name)] = Stats.from_json(figures)
        bands: dict[str, BandResults] = {}
        raw_bands = data.get("difficulty")
        if isinstance(raw_bands, Mapping):
            for name, figures in raw_bands.items():
                if isinstance(figures, Mapping):
                    bands[str(name)] = BandResults.from_json(figures)
        daily = data.get("daily")
        if isinstance(daily, Mapping) and "daily" not in modes:
            modes["daily"] = Stats.from_json(daily)
        return cls(
            played=_opt_int(data.get("played")) or 0,
            won=_opt_int(data.get("won")) or 0,
            resigned=_opt_int(data.get("resigned")) or 0,
            abandoned=_opt_int(data.get("abandoned")) or 0,
            in_play=_opt_int(data.get("in_play")) or 0,
            win_rate=_opt_float(data.get("win_rate")),
            current_streak=_opt_int(data.get("current_streak")),
            best_streak=_opt_int(data.get("best_streak")),
            best_time=_opt_float(data.get("best_time")),
            fewest_moves=_opt_int(data.get("fewest_moves")),
            average_win_time=_opt_float(data.get("average_win_time")),
            clean_wins=_opt_int(data.get("clean_wins")),
            modes=modes,
            variants=_list_of(data.get("variants"), VariantFigures.from_json),
            difficulty=bands,
            extra=_extra(data, _FIGURES_KEYS),
        )
