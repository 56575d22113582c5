"""The refusal of an app's access token that lacks the scope an operation needs (the check
itself is ``accounts.app_tokens.token_scope_check``, run by every API view)."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import PermissionDenied

from accounts.app_tokens import insufficient_scope, token_scope_check


class InsufficientScope(PermissionDenied):
    """403 ``insufficient_scope``, with the RFC 6750 challenge naming the scopes needed."""

    problem_code = "insufficient_scope"

    def __init__(self, needed: tuple[str, ...]) -> None:
        detail, self.auth_header = insufficient_scope(needed)
        super().__init__(detail)


def enforce_token_scope(request: Any, view: Any) -> None:
    """The API's scope check (``settings.API_SCOPE_CHECK``, run by every
    ``infrastructure.api.ApiView`` before its permissions): 403 ``insufficient_scope`` for an
    app's token that lacks the scope the view declares for the method."""
    needed = token_scope_check(request, view)
    if needed is not None:
        raise InsufficientScope(needed)
