"""Settings for the test suite: the real settings, plus keys and a fast password hasher.

Everything else (the database, Redis) still comes from the environment, so CI runs the same
tests against PostgreSQL and Redis that a laptop runs against SQLite.
"""

import os
import tempfile
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

os.environ.setdefault("SECRET_KEY", "test-only-key-" + "x" * 50)
os.environ.setdefault("DAILY_DEAL_SECRET", "test-only-daily-deal-secret-" + "d" * 20)
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("EMAIL_URL", "consolemail://")
# DEBUG off asks for host names; Django's test client calls itself "testserver". Only while the
# settings are read: the processes the tests start (servers with DEBUG on, commands) inherit the
# environment, and must get the defaults the real settings give them.
# With DEBUG on (a server a test starts with these settings) the real default serves.
_HOSTS_SET_HERE = "ALLOWED_HOSTS" not in os.environ and os.environ.get(
    "DEBUG", ""
).strip().lower() not in {"1", "true", "yes", "on"}
if _HOSTS_SET_HERE:
    os.environ["ALLOWED_HOSTS"] = "testserver"


def redis_url_of_worker(url: str, worker: str) -> str:
    """The Redis URL of pytest-xdist's worker ``gwN``: the database number of ``url`` plus N.

    Each worker runs its own Celery workers, consumes its own queues and counts its own rate
    limits, so each needs a Redis database of its own. Adding N to the given number keeps every
    worker inside the block that starts at it: whoever hands out REDIS_URL hands out that
    number and the next ones, one per worker (.ci/run claims a block; `make test` runs
    PYTEST_WORKERS of them). A Redis server has 16 databases (0-15) unless configured for more.
    """
    index = int(worker.removeprefix("gw"))
    parts = urlsplit(url)
    if parts.scheme == "unix":  # unix:///path?db=N
        query = dict(parse_qsl(parts.query))
        query["db"] = str(int(query.get("db", "0")) + index)
        return urlunsplit(parts._replace(query=urlencode(query)))
    number = int(parts.path.strip("/") or "0") + index
    return urlunsplit(parts._replace(path=f"/{number}"))


# pytest-xdist names its worker process in the environment before the settings are read.
if os.environ.get("REDIS_URL") and os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["REDIS_URL"] = redis_url_of_worker(
        os.environ["REDIS_URL"], os.environ["PYTEST_XDIST_WORKER"]
    )

from scorpion_site.settings import *  # noqa: E402, F403

if _HOSTS_SET_HERE:
    del os.environ["ALLOWED_HOSTS"]

# Hashing passwords properly is slow by design; tests create many accounts.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Tests sign up many players from one address; the limits themselves are tested with their
# own, lower values (tests/api/test_limits.py).
ACCOUNT_RATE_LIMITS = {"login": "1000/m/ip", "login_failed": "1000/m/ip", "signup": "1000/m/ip"}

# Tests do not run collectstatic; the manifest storage of production would fail every page.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    # Archived logs in a directory of the test run's own (tests set their own per test).
    "scorpion_archive": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {
            "location": os.path.join(tempfile.gettempdir(), f"scorpion-archive-{os.getpid()}")
        },
    },
}

# On SQLite the test database is a file, as the service's is, not Django's default in-memory
# database. That one is shared between connections through SQLite's shared cache, whose table
# locks fail at once ("database table is locked") instead of waiting: a request of a live
# server's thread that read a table while the test's own thread wrote it answered 500. On a
# file, every connection has the service's settings (WAL: readers go on beside the writer;
# IMMEDIATE transactions with a timeout: writers queue). One file per test process (and per
# pytest-xdist worker: pytest-django adds its suffix), removed when the run ends.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": os.path.join(tempfile.gettempdir(), f"scorpion-test-{os.getpid()}.sqlite3")
    }
