"""One exception hierarchy for everything the SDK can raise.

The server answers every API error as RFC 9457 problem details with a stable ``code`` word
(``illegal_move``, ``version_conflict``, ...). The SDK picks the exception class by that code,
falling back on the HTTP status for codes it does not know yet, so a newer server never makes
an older SDK raise the wrong *kind* of error::

    ScorpionError
    ├── TransportError                 no answer: connection refused or dropped, ...
    │   └── RequestTimeout
    ├── UnexpectedResponse             an answer the SDK cannot read
    ├── ValidationError (400)          .errors: field -> messages
    │   └── UnknownCard
    ├── AuthenticationError (401)      also a refused log-in (400 from allauth)
    │   ├── EmailVerificationRequired
    │   └── OAuthError                 the OAuth token endpoint refused (.code: RFC 6749)
    │       ├── AccessDenied           the player said no (device flow)
    │       └── DeviceCodeExpired      the device code expired: start again
    ├── PermissionDenied (403)
    │   └── InsufficientScope          the app's token lacks the scope
    ├── NotFound (404)
    ├── MethodNotAllowed (405)
    ├── ConflictError (409)
    │   ├── GameFinished
    │   └── VersionConflict            .current_game
    ├── RuleError (422)                the rules of Scorpion forbid it
    │   ├── IllegalMove
    │   ├── StockEmpty
    │   ├── NothingToUndo
    │   └── NothingToRedo
    ├── IdempotencyKeyReused (422)
    ├── RateLimited (429)              .retry_after
    ├── ServerError (5xx)
    │   └── ServiceUnavailable (503)
    └── ModeUnavailable (501)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

    from scorpion_client.models import Game

__all__ = [
    "AccessDenied",
    "AuthenticationError",
    "ConflictError",
    "DeviceCodeExpired",
    "EmailVerificationRequired",
    "GameFinished",
    "IdempotencyKeyReused",
    "IllegalMove",
    "InsufficientScope",
    "MethodNotAllowed",
    "ModeUnavailable",
    "NotFound",
    "NothingToRedo",
    "NothingToUndo",
    "OAuthError",
    "PermissionDenied",
    "RateLimited",
    "RequestTimeout",
    "RuleError",
    "ScorpionError",
    "ServerError",
    "ServiceUnavailable",
    "StockEmpty",
    "TransportError",
    "UnexpectedResponse",
    "UnknownCard",
    "ValidationError",
    "VersionConflict",
]


class ScorpionError(Exception):
    """Base of every SDK error.

    For an answer from the server: ``status`` (HTTP status), ``code`` (the problem's stable
    word), ``title``, ``detail`` (what was wrong, in plain words; also the message) and
    ``body`` (the whole decoded problem). ``response`` is the ``httpx.Response``, if any.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        title: str | None = None,
        detail: str | None = None,
        body: Mapping[str, Any] | None = None,
        response: httpx.Response | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.body: dict[str, Any] = dict(body) if body is not None else {}
        self.response = response

    def __str__(self) -> str:
        if self.status is None:
            return self.message
        code = f" {self.code}" if self.code else ""
        return f"{self.message} (HTTP {self.status}{code})"


class TransportError(ScorpionError):
    """The request got no answer: connection refused, reset or dropped, DNS failure, ...
    Raised after the retries allowed by the client's retry policy are spent."""


class RequestTimeout(TransportError):
    """The server did not answer within the client's timeout."""


class UnexpectedResponse(ScorpionError):
    """An answer the SDK cannot read (not JSON, or missing a field the contract promises)."""


class ValidationError(ScorpionError):
    """The request is not valid (400): ``errors`` maps each field to its messages."""

    @property
    def errors(self) -> dict[str, list[str]]:
        raw = self.body.get("errors")
        if not isinstance(raw, Mapping):
            return {}
        return {
            str(key): [str(m) for m in value] if isinstance(value, list) else [str(value)]
            for key, value in raw.items()
        }


class UnknownCard(ValidationError):
    """A card code that names no card (``"1Z"``)."""


class AuthenticationError(ScorpionError):
    """No, invalid or expired credentials (401), or a refused log-in."""


class EmailVerificationRequired(AuthenticationError):
    """Signed up or logged in, but the server wants the e-mail address verified first.
    ``session_token`` is the pending session's token, if the server gave one."""

    @property
    def session_token(self) -> str | None:
        meta = self.body.get("meta")
        token = meta.get("session_token") if isinstance(meta, Mapping) else None
        return token if isinstance(token, str) else None


class OAuthError(AuthenticationError):
    """The OAuth token or device endpoint refused (RFC 6749 5.2): ``code`` is its ``error``
    word (``invalid_grant``: a spent, expired or revoked code or refresh token;
    ``invalid_client``: a wrong or suspended client id), ``detail`` its description."""


class AccessDenied(OAuthError):
    """The player refused the app (``access_denied``)."""


class DeviceCodeExpired(OAuthError):
    """The device code expired before the player answered (``expired_token``): start the
    device flow again."""


class PermissionDenied(ScorpionError):
    """Authenticated, but not allowed (403)."""


class InsufficientScope(PermissionDenied):
    """An app's token lacks the scope this needs (``insufficient_scope``); the response's
    ``WWW-Authenticate`` header names it."""


class NotFound(ScorpionError):
    """No such resource, or another player's game (404)."""


