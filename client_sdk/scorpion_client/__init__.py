"""Python SDK for the Scorpion Solitaire service.

>>> from scorpion_client import Scorpion
>>> client = Scorpion("http://127.0.0.1:8000")
>>> client.auth.signup("me@example.com", "a long password 42")
>>> game = client.games.create(seed=42)
>>> game.move("8H")
"""

from scorpion_client._async import AsyncGameHandle, AsyncScorpion
from scorpion_client._core import RetryPolicy
from scorpion_client._sync import GameHandle, Scorpion
from scorpion_client.endpoints import ENDPOINTS, Endpoint
from scorpion_client.errors import (
    AuthenticationError,
    ConflictError,
    EmailVerificationRequired,
    GameFinished,
    IdempotencyKeyReused,
    IllegalMove,
    MethodNotAllowed,
    ModeUnavailable,
    NotFound,
    NothingToRedo,
    NothingToUndo,
    PermissionDenied,
    RateLimited,
    RequestTimeout,
    RuleError,
    ScorpionError,
    ServerError,
    ServiceUnavailable,
    StockEmpty,
    TransportError,
    UnexpectedResponse,
    UnknownCard,
    ValidationError,
    VersionConflict,
)
from scorpion_client.models import (
    Action,
    Collection,
    Column,
    CommandResult,
    Daily,
    Event,
    Flip,
    Game,
    HintMove,
    Hints,
    Leaderboard,
    LeaderboardEntry,
    Me,
    Page,
    Session,
    Stats,
    normalize_card,
)

__version__ = "0.1.0"

__all__ = [
    "ENDPOINTS",
    "Action",
    "AsyncGameHandle",
    "AsyncScorpion",
    "AuthenticationError",
    "Collection",
    "Column",
    "CommandResult",
    "ConflictError",
    "Daily",
    "EmailVerificationRequired",
    "Endpoint",
    "Event",
    "Flip",
    "Game",
    "GameFinished",
    "GameHandle",
    "HintMove",
    "Hints",
    "IdempotencyKeyReused",
    "IllegalMove",
    "Leaderboard",
    "LeaderboardEntry",
    "Me",
    "MethodNotAllowed",
    "ModeUnavailable",
    "NotFound",
    "NothingToRedo",
    "NothingToUndo",
    "Page",
    "PermissionDenied",
    "RateLimited",
    "RequestTimeout",
    "RetryPolicy",
    "RuleError",
    "Scorpion",
    "ScorpionError",
    "ServerError",
    "ServiceUnavailable",
    "Session",
    "Stats",
    "StockEmpty",
    "TransportError",
    "UnexpectedResponse",
    "UnknownCard",
    "ValidationError",
    "VersionConflict",
    "__version__",
    "normalize_card",
]
