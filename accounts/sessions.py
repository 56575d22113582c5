"""Sessions (and allauth's app session tokens, which are session keys), read in one cache
round trip with the signed-in user cached beside them.

Django's ``cached_db`` engine keeps each session in the database (the truth) and in the cache
(Redis, or memory without it). Authenticating an ``X-Session-Token`` request used to cost, on
top of that: allauth's ``exists()`` before the load (a second cache round trip) and a
``SELECT auth_user`` on every request. Here the token is looked up with the load alone, and the
cache entry of a signed-in session also carries a snapshot of its user, so the usual request
authenticates with one cache ``GET`` and no SQL.

The snapshot must never outlive a change that should end or change the sign-in: a user
deactivated, deleted, given a new password or a new e-mail address, a session logged out.

- Logging out deletes the session from the database and the cache (``flush()``), snapshot and
  all: nothing is left to read.
- Saving or deleting a user (the admin, allauth, ``account_delete``: every path goes through
  ``Model.save()`` or ``delete()``) calls ``forget_user`` (``accounts/apps.py`` connects it to
  ``post_save``/``post_delete``: cache invalidation, not domain flow), at once and again when
  the transaction commits. It deletes the cache entries of every session of that user that
  carries a snapshot (a per-user index of them lives in the cache), so the next request of
  such a session reads the session and the user from the database again, where Django's own
  checks apply (``is_active``, the session's password hash). ``QuerySet.update()`` on users
  bypasses ``save()``: whoever does that must call ``forget_user`` too.
- A snapshot written from a database read that raced with a change is not kept. The writer
  reads the user's generation counter before reading the database and again after writing
  the snapshot; ``forget_user`` increments the counter before it reads the index. Either the
  writer sees the new generation (and deletes its own entry), or its entry was in the index
  before ``forget_user`` read it (and ``forget_user`` deletes it).
- A snapshot lives at most ``USER_SNAPSHOT_TTL`` seconds, after which the session is read from
  the database again: a bound on staleness should an invalidation ever be lost (Redis failing
  only for that call). An invalidation that met an unreachable Redis is made again once it
  answers (``infrastructure.cache.when_answering``): a Redis back from a partition still holds
  the snapshots. Without Redis the cache is one process's memory, which ``forget_user`` run by
  another process (a management command) cannot reach: there a snapshot lives
  ``LOCAL_USER_SNAPSHOT_TTL`` seconds.

With Redis down the cache misses (``FailOpenRedisCache``): every request then reads the
session and the user from the database, which is slower and still correct. A log-out's delete
that failed is made again once Redis answers (``FailOpenRedisCache`` remembers the key), so an
unreachable Redis that comes back with the session's entry does not sign it in again.

The snapshot also carries the language the account chose (``Profile.language``, read with
the user on a miss), which every signed-in request needs (``accounts/language.py``); a profile
saved by any path forgets the user's snapshots like a user saved (``accounts/apps.py``). The
browser's cookie session takes its user from the same snapshot
(``accounts.session_middleware.SnapshotAuthenticationMiddleware``): a signed-in page or API
call reads neither ``auth_user`` nor ``accounts_profile`` once the session is cached.

Keys are checked for shape first. A session key comes from the client (the session cookie, or
allauth's ``X-Session-Token``), and Django only checks that it has eight characters or more
before it looks the key up: a NUL in it made PostgreSQL refuse the query (a 500 on every page
for such a cookie, where the server in front passes it on, as Django's runserver does), a long
one makes a cache key no cache should be given. Django makes keys of 32 lowercase letters and
digits, in a 40-character column; anything else is no session, found without a lookup.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from typing import Any

from allauth.core.internal.sessionkit import get_session_user
from allauth.headless.tokens.strategies.sessions import SessionTokenStrategy as AllauthStrategy
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends import cached_db
from django.contrib.sessions.backends.base import SessionBase
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.db import transaction
from django.utils.crypto import constant_time_compare

from infrastructure.cache import redis_client, when_answering

# Inside the cached value only; never written to the database row of the session.
USER_SNAPSHOT = "_scorpion_user_snapshot"
USER_SNAPSHOT_TTL = 3600
# Without Redis (the embedded default) the cache is this process's memory, which a change made
# by another process (a management command, a second server process) never reaches: there a
# snapshot lives seconds, which bounds how long such a change goes unseen.
LOCAL_USER_SNAPSHOT_TTL = 5
_GENERATION = "scorpion.authuser.generation:{pk}"
# The generation only has to outlive a snapshot writer's database read (milliseconds); one
# that expired reads as None, which a writer takes as a change (the safe side).
_GENERATION_TTL = 86400
_INDEX = "scorpion.authuser.sessions:{pk}"
# The user's fields kept in the snapshot: all the concrete ones, so that the user object is
# complete (a save() of it writes nothing surprising).
_FIELDS = tuple(field.attname for field in User._meta.concrete_fields)
# Where a user object read through a session carries its account's chosen language.
_LANGUAGE_ATTRIBUTE = "_scorpion_chosen_language"

_local_lock = threading.Lock()

SESSION_KEY_SHAPE = re.compile(r"[a-z0-9]{8,40}")


def is_session_key(value: object) -> bool:
    return isinstance(value, str) and SESSION_KEY_SHAPE.fullmatch(value) is not None


class SessionStore(cached_db.SessionStore):
    """``cached_db`` sessions whose cache entry may also carry the signed-in user."""

    _user_snapshot: dict[str, Any] | None = None

    def _validate_session_key(self, key: str | None) -> bool:
        return is_session_key(key)

    def exists(self, session_key: str) -> bool:
        return is_session_key(session_key) and super().exists(session_key)

    def load(self) -> dict[str, Any]:
        data: dict[str, Any] = super().load()
        self._user_snapshot = data.pop(USER_SNAPSHOT, None)
        return data

    def _loaded(self) -> dict[str, Any]:
        """The session's data, loaded on first use (SessionBase's own lazy load)."""
        data: dict[str, Any] = self._get_session()  # type: ignore[attr-defined]
        return data

    def authenticated_user(self) -> User | None:
        """The active user this session is signed in as, or None (no such session, expired,
        signed out, user inactive or gone, password changed since)."""
        session = self._loaded()  # one cache GET (the database on a miss)
        if self.session_key is None:  # malformed, missing or expired
            return None
        if SESSION_KEY not in session:  # a session nobody signed in to (a signed-out visitor)
            return None
        user = self._user_from_snapshot(session)
        if user is not None:
            return user
        generation = _cache().get(_GENERATION.format(pk=session.get(SESSION_KEY)))
        found = get_session_user(self)  # Django's checks: backend, password hash, is_active
        if not isinstance(found, User) or self.session_key is None:
            return None
        # Read after the generation, like the user: a change to it forgets the snapshot too.
        setattr(found, _LANGUAGE_ATTRIBUTE, _profile_language(found.pk))
        self._remember(found, generation)
        return found

    def _user_from_snapshot(self, session: dict[str, Any]) -> User | None:
        snapshot = self._user_snapshot
        if not snapshot:
            return None
        backend = session.get(BACKEND_SESSION_KEY)
        if (
            snapshot.get("id") != session.get(SESSION_KEY)
            or snapshot.get("backend") != backend
            or backend not in settings.AUTHENTICATION_BACKENDS
            or not constant_time_compare(
                snapshot.get("hash", ""), session.get(HASH_SESSION_KEY) or "-"
            )
        ):
            return None
        user = User(**snapshot["fields"])
        user._state.adding = False
        user._state.db = "default"
        setattr(user, _LANGUAGE_ATTRIBUTE, snapshot.get("language"))
        return user

    def _remember(self, user: User, generation: Any) -> None:
        """Write the snapshot into this session's cache entry (if the entry is still there:
        a concurrent log-out must not be brought back), unless the user changed meanwhile."""
        snapshot = {
            "id": self.get(SESSION_KEY),
            "backend": self.get(BACKEND_SESSION_KEY),
            "hash": user.get_session_auth_hash(),
            "fields": {name: getattr(user, name) for name in _FIELDS},
            "language": chosen_language(user),
        }
        value = {**self._loaded(), USER_SNAPSHOT: snapshot}
        cache = _cache()
        lifetime = USER_SNAPSHOT_TTL if redis_client(cache) is not None else LOCAL_USER_SNAPSHOT_TTL
        timeout = min(self.get_expiry_age(), lifetime)
        entry = self.cache_key
        if not _replace_and_index(cache, entry, value, timeout, user.pk):
            return
        if cache.get(_GENERATION.format(pk=user.pk)) != generation:
            cache.delete(entry)  # forget_user ran meanwhile: this snapshot may be stale


class SessionTokenStrategy(AllauthStrategy):
    """allauth's session tokens, looked up with one read: load the session and see whether
    it exists, instead of asking ``exists()`` and then loading it."""

    def lookup_session(self, session_token: str) -> SessionBase | None:
        store = SessionStore(session_key=session_token)
        store._loaded()
        return store if store.session_key else None


def chosen_language(user: User) -> str | None:
    """The language the account chose ("" to follow the browser), as read with the user
    through its session; None when this user object was not read that way (then ask the
    profile)."""
    language = getattr(user, _LANGUAGE_ATTRIBUTE, None)
    return language if isinstance(language, str) else None


def _profile_language(user_id: int) -> str:
    from accounts.models import Profile

    language = Profile.objects.filter(user_id=user_id).values_list("language", flat=True).first()
    return language or ""


def forget_user(user_id: int) -> None:
    """Drop every cached snapshot of this user (see the module's docstring)."""
    cache = _cache()
    generation = _GENERATION.format(pk=user_id)
    cache.add(generation, 0, _GENERATION_TTL)
    try:
        cache.incr(generation)
    except ValueError:  # evicted between add and incr
        cache.set(generation, 1, _GENERATION_TTL)
    entries = _take_index(cache, user_id)
    if entries is None:
        # Redis did not answer, so which snapshots there are is unknown until it does: an
        # unreachable Redis comes back holding them (infrastructure/cache.py).
        when_answering(cache, lambda: forget_user(user_id))
        return
    cache.delete_many(list(entries))


def forget_user_now_and_on_commit(user_id: int) -> None:
    """``forget_user`` at once (the change may be visible to other connections before this
    transaction ends, e.g. in autocommit) and again once it commits (a request may have cached
    the old row in between)."""
    forget_user(user_id)
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: forget_user(user_id))