class MethodNotAllowed(ScorpionError):
    """The server does not offer this method on this path (405), e.g. an older server."""


class ConflictError(ScorpionError):
    """The game is not in a state that allows the command (409)."""


class GameFinished(ConflictError):
    """The game is won or resigned: nothing more is accepted."""


class VersionConflict(ConflictError):
    """The game is no longer at the expected version: someone (another device, another tab)
    played meanwhile. ``current_game`` is the game as it is now, from the problem body."""

    @property
    def current_game(self) -> Game | None:
        from scorpion_client.models import Game

        raw = self.body.get("game")
        if not isinstance(raw, Mapping):
            return None
        try:
            return Game.from_json(raw)
        except (KeyError, TypeError, ValueError):
            return None


class RuleError(ScorpionError):
    """The rules of Scorpion do not allow the command (422)."""


class IllegalMove(RuleError):
    """The move is against the rules, or the card is not face up."""


class StockEmpty(RuleError):
    """The stock has already been dealt."""


class NothingToUndo(RuleError):
    """Undo at the deal."""


class NothingToRedo(RuleError):
    """Redo with no undone line to replay."""


class IdempotencyKeyReused(ScorpionError):
    """The same ``Idempotency-Key`` was sent with a different command (422)."""


class RateLimited(ScorpionError):
    """Too many requests (429). ``retry_after``: seconds to wait, from ``Retry-After``."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServerError(ScorpionError):
    """The server failed (5xx)."""


class ServiceUnavailable(ServerError):
    """The server cannot serve this right now (503), e.g. no certified deal was found."""


class ModeUnavailable(ScorpionError):
    """The server does not offer this game mode (yet) (501)."""


# What each OAuth error word means to a person (RFC 6749 5.2, RFC 8628 3.5), said when the
# server's answer carries no description of its own.
OAUTH_ERROR_SENTENCES: dict[str, str] = {
    "access_denied": "The player did not allow the app (they chose Deny).",
    "expired_token": "The code expired before the player answered: start the log-in again.",
    "invalid_grant": (
        "The log-in is no longer valid: the code or refresh token was already used, has "
        "expired, or the player revoked the app. Log in again."
    ),
    "invalid_client": "The server does not know this app (client id), or it is suspended.",
    "invalid_scope": "The app asked for a scope the server does not grant.",
    "invalid_request": "The server could not read the log-in request.",
    "unauthorized_client": "This app may not log in this way (a confidential app has no "
    "device flow).",
    "unsupported_grant_type": "The server does not offer this way of logging in.",
    "authorization_pending": "The player has not answered yet.",
    "slow_down": "Asking too often: wait longer between tries.",
}
# Said when a token sent as a session token is refused and does not look like one.
BEARER_TOKEN_AS_SESSION = (
    "This token is not a session token: it looks like an OAuth access token or a personal "
    'access token. Pass token_type="bearer" (or set SCORPION_TOKEN_TYPE=bearer) to send it as '
    "Authorization: Bearer."
)

# The problem codes of the API (docs/api.md), each with the class the SDK raises for it.
ERRORS_BY_CODE: dict[str, type[ScorpionError]] = {
    "validation_error": ValidationError,
    "malformed_json": ValidationError,
    "unknown_card": UnknownCard,
    "not_authenticated": AuthenticationError,
    # allauth's refused log-in (400): wrong e-mail address or password.
    "email_password_mismatch": AuthenticationError,
    "permission_denied": PermissionDenied,
    "insufficient_scope": InsufficientScope,
    # The OAuth endpoints (RFC 6749 5.2, RFC 8628 3.5).
    "invalid_grant": OAuthError,
    "invalid_client": OAuthError,
    "invalid_request": OAuthError,
    "invalid_scope": OAuthError,
    "unauthorized_client": OAuthError,
    "unsupported_grant_type": OAuthError,
    "authorization_pending": OAuthError,
    "slow_down": OAuthError,
    "access_denied": AccessDenied,
    "expired_token": DeviceCodeExpired,
    "not_found": NotFound,
    "method_not_allowed": MethodNotAllowed,
    "game_finished": GameFinished,
    "version_conflict": VersionConflict,
    "illegal_move": IllegalMove,
    "stock_empty": StockEmpty,
    "nothing_to_undo": NothingToUndo,
    "nothing_to_redo": NothingToRedo,
    "idempotency_key_reused": IdempotencyKeyReused,
    "throttled": RateLimited,
    "mode_unavailable": ModeUnavailable,
    "deal_unavailable": ServiceUnavailable,
    "server_error": ServerError,
}

# For codes this SDK does not know: the class by HTTP status.
ERRORS_BY_STATUS: dict[int, type[ScorpionError]] = {
    400: ValidationError,
    401: AuthenticationError,
    403: PermissionDenied,
    404: NotFound,
    405: MethodNotAllowed,
    409: ConflictError,
    422: RuleError,
    429: RateLimited,
    501: ModeUnavailable,
    503: ServiceUnavailable,
}


def error_class(code: str | None, status: int) -> type[ScorpionError]:
    """The exception class for a problem ``code`` (or, unknown, for its HTTP ``status``)."""
    if code is not None and code in ERRORS_BY_CODE:
        return ERRORS_BY_CODE[code]
    if status in ERRORS_BY_STATUS:
        return ERRORS_BY_STATUS[status]
    if status >= 500:
        return ServerError
    return ScorpionError
