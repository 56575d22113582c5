"""The exception an error answer becomes: a problem+json body of the API (RFC 9457), an
OAuth or allauth error body, or anything else (a proxy's HTML page) by its status alone; and
the exception for a request that got no answer."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import httpx

from scorpion_client._retries import parse_retry_after
from scorpion_client.errors import (
    BEARER_TOKEN_AS_SESSION,
    OAUTH_ERROR_SENTENCES,
    EmailVerificationRequired,
    RateLimited,
    RequestTimeout,
    ScorpionError,
    TransportError,
    error_class,
)


def error_from_response(response: httpx.Response) -> ScorpionError:
    """The exception for an error answer: a problem+json body of the API, an allauth error
    body, or anything else (a proxy's HTML page) by its status alone."""
    status = response.status_code
    body: Any = None
    try:
        body = response.json()
    except ValueError:
        body = None
    retry_after = parse_retry_after(response.headers.get("Retry-After"))
    if not isinstance(body, Mapping):
        text = response.text.strip()[:200] or response.reason_phrase
        cls = error_class(None, status)
        return _make(
            cls, f"HTTP {status}: {text}", status, None, None, None, {}, response, retry_after
        )
    code = body.get("code") if isinstance(body.get("code"), str) else None
    title = body.get("title") if isinstance(body.get("title"), str) else None
    detail = body.get("detail") if isinstance(body.get("detail"), str) else None
    problem = dict(body)
    if code is None and isinstance(body.get("error"), str):
        # The OAuth endpoints: {"error": "invalid_grant", "error_description": "..."}; an
        # answer without a description is told in a sentence, not as its error word.
        code = body["error"]
        description = body.get("error_description")
        if not isinstance(description, str) or description.strip() in ("", code):
            description = OAUTH_ERROR_SENTENCES.get(
                code, f"The server refused the log-in ({code})."
            )
        detail = detail or description
    if code is None and isinstance(body.get("errors"), list):
        # allauth: {"status": 400, "errors": [{"message", "code", "param"}]}
        messages: list[str] = []
        fields: dict[str, list[str]] = {}
        for item in body["errors"]:
            if not isinstance(item, Mapping):
                continue
            message = str(item.get("message", ""))
            messages.append(message)
            fields.setdefault(str(item.get("param") or "non_field_errors"), []).append(message)
            if code is None and isinstance(item.get("code"), str):
                code = item["code"]
        detail = detail or "; ".join(m for m in messages if m)
        problem["errors"] = fields
    cls = error_class(code, status)
    if status == 401 and _pending_flow(body, "verify_email"):
        cls = EmailVerificationRequired
        detail = detail or "the e-mail address must be verified first"
    message = detail or title or response.reason_phrase or f"HTTP {status}"
    if status == 401 and _sent_oauth_token_as_session(response):
        message = detail = f"{message.rstrip('.')}. {BEARER_TOKEN_AS_SESSION}"
    return _make(cls, message, status, code, title, detail, problem, response, retry_after)


# A session token is a session key: 32 lowercase letters and digits (Django's).
_SESSION_KEY = re.compile(r"[a-z0-9]{32,40}")


def _sent_oauth_token_as_session(response: httpx.Response) -> bool:
    """Whether the refused request sent, as ``X-Session-Token``, something that cannot be a
    session token (an OAuth access token, a personal access token)."""
    try:
        sent = response.request.headers.get("X-Session-Token")
    except RuntimeError:  # a response built without its request
        return False
    return bool(sent) and _SESSION_KEY.fullmatch(sent) is None


def _pending_flow(body: Mapping[str, Any], flow_id: str) -> bool:
    data = body.get("data")
    flows = data.get("flows") if isinstance(data, Mapping) else None
    if not isinstance(flows, list):
        return False
    return any(
        isinstance(flow, Mapping) and flow.get("id") == flow_id and flow.get("is_pending")
        for flow in flows
    )


def _make(
    cls: type[ScorpionError],
    message: str,
    status: int,
    code: str | None,
    title: str | None,
    detail: str | None,
    body: Mapping[str, Any],
    response: httpx.Response,
    retry_after: float | None,
) -> ScorpionError:
    kwargs: dict[str, Any] = {
        "status": status,
        "code": code,
        "title": title,
        "detail": detail,
        "body": body,
        "response": response,
    }
    if issubclass(cls, RateLimited):
        return cls(message, retry_after=retry_after, **kwargs)
    return cls(message, **kwargs)


def transport_error(exc: httpx.RequestError, request: httpx.Request) -> TransportError:
    cls = RequestTimeout if isinstance(exc, httpx.TimeoutException) else TransportError
    name = type(exc).__name__
    return cls(f"{request.method} {request.url}: {name}: {exc or 'no answer'}")


def problem_code(response: httpx.Response) -> str | None:
    """The ``code`` of an error answer's problem+json body, or None (no body read, not JSON,
    no code): what tells a lasting 503 from a passing one."""
    try:
        body = response.json()
    except (ValueError, httpx.ResponseNotRead):
        return None
    code = body.get("code") if isinstance(body, Mapping) else None
    return code if isinstance(code, str) else None
