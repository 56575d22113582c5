"""Settings for the test suite: the real settings, plus keys and a fast password hasher.

Everything else (the database, Redis) still comes from the environment, so CI runs the same
tests against PostgreSQL and Redis that a laptop runs against SQLite.
"""

import os

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
}
