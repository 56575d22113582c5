"""The parsing of the environment, strict: each function reads one variable and either returns
its value (or the default when it is unset) or stops start-up with ImproperlyConfigured naming
the variable (never a secret's value). The settings (scorpion_site/settings.py) are built from
these; docs/settings.md lists every variable."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import environ
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use true/false, 1/0, yes/no)")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


# Secrets may come from a file instead (Docker and Kubernetes secrets, mounted read-only): with
# NAME_FILE set, NAME is the file's content, its trailing newline stripped (what `echo` and most
# editors leave). Setting both is an error, never a silent choice.
SECRET_FILE_VARIABLES = (
    "SECRET_KEY",
    "DAILY_DEAL_SECRET",
    "DATABASE_URL",
    "DATABASE_REPLICA_URL",
    "REDIS_URL",
    "EMAIL_URL",
    "OIDC_PRIVATE_KEY",
)


def env_secret(name: str) -> str | None:
    """``name``'s value, or the content of the file ``name_FILE`` names (one trailing newline
    stripped); None if neither is set. Only for the names of SECRET_FILE_VARIABLES."""
    assert name in SECRET_FILE_VARIABLES, name
    raw = os.environ.get(name)
    path = os.environ.get(f"{name}_FILE")
    if path is None:
        return raw
    if raw is not None:
        raise ImproperlyConfigured(f"{name} and {name}_FILE are both set: keep one of them")
    try:
        content = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "not UTF-8 text"
        raise ImproperlyConfigured(f"{name}_FILE={path!r} cannot be read: {reason}") from None
    return content.removesuffix("\n").removesuffix("\r")


_RATE = re.compile(r"^[1-9][0-9]*/(s|sec|second|m|min|minute|h|hour|d|day)$")


def env_rate(name: str, default: str) -> str:
    """A DRF throttle rate such as ``60/min``."""
    value = os.environ.get(name, default).strip()
    if not _RATE.match(value):
        raise ImproperlyConfigured(f"{name}={value!r} is not a rate such as 60/min or 5/s")
    return value


def env_rsa_key(name: str, default: str) -> str:
    """An RSA private key in PEM form, checked by loading it."""
    raw = env_secret(name)
    if not raw:
        return default
    pem = raw.replace("\\n", "\n").strip() + "\n"
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        key = load_pem_private_key(pem.encode(), password=None)
    except (ValueError, TypeError):
        raise ImproperlyConfigured(f"{name} is not an unencrypted PEM private key") from None
    if not isinstance(key, rsa.RSAPrivateKey) or key.key_size < 2048:
        raise ImproperlyConfigured(f"{name} must be an RSA key of 2048 bits or more")
    return pem


# The key of the daily deals (docs/deals.md, "Daily deals"): a day's deal is an HMAC of the
# date under this key, so nobody without it can compute a future day's deal and solve it
# offline. A setting of its own, never SECRET_KEY, so that either can be rotated alone.
DEFAULT_DAILY_DEAL_SECRET = "scorpion-development-daily-deal-secret-do-not-deploy"
MIN_DAILY_DEAL_SECRET = 32


def env_daily_deal_secret(*, debug: bool, secret_key: str) -> str:
    raw = env_secret("DAILY_DEAL_SECRET")
    if raw is None:
        if debug:
            return DEFAULT_DAILY_DEAL_SECRET
        raise ImproperlyConfigured(
            "DAILY_DEAL_SECRET must be set when DEBUG is off: a random value of at least "
            f"{MIN_DAILY_DEAL_SECRET} characters, not SECRET_KEY "
            "(python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    if raw != raw.strip() or not raw.isprintable() or not raw.isascii():
        raise ImproperlyConfigured(
            "DAILY_DEAL_SECRET must be printable ASCII without surrounding whitespace"
        )
    if len(raw) < MIN_DAILY_DEAL_SECRET:
        raise ImproperlyConfigured(
            f"DAILY_DEAL_SECRET must be at least {MIN_DAILY_DEAL_SECRET} characters long"
        )
    if raw == secret_key:
        raise ImproperlyConfigured(
            "DAILY_DEAL_SECRET must differ from SECRET_KEY, so that each can be rotated alone"
        )
    if not debug and raw == DEFAULT_DAILY_DEAL_SECRET:
        raise ImproperlyConfigured(
            "DAILY_DEAL_SECRET is the development default: set a random value when DEBUG is off"
        )
    return raw


def env_database_url(default: str) -> dict[str, Any]:
    """DATABASE_URL (or DATABASE_URL_FILE) as Django's database settings. A URL whose scheme
    names no database (``garbage``, ``postgres//host``) stops start-up naming the variable, not
    its value, which holds the password (django-environ would only warn, with the password, and
    Django then fail on a missing ENGINE)."""
    url = env_secret("DATABASE_URL")
    if url is None:
        url = default
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme not in environ.Env.DB_SCHEMES:
        raise ImproperlyConfigured(
            "DATABASE_URL is not a database URL: postgres://user:password@host:5432/name "
            "or sqlite:////absolute/path.sqlite3"
        )
    try:
        config: dict[str, Any] = environ.Env.db_url_config(url)
    except (ImproperlyConfigured, KeyError, ValueError):  # a port that is not a number, ...
        raise ImproperlyConfigured(
            "DATABASE_URL could not be read: check its port and percent-encoding"
        ) from None
    return config


FILE_SYSTEM_STORAGE = "django.core.files.storage.FileSystemStorage"
_DOTTED_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")


def env_archive_storage(*, default_dir: Path) -> dict[str, Any]:
    """The archive's storage (settings.STORAGES["scorpion_archive"], games/archive.py):
    ``ARCHIVE_STORAGE_BACKEND``, the dotted path of a Django storage class (default the local
    directory, ``FileSystemStorage``), with ``ARCHIVE_STORAGE_OPTIONS``, a JSON object of its
    options (a bucket, a prefix...); for the local directory, ``ARCHIVE_DIR`` is where
    (default ``default_dir``). ``ARCHIVE_DIR`` with another backend is an error, not ignored."""
    backend = os.environ.get("ARCHIVE_STORAGE_BACKEND", "").strip() or FILE_SYSTEM_STORAGE
    if not _DOTTED_PATH.match(backend):
        raise ImproperlyConfigured(
            f"ARCHIVE_STORAGE_BACKEND={backend!r} is not the dotted path of a storage class"
        )
    raw = os.environ.get("ARCHIVE_STORAGE_OPTIONS", "").strip() or "{}"
    try:
        options = json.loads(raw)
    except ValueError:
        raise ImproperlyConfigured("ARCHIVE_STORAGE_OPTIONS is not JSON") from None
    if not isinstance(options, dict):
        raise ImproperlyConfigured("ARCHIVE_STORAGE_OPTIONS must be a JSON object")
    directory = os.environ.get("ARCHIVE_DIR", "").strip()
    if backend == FILE_SYSTEM_STORAGE:
        if directory and "location" in options:
            raise ImproperlyConfigured(
                "ARCHIVE_DIR and a location in ARCHIVE_STORAGE_OPTIONS are both set: keep one"
            )
        options.setdefault("location", directory or str(default_dir))
    elif directory:
        raise ImproperlyConfigured(
            "ARCHIVE_DIR applies to the local directory only: with ARCHIVE_STORAGE_BACKEND, "
            "give the storage's options in ARCHIVE_STORAGE_OPTIONS"
        )
    return {"BACKEND": backend, "OPTIONS": options}
