"""What the sync and the async clients share: the client's shared half (``BaseClient``:
configuration, building requests, when to refresh, pace or re-send) and, re-exported here so
that the clients import it from one place, the modules it is made of:

- ``_operations``: every operation as a ``Spec`` (method, path, body, headers, how to read
  the answer, whether it may be re-sent), built once for both clients;
- ``_request_spec``: the ``Spec`` itself; ``_retries``: the retry policy;
- ``_problem_details``: the exception an error answer becomes;
- ``_credentials``: the token sent, and its refresh;
- ``_sse`` and ``_streams``: reading and following the live streams.

The two clients only differ in how they send (``httpx.Client`` or ``httpx.AsyncClient``,
``time.sleep`` or ``asyncio.sleep``).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from scorpion_client._credentials import Credentials, token_type_from_env
from scorpion_client._operations import GameRef, Ops, game_id_of
from scorpion_client._problem_details import error_from_response, problem_code, transport_error
from scorpion_client._request_spec import Spec
from scorpion_client._retries import (
    DEFAULT_MAX_RETRIES,
    LASTING_503,
    NOT_PROCESSED_STATUSES,
    NOT_SENT_ERRORS,
    RetryPolicy,
    parse_retry_after,
)
from scorpion_client._sse import ServerSentEvent, SSEDecoder
from scorpion_client._streams import StreamFollower, StreamOptions, StreamSpec
from scorpion_client._version import __version__
from scorpion_client.models import RateLimit
from scorpion_client.oauth import EXPIRY_MARGIN, OAuthToken, TokenType

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "NOT_GIVEN",
    "USER_AGENT",
    "BaseClient",
    "Credentials",
    "GameRef",
    "NotGiven",
    "Ops",
    "RetryPolicy",
    "SSEDecoder",
    "ServerSentEvent",
    "Spec",
    "StreamFollower",
    "StreamOptions",
    "StreamSpec",
    "error_from_response",
    "game_id_of",
    "parse_retry_after",
    "resolve_base_url",
    "token_type_from_env",
    "transport_error",
]

T = TypeVar("T")

logger = logging.getLogger("scorpion_client")

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
DEFAULT_TIMEOUT = httpx.Timeout(10.0, connect=5.0)

USER_AGENT = f"scorpion-client-python/{__version__}"


class NotGiven:
    """The default of ``timeout=`` where None means "no timeout"."""

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


def resolve_base_url(
    base_url: str | None, http_client: httpx.Client | httpx.AsyncClient | None
) -> str:
    """``base_url``, else the ``http_client``'s own base URL, else ``$SCORPION_URL``, else
    the local server."""
    if base_url:
        return base_url
    if http_client is not None and str(http_client.base_url):
        return str(http_client.base_url)
    return os.environ.get("SCORPION_URL") or DEFAULT_BASE_URL


@dataclass
class _RateLimitHolder:
    current: RateLimit | None = None


class BaseClient:
    """Configuration, request building and answer handling shared by both clients."""

    def __init__(
        self,
        base_url: str,
        token: str | OAuthToken | None = None,
        *,
        token_type: TokenType | None = None,
        refresh_token: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        on_token_refresh: Callable[[OAuthToken], None] | None = None,
        timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.base_url = httpx.URL(base_url.rstrip("/") + "/")
        if token is None and os.environ.get("SCORPION_TOKEN"):
            token = os.environ["SCORPION_TOKEN"]
            if token_type is None:
                token_type = token_type_from_env(os.environ.get("SCORPION_TOKEN_TYPE"))
        self.credentials = Credentials(
            client_id=client_id, client_secret=client_secret, on_refresh=None
        )
        if isinstance(token, OAuthToken):
            if token_type == "session":
                raise ValueError("an OAuthToken is a bearer token, not a session token")
            self.credentials.use(token)
            self.credentials.refresh_token = refresh_token or token.refresh_token
        else:
            self.credentials.token = token
            self.credentials.token_type = token_type or "session"
            self.credentials.refresh_token = refresh_token
        if token_type is not None:
            self.credentials.token_type = token_type
        self.credentials.on_refresh = on_token_refresh
        self.timeout = timeout
        self.retry = retry if retry is not None else RetryPolicy(max_retries=max_retries)
        # A holder, so that the views of ``with_options`` (copies) share what they learn.
        self._rate_limit = _RateLimitHolder()
        self.default_headers: dict[str, str] = {
            "User-Agent": USER_AGENT,
            "Accept": "application/json, application/problem+json",
            **(headers or {}),
        }

    @property
    def rate_limit(self) -> RateLimit | None:
        """Where this client stands with the server's rate limit, as the last answer that
        said it (``RateLimit-*`` fields) had it: ``limit``, ``remaining``, ``resets_in``."""
        return self._rate_limit.current

    def _note_rate_limit(self, response: httpx.Response) -> None:
        found = RateLimit.from_headers(response.headers)
        if found is not None:
            self._rate_limit.current = found

    def _pace_delay(self) -> float:
        """Seconds to wait before sending, so as not to meet a 429 the last answer foretold."""
        current = self._rate_limit.current
        if not self.retry.pace or current is None or current.remaining > 0:
            return 0.0
        wait = current.resets_in
        if not 0.0 < wait <= self.retry.max_retry_after:
            return 0.0
        logger.info("rate limit spent: waiting %.2fs for its window to end", wait)
        return wait

    @property
    def token(self) -> str | None:
        """The token sent with each request (``token_type`` says how), or None."""
        return self.credentials.token

    @token.setter
    def token(self, value: str | None) -> None:
        self.credentials.token = value

    @property
    def token_type(self) -> TokenType:
        return self.credentials.token_type

    def _url(self, spec: Spec[Any]) -> httpx.URL:
        # Absolute, so that an ``http_client`` without a base URL works: paths are relative
        # to the base URL (which may carry a prefix: .../scorpion/).
        if spec.url.startswith("/"):
            return self.base_url.join(spec.url.lstrip("/"))
        return httpx.URL(spec.url)

    def _headers(self, spec: Spec[Any]) -> dict[str, str]:
        # The SDK's own headers on every request, whatever client sends it.
        headers = {**self.default_headers, **spec.headers}
        if spec.authenticated:
            headers.update(self.credentials.headers())
        return headers

    def _build(
        self,
        http: httpx.Client | httpx.AsyncClient,
        spec: Spec[Any],
        timeout: float | httpx.Timeout | None,
    ) -> httpx.Request:
        return http.build_request(
            spec.method,
            self._url(spec),
            params=dict(spec.params) if spec.params else None,
            json=spec.json if spec.json is not None else None,
            data=dict(spec.data) if spec.data is not None else None,
            headers=self._headers(spec),
            timeout=timeout,
        )

    def _should_refresh(self, spec: Spec[Any]) -> bool:
        """Before sending: the access token is known to have expired."""
        credentials = self.credentials
        return (
            spec.authenticated
            and credentials.can_refresh
            and credentials.expires_at is not None
            and time.time() >= credentials.expires_at - EXPIRY_MARGIN
        )

    def _refresh_after(self, spec: Spec[Any], response: httpx.Response, refreshed: bool) -> bool:
        """After a 401: refresh once and send again, if the token can be refreshed."""
        return (
            response.status_code == 401
            and spec.authenticated
            and not refreshed
            and self.credentials.can_refresh
        )

    def _delay_after_error(
        self, spec: Spec[Any], attempt: int, error: httpx.RequestError
    ) -> float | None:
        """Seconds to wait before re-sending after a transport error, or None to give up."""
        if attempt >= self.retry.max_retries or not isinstance(error, httpx.TransportError):
            return None
        if not spec.replay_safe and not isinstance(error, NOT_SENT_ERRORS):
            return None
        return self.retry.backoff(attempt)

    def _delay_after_response(
        self, spec: Spec[Any], attempt: int, response: httpx.Response
    ) -> float | None:
        """Seconds to wait before re-sending after this answer, or None to keep it."""
        status = response.status_code
        if attempt >= self.retry.max_retries or status not in self.retry.retry_statuses:
            return None
        if not spec.replay_safe and status not in NOT_PROCESSED_STATUSES:
            return None
        if status == 503 and problem_code(response) in LASTING_503:
            return None
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        if retry_after is not None:
            if retry_after > self.retry.max_retry_after:
                return None
            return retry_after
        return self.retry.backoff(attempt)

    def _log_retry(self, request: httpx.Request, reason: str, delay: float, attempt: int) -> None:
        logger.info(
            "%s %s: %s; retry %d of %d in %.2fs",
            request.method,
            request.url,
            reason,
            attempt + 1,
            self.retry.max_retries,
            delay,
        )

    def _finish(self, spec: Spec[T], response: httpx.Response) -> T:
        if response.is_success or response.status_code in spec.ok_statuses:
            return spec.parse(response)
        raise error_from_response(response)
