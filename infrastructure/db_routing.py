"""Reads that may lag go to the read replica (``DATABASE_REPLICA_URL``); everything else to the
primary.

Routing is explicit: a view whose answer may be a little behind (history pages, states and
replays, exports, statistics and leaderboards, the staff dashboard) is decorated with
:func:`reads_may_lag`; inside it, and only there, the ORM's reads (through :class:`Router`)
and the raw reads that ask :func:`read_alias` go to the replica. Everything else (a player's
current game, every command, the live streams, the tasks) never leaves the primary.

The replica is used only when all of these hold:

- it is configured, answers, and its replay lag was at most ``REPLICA_MAX_LAG_SECONDS`` when
  this process last looked (at most every ``REPLICA_CHECK_SECONDS``; :func:`replica_status`);
- the request wrote nothing so far (a write routed to the primary ends the replica's reads
  for the rest of the request) and is a safe method (a command never reads from the replica);
- the player is not *pinned*: after any unsafe request (a command, a new game, ...) the player
  reads from the primary for ``REPLICA_PIN_SECONDS`` (:class:`ReplicaPinMiddleware`, in the
  cache, so across every web process). Read-your-writes follows: a read on the replica at
  time ``t`` sees every commit older than ``t - REPLICA_CHECK_SECONDS - REPLICA_MAX_LAG_SECONDS``
  (the lag measured at the last check, which is at most that old; replay never goes back),
  and the pin is at least that long (settings enforce it). A time window rather than the
  game's version: it covers every read of the player (lists, statistics, other games) with one
  cache read per request, and needs nothing of the client.

If the replica fails in the middle of such a view, the replica is marked down in this process
and the view is run again on the primary: it only reads, so running it twice is harmless.
"""

from __future__ import annotations

import contextvars
import functools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponseBase

REPLICA = "replica"
PIN_KEY = "db-pin:{}"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

P = ParamSpec("P")
R = TypeVar("R")


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


# --- The replica's state, looked at by each process at most every REPLICA_CHECK_SECONDS ------


@dataclass(frozen=True)
class ReplicaStatus:
    configured: bool
    usable: bool
    lag_seconds: float | None = None
    error: str | None = None  # "lagging", or the driver error's class name

    def as_dict(self) -> dict[str, object]:
        body: dict[str, object] = {"configured": self.configured}
        if self.configured:
            body.update({"ok": self.usable, "serving_reads": self.usable})
            if self.lag_seconds is not None:
                body["lag_seconds"] = round(self.lag_seconds, 3)
            if self.error:
                body["error"] = self.error
        return body


# The lag: 0 when everything received has been replayed and the WAL receiver is streaming
# (an idle primary sends nothing, and the last replayed commit then looks old without the
# replica being behind), else the age of the last replayed commit. The WAL receiver's status
# is visible to superusers and pg_monitor members only (NULL to others: taken as streaming).
LAG_QUERY = """
SELECT pg_is_in_recovery(),
       CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
                 AND COALESCE((SELECT status FROM pg_stat_wal_receiver LIMIT 1), 'streaming')
                     = 'streaming'
            THEN 0
            ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 1e9)
       END
"""

_lock = threading.Lock()
_status: ReplicaStatus | None = None
_checked_at = 0.0


def _measure() -> ReplicaStatus:
    replica = connections[REPLICA]
    try:
        with replica.cursor() as cursor:
            cursor.execute(LAG_QUERY)
            row = cursor.fetchone()
    except (OperationalError, InterfaceError) as error:
        replica.close()  # the next check opens a new connection
        return ReplicaStatus(configured=True, usable=False, error=error.__class__.__name__)
    in_recovery, lag = bool(row[0]), float(row[1])
    if not in_recovery:  # promoted, or pointed at a primary by mistake: not a replica of ours
        return ReplicaStatus(configured=True, usable=False, error="not in recovery")
    if lag > settings.REPLICA_MAX_LAG_SECONDS:
        return ReplicaStatus(configured=True, usable=False, lag_seconds=lag, error="lagging")
    return ReplicaStatus(configured=True, usable=True, lag_seconds=lag)


