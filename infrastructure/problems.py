"""RFC 9457 problem details for every error the API returns.

Each problem has a stable ``code`` word (docs/api.md) that clients switch on, a ``title`` per code
and a ``detail`` in plain words for people. The ``type`` URI points at the problem catalogue
served by the API itself (``/api/problems/<code>/``).
"""

from __future__ import annotations

import json
import logging
import math
import re
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

logger = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"
StrOrPromise = str | Promise

# code -> (HTTP status, title). The catalogue of every code the API can answer with.
PROBLEMS: dict[str, tuple[int, StrOrPromise]] = {
    "illegal_move": (422, gettext_lazy("That move is not allowed")),
    "unknown_card": (400, gettext_lazy("Unknown card")),
    "stock_empty": (422, gettext_lazy("The stock has already been dealt")),
    "nothing_to_undo": (422, gettext_lazy("Nothing to undo")),
    "nothing_to_redo": (422, gettext_lazy("Nothing to redo")),
    "game_finished": (409, gettext_lazy("The game is finished")),
    "version_conflict": (409, gettext_lazy("The game changed meanwhile")),
    "game_not_finished": (409, gettext_lazy("The game is not over yet")),
    "deal_not_revealed": (409, gettext_lazy("The daily deal is still secret")),
    "analysis_needs_worker": (
        503,
        gettext_lazy("The analysis needs a worker, and none is running"),
    ),
    "variant_not_analysed": (
        409,
        gettext_lazy("Winning chances are not estimated in this variant"),
    ),
    "idempotency_key_reused": (
        422,
        gettext_lazy("Idempotency-Key already used for another command"),
    ),
    "challenge_closed": (409, gettext_lazy("The challenge is closed")),
    "own_challenge": (409, gettext_lazy("This is your own challenge")),
    "not_challengeable": (409, gettext_lazy("This game cannot be offered as a challenge yet")),
    "validation_error": (400, gettext_lazy("The request is not valid")),
    "unknown_variant": (400, gettext_lazy("No game of the Scorpion family has that name")),
    "variant_not_offered": (400, gettext_lazy("That variant is not dealt in this mode")),
    "malformed_json": (400, gettext_lazy("The body is not valid JSON")),
    "json_too_deep": (400, gettext_lazy("The JSON body is nested too deeply")),
    "not_found": (404, gettext_lazy("Not found")),
    "not_authenticated": (401, gettext_lazy("Authentication required")),
    "permission_denied": (403, gettext_lazy("Permission denied")),
    "insufficient_scope": (403, gettext_lazy("The app was not granted the scope this needs")),
    "method_not_allowed": (405, gettext_lazy("Method not allowed")),
    "not_acceptable": (406, gettext_lazy("Not acceptable")),
    "unsupported_media_type": (415, gettext_lazy("Unsupported media type")),
    "payload_too_large": (413, gettext_lazy("The body is too large")),
    "precondition_failed": (412, gettext_lazy("Precondition failed")),
    "throttled": (429, gettext_lazy("Too many requests")),
    "deal_unavailable": (503, gettext_lazy("No certified deal could be found right now")),
    "difficulty_unavailable": (503, gettext_lazy("No deal of that difficulty is ready right now")),
    "archive_unreadable": (503, gettext_lazy("This game's archived history cannot be read")),
    "stream_unavailable": (503, gettext_lazy("Event streams are not served by this process")),
    "server_error": (500, gettext_lazy("Internal server error")),
}


def problem_body(code: str, detail: StrOrPromise, **extra: Any) -> dict[str, Any]:
    """The problem's body, its ``title`` and ``detail`` in the request's language (LocaleMiddleware
    and the account's choice, accounts/language.py); ``code`` and ``type`` never translated."""
    status_code, title = PROBLEMS[code]
    body: dict[str, Any] = {
        "type": f"/api/problems/{code}/",
        "title": str(title),
        "status": status_code,
        "detail": str(detail),
        "code": code,
    }
    body.update(extra)
    return body


