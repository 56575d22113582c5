"""RFC 9457 problem details for every error the API returns.

Each problem has a stable ``code`` word (docs/api.md) that clients switch on, a ``title`` per code
and a ``detail`` in plain words for people. The ``type`` URI points at the problem catalogue
served by the API itself (``/api/problems/<code>/``).
"""

from __future__ import annotations

import logging
import math
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

from games.engine.errors import EngineError
from games.services import (
    CertificationError,
    IdempotencyKeyReusedError,
    VersionConflictError,
)

logger = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"

# code -> (HTTP status, title). The catalogue of every code the API can answer with.
PROBLEMS: dict[str, tuple[int, str]] = {
    "illegal_move": (422, "That move is not allowed"),
    "unknown_card": (400, "Unknown card"),
    "stock_empty": (422, "The stock has already been dealt"),
    "nothing_to_undo": (422, "Nothing to undo"),
    "nothing_to_redo": (422, "Nothing to redo"),
    "game_finished": (409, "The game is finished"),
    "version_conflict": (409, "The game changed meanwhile"),
    "idempotency_key_reused": (422, "Idempotency-Key already used for another command"),
    "validation_error": (400, "The request is not valid"),
    "malformed_json": (400, "The body is not valid JSON"),
    "not_found": (404, "Not found"),
    "not_authenticated": (401, "Authentication required"),
    "permission_denied": (403, "Permission denied"),
    "method_not_allowed": (405, "Method not allowed"),
    "not_acceptable": (406, "Not acceptable"),
    "unsupported_media_type": (415, "Unsupported media type"),
    "payload_too_large": (413, "The body is too large"),
    "precondition_failed": (412, "Precondition failed"),
    "throttled": (429, "Too many requests"),
    "deal_unavailable": (503, "No certified deal could be found right now"),
    "server_error": (500, "Internal server error"),
}


def problem_body(code: str, detail: str, **extra: Any) -> dict[str, Any]:
    status_code, title = PROBLEMS[code]
    body: dict[str, Any] = {
        "type": f"/api/problems/{code}/",
        "title": title,
        "status": status_code,
        "detail": detail,
        "code": code,
    }
    body.update(extra)
    return body


def problem_response(
    code: str, detail: str, *, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    body = problem_body(code, detail, **extra)
    return Response(body, status=body["status"], headers=headers, content_type=PROBLEM_CONTENT_TYPE)


def problem_json_response(code: str, detail: str) -> JsonResponse:
    """The same problem as a plain Django response, for errors raised outside DRF views."""
    body = problem_body(code, detail)
    return JsonResponse(body, status=body["status"], content_type=PROBLEM_CONTENT_TYPE)


_DRF_CODES: list[tuple[type[exceptions.APIException], str]] = [
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "not_authenticated"),
    (exceptions.PermissionDenied, "permission_denied"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
    (exceptions.ParseError, "malformed_json"),
    (exceptions.Throttled, "throttled"),
    (exceptions.ValidationError, "validation_error"),
]


def _flatten_detail(detail: Any) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{key}: {_flatten_detail(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return " ".join(_flatten_detail(item) for item in detail)
    return str(detail)


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's exception handler, answering every error as problem+json."""
    # Every error leaves the database as it was: a rejected request changes nothing.
    set_rollback()
    if isinstance(exc, VersionConflictError):
        from games.api.serializers import game_representation

        return problem_response("version_conflict", str(exc), game=game_representation(exc.game))
    if isinstance(exc, EngineError):
        return problem_response(exc.code, str(exc))
    if isinstance(exc, IdempotencyKeyReusedError):
        return problem_response("idempotency_key_reused", str(exc))
    if isinstance(exc, CertificationError):
        logger.error("certification failed: %s", exc)
        return problem_response("deal_unavailable", str(exc))
    if isinstance(exc, Http404):
        return problem_response("not_found", str(exc) or "not found")
    if isinstance(exc, DjangoPermissionDenied):
        return problem_response("permission_denied", "permission denied")
    if isinstance(exc, exceptions.APIException):
        code = next((c for cls, c in _DRF_CODES if isinstance(exc, cls)), None)
        headers: dict[str, str] = {}
        wait = getattr(exc, "wait", None) if isinstance(exc, exceptions.Throttled) else None
        if wait is not None:
            headers["Retry-After"] = str(max(1, math.ceil(wait)))
        if code is None:
            code = "validation_error" if exc.status_code == 400 else "server_error"
        extra: dict[str, Any] = {}
        if isinstance(exc, exceptions.ValidationError):
            extra["errors"] = exc.detail
            detail = _flatten_detail(exc.detail)
        else:
            detail = _flatten_detail(exc.detail)
        response = problem_response(code, detail, headers=headers, **extra)
        response.status_code = exc.status_code
        response.data["status"] = exc.status_code
        auth_header = getattr(exc, "auth_header", None)
        if auth_header:
            response["WWW-Authenticate"] = auth_header
        return response
    return None


def is_api_path(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def api_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    from django.views.defaults import page_not_found

    if is_api_path(request):
        return problem_json_response("not_found", f"no resource at {request.path}")
    return page_not_found(request, exception or Http404())


def api_server_error(request: HttpRequest) -> HttpResponse:
    from django.views.defaults import server_error

    if is_api_path(request):
        return problem_json_response("server_error", "something went wrong on our side")
    return server_error(request)


class ApiBodyLimitMiddleware:
    """Refuses oversized API bodies with 413 before anything reads them.

    Django enforces DATA_UPLOAD_MAX_MEMORY_SIZE only when ``request.body`` is read, and DRF
    reads the stream directly, so the limit is applied here from Content-Length.
    """

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        from django.conf import settings

        if is_api_path(request):
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                return problem_json_response("validation_error", "invalid Content-Length")
            if length > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
                return problem_json_response(
                    "payload_too_large",
                    f"the body has {length} bytes; the API accepts at most "
                    f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE}",
                )
        response: HttpResponse = self.get_response(request)
        return response
