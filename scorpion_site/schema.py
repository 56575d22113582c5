"""OpenAPI post-processing: what drf-spectacular cannot infer from the views.

- Every operation of the API documents its errors as RFC 9457 problem details
  (``application/problem+json``, the ``Problem`` component).
- Request bodies of the strict serializers refuse unknown fields, so their schemas say
  ``additionalProperties: false``.
- Every answer of the API but a 5XX names the rate-limit fields the throttles add
  (``RateLimit-*``, ``infrastructure/api.py``; a 429's ``Retry-After`` too): not required,
  since a request refused before it is counted (a token that fails authentication) has none.
"""

from __future__ import annotations

from typing import Any

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "RFC 9457 problem details; `code` is the stable machine-readable word.",
    "properties": {
        "type": {"type": "string", "format": "uri-reference"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string"},
        "errors": {
            "type": "object",
            "additionalProperties": True,
            "description": "validation_error: the messages per field.",
        },
        "game": {
            "type": "object",
            "additionalProperties": True,
            "description": "version_conflict: the game as it is now.",
        },
    },
    "required": ["type", "title", "status", "detail", "code"],
}

RATE_LIMIT_HEADERS: dict[str, dict[str, Any]] = {
    "RateLimit-Limit": {
        "description": "Requests a window of the rate-limit counter nearest to being spent.",
        "schema": {"type": "integer", "minimum": 1},
    },
    "RateLimit-Remaining": {
        "description": "Requests left in that counter's window (0 once refused).",
        "schema": {"type": "integer", "minimum": 0},
    },
    "RateLimit-Reset": {
        "description": "Seconds until that counter's window ends (at least 1).",
        "schema": {"type": "integer", "minimum": 1},
    },
    "Retry-After": {
        "description": "429 (and some 503): seconds to wait before asking again.",
        "schema": {"type": "integer", "minimum": 0},
    },
}

STRICT_REQUEST_COMPONENTS = (
    "GameCreateRequest",
    "CommandRequest",
    "PatchedMeUpdateRequest",
    "PersonalTokenCreateRequest",
    "ChallengeCreateRequest",
    "FriendRequestRequest",
    "BlockCreateRequest",
)


def _problem_content() -> dict[str, Any]:
    return {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}


def add_problems_and_strict_requests(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Problem"] = PROBLEM_SCHEMA
    result["components"]["headers"] = RATE_LIMIT_HEADERS
    rate_limit_refs = {
        name: {"$ref": f"#/components/headers/{name}"}
        for name in RATE_LIMIT_HEADERS
        if name.startswith("RateLimit-")
    }
    for name in STRICT_REQUEST_COMPONENTS:
        if name in schemas:
            schemas[name]["additionalProperties"] = False
    for path, operations in result.get("paths", {}).items():
        if not path.startswith("/api/v1/"):
            continue
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            for status, response in responses.items():
                if status.startswith(("4", "5")):
                    response["content"] = _problem_content()
            responses.setdefault(
                "4XX", {"description": "A problem with the request.", "content": _problem_content()}
            )
            responses.setdefault(
                "5XX", {"description": "A problem on our side.", "content": _problem_content()}
            )
            for status, response in responses.items():
                if status.startswith("5"):
                    continue
                headers = response.setdefault("headers", {})
                headers.update(rate_limit_refs)
                if status in ("429", "4XX"):
                    headers["Retry-After"] = {"$ref": "#/components/headers/Retry-After"}
    return result