def replica_status(*, fresh: bool = False) -> ReplicaStatus:
    """The replica's state as this process last measured it, measured again when older than
    ``REPLICA_CHECK_SECONDS`` (or ``fresh``): one short query, not one per read. One thread
    measures at a time; the others go on with the last state meanwhile (a replica that does
    not answer would otherwise hold them all for its connect timeout)."""
    global _status, _checked_at
    if not replica_configured():
        return ReplicaStatus(configured=False, usable=False)
    status = _status
    due = time.monotonic() - _checked_at >= settings.REPLICA_CHECK_SECONDS
    if status is not None and not (fresh or due):
        return status
    if not _lock.acquire(blocking=status is None):
        assert status is not None
        return status
    try:
        measured = _measure()
        _status, _checked_at = measured, time.monotonic()
        return measured
    finally:
        _lock.release()


def mark_replica_down(error: BaseException) -> None:
    """A read on the replica failed: leave it until the next check finds it well again."""
    global _status, _checked_at
    connections[REPLICA].close()
    _status = ReplicaStatus(configured=True, usable=False, error=error.__class__.__name__)
    _checked_at = time.monotonic()


# --- Where this request reads from ------------------------------------------------------------


@dataclass
class _Scope:
    alias: str


_scope: contextvars.ContextVar[_Scope | None] = contextvars.ContextVar("db_scope", default=None)


def read_alias() -> str:
    """The alias to read from here: the replica inside :func:`reads_may_lag` while it is
    allowed, else the primary. For raw SQL (``connections[read_alias()]``)."""
    scope = _scope.get()
    return scope.alias if scope is not None else DEFAULT_DB_ALIAS


def player_pinned(user_id: int | None) -> bool:
    return user_id is not None and bool(cache.get(PIN_KEY.format(user_id)))


def pin_player(user_id: int) -> None:
    cache.set(PIN_KEY.format(user_id), 1, timeout=settings.REPLICA_PIN_SECONDS)


@contextmanager
def _lagging_reads(user_id: int | None) -> Iterator[_Scope]:
    usable = replica_configured() and not player_pinned(user_id) and replica_status().usable
    scope = _Scope(REPLICA if usable else DEFAULT_DB_ALIAS)
    token = _scope.set(scope)
    try:
        yield scope
    finally:
        _scope.reset(token)


def _request_in(args: tuple[Any, ...]) -> Any:
    """The request among a view's arguments: first for a function, second for a method."""
    for arg in args[:2]:
        if hasattr(arg, "method") and hasattr(arg, "user"):
            return arg
    raise TypeError("reads_may_lag decorates views: no request among the arguments")


def reads_may_lag(view: Callable[P, R]) -> Callable[P, R]:
    """Run a reading view on the replica when it may be, else on the primary (module doc).
    Put it innermost, under the decorators that authenticate: the player must be known."""

    @functools.wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if not replica_configured():
            return view(*args, **kwargs)
        request = _request_in(args)
        if request.method not in SAFE_METHODS:
            return view(*args, **kwargs)
        user = request.user
        user_id = user.pk if user is not None and user.is_authenticated else None
        with _lagging_reads(user_id) as scope:
            if scope.alias == DEFAULT_DB_ALIAS:
                return view(*args, **kwargs)
            try:
                return view(*args, **kwargs)
            except (OperationalError, InterfaceError) as error:
                if scope.alias != REPLICA:  # the view wrote, then the primary failed
                    raise
                # The replica went away mid-read. The view only read: run it again on the
                # primary (if the primary failed instead, the rerun fails as any view would).
                mark_replica_down(error)
                scope.alias = DEFAULT_DB_ALIAS
                return view(*args, **kwargs)

    return wrapper


class Router:
    """Django's database router: reads inside :func:`reads_may_lag` to the replica while it
    may be used; every write to the primary (and a write ends the request's replica reads);
    migrations only on the primary (the replica is its physical copy)."""

    def db_for_read(self, model: type, **hints: Any) -> str | None:
        scope = _scope.get()
        return scope.alias if scope is not None else None

    def db_for_write(self, model: type, **hints: Any) -> str:
        scope = _scope.get()
        if scope is not None:
            scope.alias = DEFAULT_DB_ALIAS  # read-your-writes within the request
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # the same rows on both

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == DEFAULT_DB_ALIAS


class ReplicaPinMiddleware:
    """After an unsafe request (a command, a new game, a setting changed...), its player reads
    from the primary for ``REPLICA_PIN_SECONDS``. Only with a replica configured. With Redis
    down the cache keeps the pin in this process only (infrastructure/cache.py): a player's
    next read on another web process could then be behind by up to the allowed lag."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if request.method not in SAFE_METHODS and replica_configured():
            # DRF sets the Django request's user when it authenticates (a token, a session).
            user = getattr(request, "user", None)
            if user is not None and user.is_authenticated:
                pin_player(user.pk)
        return response
