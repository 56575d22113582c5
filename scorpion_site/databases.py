"""The database settings: DATABASE_URL, the optional read replica (DATABASE_REPLICA_URL) and a
connection pooler in front of PostgreSQL (DATABASE_POOLER). Parsed strictly, as every setting
(docs/settings.md); settings.py passes in the values it read from the environment."""

from __future__ import annotations

from typing import Any

import environ
from django.core.exceptions import ImproperlyConfigured

POSTGRESQL = "django.db.backends.postgresql"
SQLITE = "django.db.backends.sqlite3"
POOLERS = ("", "pgbouncer")


def database_url_config(url: str, variable: str) -> dict[str, Any]:
    """A database URL as Django's database settings. A URL whose scheme names no database
    (``garbage``, ``postgres//host``) stops start-up naming the variable, not its value, which
    holds the password (django-environ would only warn, with the password, and Django then
    fail on a missing ENGINE)."""
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme not in environ.Env.DB_SCHEMES:
        raise ImproperlyConfigured(
            f"{variable} is not a database URL: postgres://user:password@host:5432/name "
            "or sqlite:////absolute/path.sqlite3"
        )
    try:
        config: dict[str, Any] = environ.Env.db_url_config(url)
    except (ImproperlyConfigured, KeyError, ValueError):  # a port that is not a number, ...
        raise ImproperlyConfigured(
            f"{variable} could not be read: check its port and percent-encoding"
        ) from None
    return config


def sqlite_options() -> dict[str, Any]:
    # The embedded default serves several clients at once (threads, processes). SQLite allows
    # one writer at a time; by default a transaction begins as a reader and, when it then
    # writes while another writer holds the lock, fails at once with "database is locked"
    # (waiting could deadlock). So every transaction takes the write lock as it begins
    # (IMMEDIATE) and waits up to 20 s for it: writers queue instead of failing. WAL lets
    # readers go on alongside the writer; synchronous=NORMAL is safe with WAL (a power cut may
    # lose the last commits, never corrupt the file). docs/architecture.md, "SQLite".
    return {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    }


def through_pooler(config: dict[str, Any], pooler: str) -> None:
    """What a connection needs when it reaches PostgreSQL through PgBouncer in transaction mode,
    where consecutive transactions of one client may run on different server connections:

    - no server-side cursors (a cursor lives in its server session: ``.iterator()`` would
      fetch its next chunk from a session that is not there): Django fetches in one go instead;
    - no prepared statements (psycopg 3 prepares a query run 5 times, on its server session;
      PgBouncer 1.18, Debian 12's, cannot follow them: 1.21+ can, with
      ``max_prepared_statements``);
    - no other session state: Django sets none but the time zone, which PgBouncer tracks and
      sets again on each server connection it hands over (as it does the client encoding).

    Connections to PgBouncer are kept between requests like direct ones (CONN_MAX_AGE): they
    are cheap for it, and hold no server connection between transactions."""
    if pooler not in POOLERS:
        raise ImproperlyConfigured(
            f"DATABASE_POOLER={pooler!r} is not a pooler this service knows: "
            "pgbouncer, or empty for none"
        )
    if not pooler:
        return
    if config["ENGINE"] != POSTGRESQL:
        raise ImproperlyConfigured("DATABASE_POOLER=pgbouncer needs a PostgreSQL DATABASE_URL")
    config["DISABLE_SERVER_SIDE_CURSORS"] = True
    config.setdefault("OPTIONS", {})["prepare_threshold"] = None


def databases(
    *,
    url: str,
    replica_url: str | None,
    pooler: str,
    conn_max_age: int,
    replica_connect_timeout: int,
) -> dict[str, dict[str, Any]]:
    """DATABASES: ``default`` (the primary) and, with a replica URL, ``replica``."""
    default = database_url_config(url, "DATABASE_URL")
    # Keep connections open between requests: a move is a handful of short queries and a new
    # PostgreSQL connection per request would cost more than all of them.
    default["CONN_MAX_AGE"] = conn_max_age
    default["CONN_HEALTH_CHECKS"] = True
    if default["ENGINE"] == SQLITE:
        default.setdefault("OPTIONS", {}).update(sqlite_options())
    through_pooler(default, pooler)
    result = {"default": default}
    if replica_url is None:
        return result
    replica = database_url_config(replica_url, "DATABASE_REPLICA_URL")
    if replica["ENGINE"] != POSTGRESQL or default["ENGINE"] != POSTGRESQL:
        raise ImproperlyConfigured(
            "DATABASE_REPLICA_URL needs PostgreSQL for both it and DATABASE_URL "
            "(a streaming replica of the primary)"
        )
    replica["CONN_MAX_AGE"] = conn_max_age
    replica["CONN_HEALTH_CHECKS"] = True
    # A replica that is down must cost a request little: the health check gives up quickly,
    # then reads go to the primary (infrastructure/db_routing.py).
    replica.setdefault("OPTIONS", {})["connect_timeout"] = replica_connect_timeout
    # Tests never create a database for it: it is a copy of the primary's.
    replica["TEST"] = {"MIRROR": "default"}
    through_pooler(replica, pooler)
    result["replica"] = replica
    return result
