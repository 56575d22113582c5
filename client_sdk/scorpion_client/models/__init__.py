"""Typed models of what the server answers.

Plain dataclasses: they keep the SDK's only runtime dependency for data at the standard
library, are cheap, and mypy checks them. Every model is forward compatible: fields the server
adds later are kept, untouched, in ``extra`` instead of breaking the parse; optional fields the
server leaves out become ``None``.

Cards are strings in the API's notation: rank ``A23456789TJQK`` + suit ``SHDC`` (``"TH"``).
Column indexes are 0-based, as in the API (0-6; 0-9 in the ten-column variants).

One module per domain: ``games`` (a game, its commands and events), ``advice`` (hints,
chances, analysis), ``daily`` (the daily challenge and its leaderboard), ``stats``,
``variants``, ``accounts``, ``streams`` (what the live streams bring), ``pages`` and
``rate_limit``; every model is importable from here, as from ``scorpion_client``.
"""

from __future__ import annotations

# The models' annotations are strings (``from __future__ import annotations``): the names
# they use (and ``Page``'s ``T``) are all here, so that ``typing.get_type_hints(model,
# vars(models))`` resolves them in this namespace as it did when the models were one module.
import datetime as dt  # noqa: F401
from typing import Any, Literal  # noqa: F401

# Every name the models' module defined is importable from here as before; those outside
# ``__all__`` are imported ``X as X``, so that type checkers see them exported too.
from scorpion_client.models.accounts import Deck as Deck
from scorpion_client.models.accounts import Me, Session
from scorpion_client.models.advice import ActionChance as ActionChance
from scorpion_client.models.advice import (
    Analysis,
    AnalysisStep,
    DealDifficulty,
    HintMove,
    Hints,
)
from scorpion_client.models.advice import AnalysisDeal as AnalysisDeal
from scorpion_client.models.advice import AnalysisOutcome as AnalysisOutcome
from scorpion_client.models.advice import Chances as Chances
from scorpion_client.models.daily import Daily, Leaderboard, LeaderboardEntry
from scorpion_client.models.games import ABANDONED as ABANDONED
from scorpion_client.models.games import FINISHED_STATUSES as FINISHED_STATUSES
from scorpion_client.models.games import PLAYING as PLAYING
from scorpion_client.models.games import RANKS as RANKS
from scorpion_client.models.games import RESIGNED as RESIGNED
from scorpion_client.models.games import STUCK as STUCK
from scorpion_client.models.games import SUITS as SUITS
from scorpion_client.models.games import WON as WON
from scorpion_client.models.games import (
    Action,
    Collection,
    Column,
    Command,
    CommandResult,
    CommandType,
    Copy,
    CreateMode,
    Difficulty,
    Event,
    EventType,
    Flip,
    Game,
    GameMode,
    GameStatus,
    Variant,
    normalize_card,
)
from scorpion_client.models.games import ActionType as ActionType
from scorpion_client.models.games import AppKind as AppKind
from scorpion_client.models.games import LeaderboardHidden as LeaderboardHidden
from scorpion_client.models.games import PlayedByApp as PlayedByApp
from scorpion_client.models.pages import Page, T  # noqa: F401
from scorpion_client.models.rate_limit import RateLimit
from scorpion_client.models.stats import BandResults, Stats, VariantFigures
from scorpion_client.models.streams import (
    ChallengeResult,
    DailyResult,
    FeedEvent,
    FeedResync,
    FriendBeatTime,
    GameCreated,
    GameEnded,
    GameResync,
    GameStreamEvent,
    GameUpdate,
)
from scorpion_client.models.variants import VariantInfo

__all__ = [
    "Action",
    "Analysis",
    "AnalysisStep",
    "BandResults",
    "ChallengeResult",
    "Collection",
    "Column",
    "Command",
    "CommandResult",
    "CommandType",
    "Copy",
    "CreateMode",
    "Daily",
    "DailyResult",
    "DealDifficulty",
    "Difficulty",
    "Event",
    "EventType",
    "FeedEvent",
    "FeedResync",
    "Flip",
    "FriendBeatTime",
    "Game",
    "GameCreated",
    "GameEnded",
    "GameMode",
    "GameResync",
    "GameStatus",
    "GameStreamEvent",
    "GameUpdate",
    "HintMove",
    "Hints",
    "Leaderboard",
    "LeaderboardEntry",
    "Me",
    "Page",
    "RateLimit",
    "Session",
    "Stats",
    "Variant",
    "VariantFigures",
    "VariantInfo",
    "normalize_card",
]
