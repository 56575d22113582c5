"""allauth's headless session tokens, checked for shape before any lookup."""

from __future__ import annotations

import re

from allauth.headless.tokens.strategies.sessions import (
    SessionTokenStrategy as AllauthSessionTokenStrategy,
)
from django.contrib.sessions.backends.base import SessionBase

# What a session key can be: Django makes them of 32 lowercase letters and digits, and the
# session table's key column holds 40 characters.
_SESSION_KEY = re.compile(r"[a-z0-9]{8,40}")


class SessionTokenStrategy(AllauthSessionTokenStrategy):
    """The app client's session tokens (``X-Session-Token``), as allauth's, except that a token
    that cannot be a session key is unknown at once, without a lookup: the header is the
    client's to fill, and a NUL in it made PostgreSQL refuse the query (a 500), a long one
    made a cache key no cache should be given."""

    def lookup_session(self, session_token: str) -> SessionBase | None:
        if not isinstance(session_token, str) or not _SESSION_KEY.fullmatch(session_token):
            return None
        return super().lookup_session(session_token)
