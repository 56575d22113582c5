"""The session engine: Django's cached_db sessions, with keys checked for shape.

A session key comes from the client (the session cookie, or allauth's ``X-Session-Token``), and
Django only checks that it has eight characters or more before it looks the key up: a NUL in
it made PostgreSQL refuse the query (a 500 on every page for such a cookie, where the server in
front passes it on, as Django's runserver does), a long one makes a cache key no cache should
be given. Django makes keys of 32 lowercase letters and digits, in a 40-character column;
anything else is no session, found without a lookup.
"""

from __future__ import annotations

import re

from django.contrib.sessions.backends.cached_db import SessionStore as CachedDbSessionStore

SESSION_KEY = re.compile(r"[a-z0-9]{8,40}")


def is_session_key(value: object) -> bool:
    return isinstance(value, str) and SESSION_KEY.fullmatch(value) is not None


class SessionStore(CachedDbSessionStore):
    def _validate_session_key(self, key: str | None) -> bool:
        return is_session_key(key)

    def exists(self, session_key: str) -> bool:
        return is_session_key(session_key) and super().exists(session_key)