# --- The cache operations: one Redis round trip each, or the same under a lock in memory ---


def _cache() -> BaseCache:
    return caches[settings.SESSION_CACHE_ALIAS]


def _replace_and_index(
    cache: BaseCache, entry: str, value: dict[str, Any], timeout: int, user_id: int
) -> bool:
    """Overwrite an existing cache entry and add it to the user's index; False if the entry
    was gone (the session ended meanwhile) or the cache failed."""
    index = _INDEX.format(pk=user_id)
    client = redis_client(cache)
    if client is not None:
        import redis

        serialized = cache._cache._serializer.dumps(value)  # type: ignore[attr-defined]
        index_key = cache.make_and_validate_key(index)
        try:
            with client.pipeline(transaction=False) as pipe:
                # XX: only if the entry is still there (see the docstring).
                pipe.set(cache.make_and_validate_key(entry), serialized, ex=timeout, xx=True)
                pipe.sadd(index_key, entry)
                pipe.expire(index_key, settings.SESSION_COOKIE_AGE)
                replaced, _, _ = pipe.execute()
        except redis.RedisError:
            return False
        return bool(replaced)
    with _local_lock:
        if not cache.has_key(entry):
            return False
        cache.set(entry, value, timeout)
        members = set(cache.get(index) or ())
        members.add(entry)
        cache.set(index, members, settings.SESSION_COOKIE_AGE)
    return True


def _take_index(cache: BaseCache, user_id: int) -> Iterable[str] | None:
    """The cache entries indexed for the user, removing the index; None if Redis failed."""
    index = _INDEX.format(pk=user_id)
    client = redis_client(cache)
    if client is not None:
        import redis

        key = cache.make_and_validate_key(index)
        try:
            with client.pipeline(transaction=True) as pipe:  # read and delete, atomically
                pipe.smembers(key)
                pipe.delete(key)
                members, _ = pipe.execute()
        except redis.RedisError:
            return None
        return [member.decode() for member in members]
    with _local_lock:
        members = cache.get(index) or set()
        cache.delete(index)
    return list(members)