def problem_response(
    code: str, detail: StrOrPromise, *, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    body = problem_body(code, detail, **extra)
    return Response(body, status=body["status"], headers=headers, content_type=PROBLEM_CONTENT_TYPE)


def problem_json_response(
    code: str, detail: StrOrPromise, *, headers: dict[str, str] | None = None
) -> JsonResponse:
    """The same problem as a plain Django response, for errors raised outside DRF views."""
    body = problem_body(code, detail)
    return JsonResponse(
        body, status=body["status"], content_type=PROBLEM_CONTENT_TYPE, headers=headers
    )


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


def api_exception_problem(exc: Exception) -> Response | None:
    """The problem for Django's and DRF's own exceptions (404, 403, DRF's API exceptions), or
    None for any other: each app's exception handler answers its own errors first and leaves
    the rest to this (games.api.errors.problem_exception_handler is the API's)."""
    # Every error leaves the database as it was: a rejected request changes nothing.
    set_rollback()
    if isinstance(exc, Http404):
        return problem_response("not_found", str(exc) or gettext("not found"))
    if isinstance(exc, DjangoPermissionDenied):
        return problem_response("permission_denied", gettext("permission denied"))
    if isinstance(exc, exceptions.APIException):
        code = getattr(exc, "problem_code", None) or next(
            (c for cls, c in _DRF_CODES if isinstance(exc, cls)), None
        )
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
        return problem_json_response(
            "not_found", gettext("no resource at %(path)s") % {"path": request.path}
        )
    return page_not_found(request, exception or Http404())


def api_server_error(request: HttpRequest) -> HttpResponse:
    from django.views.defaults import server_error

    if is_api_path(request):
        return problem_json_response("server_error", gettext("something went wrong on our side"))
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
            refusal = body_length_refusal(request, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
            if refusal is not None:
                return refusal
        response: HttpResponse = self.get_response(request)
        return response


_CONTENT_LENGTH = re.compile(r"[0-9]{1,18}")
# The most of a refused body read (and thrown away) before answering 413: far above the 64 KiB
# limit, so that a client that sends a large body whole still reads a clean 413. Past it the
# connection is closed with the rest unread, which the client may see as a reset; nginx refuses
# every body over the limit itself (deploy/nginx/, client_max_body_size), so only a client that
# reaches the app directly can send one.
MAX_DRAINED_BYTES = 4 * 1024 * 1024
_DRAIN_CHUNK = 64 * 1024


def drain_body(request: HttpRequest, *, most: int = MAX_DRAINED_BYTES) -> None:
    """Read and discard the request's body (at most ``most`` bytes).

    An answer sent before the body has been read is lost more often than not: under gunicorn
    the connection is then closed with the body still arriving, the kernel answers the unread
    bytes with a reset, and the client (or nginx, still sending: a 502) never reads the answer.
    Under ASGI the body has already been read into a file, so this costs nothing."""
    left = most
    try:
        while left > 0:
            chunk = request.read(min(_DRAIN_CHUNK, left))
            if not chunk:
                return
            left -= len(chunk)
    except OSError:  # the client went away (UnreadablePostError is an OSError)
        return


def body_length_refusal(request: HttpRequest, limit: int) -> HttpResponse | None:
    """A problem response if the Content-Length is not a length (only ASCII digits: ``int()``
    would take "1_0", "٣" or 5,000 digits) or is over ``limit`` (the body drained first:
    ``drain_body``); else None."""
    raw = request.META.get("CONTENT_LENGTH") or "0"
    if not _CONTENT_LENGTH.fullmatch(raw.strip()):
        return problem_json_response("validation_error", gettext("invalid Content-Length"))
    length = int(raw)
    if length > limit:
        drain_body(request)
        return problem_json_response(
            "payload_too_large",
            gettext("the body has %(length)d bytes; the limit is %(limit)d")
            % {"length": length, "limit": limit},
        )
    return None


# --- JSON bodies, checked once before any parser sees them ---

# Deeper than any body of this API or of allauth's (theirs nest two or three levels), far
# shallower than Python's recursion limit, which the json module's parser would hit first.
MAX_JSON_DEPTH = 32
# Longer than any number a client has reason to send (seeds and PySolFC numbers have at most
# 21 digits), far shorter than Python's limit for converting digits to an int (4,300).
MAX_JSON_NUMBER_LENGTH = 100
# The headless allauth views parse the body as JSON whatever its Content-Type says.
JSON_ALWAYS_PREFIXES = ("/_allauth/",)
# A string (to skip: brackets in it do not nest), or a bracket. An unterminated string runs to
# the end of the body. Written without alternation inside the repetition, so it is linear.
_JSON_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


class MalformedJsonError(ValueError):
    """A body that no parser of the service may be given; ``code`` is the problem's."""

    def __init__(self, detail: str, code: str = "malformed_json") -> None:
        super().__init__(detail)
        self.code = code


def json_depth_exceeds(text: str, limit: int) -> bool:
    """Whether arrays and objects in ``text`` nest deeper than ``limit``, without parsing it
    (the parser itself recurses once per level and would run out of stack first)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return True
        elif token in ("]", "}"):
            depth -= 1
    return False


def _refuse_constant(name: str) -> Any:
    raise MalformedJsonError(gettext("%(name)s is not a JSON number") % {"name": name})


def _too_long_number() -> str:
    return gettext("a number has more than %(most)d characters") % {"most": MAX_JSON_NUMBER_LENGTH}


def _parse_int(text: str) -> int:
    if len(text) > MAX_JSON_NUMBER_LENGTH:
        raise MalformedJsonError(_too_long_number())
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_JSON_NUMBER_LENGTH:
        raise MalformedJsonError(_too_long_number())
    value = float(text)
    if not math.isfinite(value):
        raise MalformedJsonError(gettext("%(number)s is too large a number") % {"number": text})
    return value


def check_json_body(body: bytes, charset: str | None) -> None:
    """Raise MalformedJsonError unless ``body`` is JSON that every parser here takes safely:
    text in its charset, nested at most MAX_JSON_DEPTH deep, numbers finite and of at most
    MAX_JSON_NUMBER_LENGTH characters, no NaN or Infinity, no unpaired surrogate (which no
    database or password hasher can encode)."""
    try:
        text = body.decode(charset or "utf-8")
    except LookupError:
        # Only a named charset can be unknown; quote at most 40 characters of it.
        raise MalformedJsonError(
            gettext("unknown charset %(charset)r") % {"charset": (charset or "")[:40]}
        ) from None
    except UnicodeDecodeError as exc:
        raise MalformedJsonError(
            gettext("the body is not valid %(encoding)s text") % {"encoding": exc.encoding}
        ) from None
    if json_depth_exceeds(text, MAX_JSON_DEPTH):
        raise MalformedJsonError(
            gettext("arrays and objects may nest at most %(depth)d deep")
            % {"depth": MAX_JSON_DEPTH},
            code="json_too_deep",
        )
    try:
        value = json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_refuse_constant,
        )
    except MalformedJsonError:
        raise
    except (ValueError, RecursionError) as exc:
        raise MalformedJsonError(gettext("not JSON: %(error)s") % {"error": exc}) from None
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise MalformedJsonError(
            gettext("a string holds an unpaired surrogate (\\ud800-\\udfff)")
        ) from None


def _is_json_media_type(content_type: str) -> bool:
    media_type = content_type.split(";", 1)[0].strip().lower()
    return media_type == "application/json" or (
        media_type.startswith("application/") and media_type.endswith("+json")
    )


class JsonBodyMiddleware:
    """Refuses, with a 400 problem, any JSON body that a parser of the service could choke on.

    Both DRF's parser and allauth's headless views (which parse bodies themselves, whatever
    their Content-Type) call ``json.loads``, which raises RecursionError on a body nested about
    a thousand deep and ValueError on a number longer than Python's integer-string limit, and
    hands on strings no database can store: 500s. One check here, before any of them, covers
    every body that will be read as JSON: those sent as JSON to any path, and any body sent to
    the headless allauth endpoints. It sits after the body-size limit, so it reads at most
    DATA_UPLOAD_MAX_MEMORY_SIZE bytes.
    """

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if self._will_be_parsed(request):
            from django.conf import settings

            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            refusal = body_length_refusal(request, limit)
            if refusal is not None:
                return refusal
            try:
                body = request.body
            except RequestDataTooBig:
                drain_body(request)
                return problem_json_response(
                    "payload_too_large",
                    gettext("the limit is %(limit)d bytes") % {"limit": limit},
                )
            if body:
                try:
                    check_json_body(body, (request.content_params or {}).get("charset"))
                except MalformedJsonError as exc:
                    return problem_json_response(exc.code, str(exc))
        response: HttpResponse = self.get_response(request)
        return response

    @staticmethod
    def _will_be_parsed(request: HttpRequest) -> bool:
        if _is_json_media_type(request.content_type or ""):
            return True
        return request.method != "GET" and request.path.startswith(JSON_ALWAYS_PREFIXES)
