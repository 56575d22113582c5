"""Settings, read from the environment and parsed strictly.

Every value a deployment may change comes from an environment variable; a value that does not
parse stops the process at start-up with a message naming the variable, rather than running
with a surprise. Without any variable set, the service runs on the embedded default: a SQLite
file in the project and no Redis (tasks run in-process, cache in memory).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import environ
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

from infrastructure import queues
from scorpion_site.databases import databases

# The daily key's development default and least length, settings as they always were.
from scorpion_site.env import DEFAULT_DAILY_DEAL_SECRET as DEFAULT_DAILY_DEAL_SECRET
from scorpion_site.env import MIN_DAILY_DEAL_SECRET as MIN_DAILY_DEAL_SECRET
from scorpion_site.env import (
    env_archive_storage,
    env_bool,
    env_daily_deal_secret,
    env_int,
    env_list,
    env_rate,
    env_rsa_key,
    env_secret,
)

BASE_DIR = Path(__file__).resolve().parent.parent

# Django's own placeholder-style key: good enough for a laptop, refused in production.
DEFAULT_SECRET_KEY = "django-insecure-scorpion-development-key-do-not-deploy"

DEBUG = env_bool("DEBUG", False)

_SECRET_KEY = env_secret("SECRET_KEY")
SECRET_KEY = DEFAULT_SECRET_KEY if _SECRET_KEY is None else _SECRET_KEY
if not DEBUG and (SECRET_KEY == DEFAULT_SECRET_KEY or len(SECRET_KEY) < 50):
    raise ImproperlyConfigured(
        "SECRET_KEY must be set to a random value of at least 50 characters when DEBUG is off "
        "(python -c 'import secrets; print(secrets.token_urlsafe(50))')"
    )

# The key of the daily deals (docs/deals.md, "Daily deals"): a day's deal is an HMAC of the
# date under this key (never SECRET_KEY, so that either can be rotated alone).
DAILY_DEAL_SECRET = env_daily_deal_secret(debug=DEBUG, secret_key=SECRET_KEY)

# How many proxies of ours stand in front of the web process (each appends to X-Forwarded-For).
# 0 trusts the header from nobody: the client is the peer of the connection. The throttles, the
# log-in limits and the logs all derive the client's address from it (infrastructure/client_ip.py).
NUM_PROXIES = env_int("NUM_PROXIES", 0)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
if not DEBUG and not ALLOWED_HOSTS:
    # Django would start and then refuse every request with 400.
    raise ImproperlyConfigured(
        "ALLOWED_HOSTS must name the site's host names when DEBUG is off, comma-separated "
        "(e.g. scorpion.example,www.scorpion.example): without one every request gets 400"
    )
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    # First, so that its createsuperuser (staff log in by e-mail) replaces Django's.
    "accounts",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "allauth",
    "allauth.account",
    "allauth.headless",
    "allauth.idp.oidc",
    "games",
    "stats",
    "social",
    "achievements",
    "fairplay",
    # After allauth.idp.oidc: its admin (players/admin.py) replaces allauth's app admin.
    "players",
    "staff",
    "web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # The request's language from Accept-Language (Content-Language on the answer), before any
    # middleware that may answer with a problem; a signed-in account's own choice overrides it
    # (AccountLanguageMiddleware, below), once the session's user is known.
    "django.middleware.locale.LocaleMiddleware",
    # An app's access token reaches only the API views that accept it (accounts/app_tokens.py).
    "accounts.app_tokens.AppTokenGateMiddleware",
    "infrastructure.problems.ApiBodyLimitMiddleware",
    "infrastructure.problems.JsonBodyMiddleware",
    # Django's, except that a request in flight across a log-in keeps the new cookie.
    "accounts.session_middleware.StaleCookieSafeSessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # Django's, with the user from the session's cached snapshot (no SQL once cached).
    "accounts.session_middleware.SnapshotAuthenticationMiddleware",
    "accounts.language.AccountLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # A guest's session signs up, or logs in elsewhere, as if signed out (accounts/middleware.py).
    "accounts.middleware.GuestAuthMiddleware",
    "accounts.ratelimits.RateLimitResponseMiddleware",
    # After a write, its player reads from the primary for a while (read-your-writes).
    "infrastructure.db_routing.ReplicaPinMiddleware",
]

ROOT_URLCONF = "scorpion_site.urls"
WSGI_APPLICATION = "scorpion_site.wsgi.application"
ASGI_APPLICATION = "scorpion_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The site's own templates live in the package, so that the wheel carries them.
        "DIRS": [Path(__file__).resolve().parent / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "web.context_processors.variants",
            ],
        },
    },
]


# The primary (DATABASE_URL), an optional streaming replica for the reads that may lag
# (DATABASE_REPLICA_URL; infrastructure/db_routing.py) and a pooler in front of PostgreSQL
# (DATABASE_POOLER): scorpion_site/databases.py, docs/settings.md.
DATABASES = databases(
    url=env_secret("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
    replica_url=env_secret("DATABASE_REPLICA_URL"),
    pooler=os.environ.get("DATABASE_POOLER", "").strip().lower(),
    conn_max_age=env_int("CONN_MAX_AGE", 60),
    replica_connect_timeout=env_int("REPLICA_CONNECT_TIMEOUT", 2, minimum=1),
)
DATABASE_ROUTERS = ["infrastructure.db_routing.Router"]
# The replica serves a read only when its replay lag, measured by each process at most every
# REPLICA_CHECK_SECONDS, is at most REPLICA_MAX_LAG_SECONDS; after a write its player reads
# from the primary for REPLICA_PIN_SECONDS, which must cover both (read-your-writes: the proof
# is in infrastructure/db_routing.py).
REPLICA_MAX_LAG_SECONDS = env_int("REPLICA_MAX_LAG_SECONDS", 5, minimum=1)
REPLICA_CHECK_SECONDS = env_int("REPLICA_CHECK_SECONDS", 2, minimum=1)
REPLICA_PIN_SECONDS = env_int(
    "REPLICA_PIN_SECONDS",
    REPLICA_MAX_LAG_SECONDS + REPLICA_CHECK_SECONDS + 1,
    minimum=REPLICA_MAX_LAG_SECONDS + REPLICA_CHECK_SECONDS,
)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_secret("REDIS_URL") or None
if REDIS_URL is not None and not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"REDIS_URL={REDIS_URL!r} is not a redis:// URL")

CACHES: dict[str, dict[str, Any]]
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "infrastructure.cache.FailOpenRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "scorpion",
            # A cache outage must not take play down: Redis errors degrade to cache misses.
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            # The rate-limit counters live here too: LocMemCache drops a third of its entries
            # when full (300 by default), so a flood of clients could reset everyone's limits.
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        }
    }

# Celery: Redis as the broker when REDIS_URL is set. Without it (the embedded default) nothing
# is enqueued: daily deals and winnable deals are certified on demand instead.
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# With a live worker, how long (wall time, ms) a request computes winning chances itself before
# leaving them to the worker: a cheap position is answered at once, exactly as the worker would
# answer it (games/services/chances.py, game_chances_request). 0: every computation goes to the
# worker.
CHANCES_REQUEST_MS = env_int("CHANCES_REQUEST_MS", 100, minimum=0)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 60, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 90, minimum=1)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Publishing must fail fast when Redis is down: play goes on and the work is caught up later.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "socket_connect_timeout": 1,
    "socket_timeout": 5,
    # An unacknowledged task (its worker died) is delivered again after this many seconds;
    # it must exceed the longest task time limit (660 s).
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600, minimum=1),
    # Look for such tasks every 10 s rather than kombu's default of every ~100 s: one cheap
    # ZRANGE on Redis, and a dead worker's task is back in the queue sooner.
    "unacked_restore_throttle": 1,
}
# Two queues (infrastructure/queues.py): the winning chances on their own, everything else on
# the default one. Declared here, so that a worker without -Q (make worker) consumes both and
# purging clears both; the compose workers each name theirs (-Q). Fixed names, not settings:
# each deployment has a broker of its own, and the names are the contract between web, beat
# and the two workers.
CELERY_TASK_DEFAULT_QUEUE = queues.DEFAULT_QUEUE
CELERY_TASK_QUEUES = tuple(Queue(name) for name in queues.QUEUES)
CELERY_TASK_ROUTES = {task: {"queue": queue} for task, queue in queues.ROUTED.items()}
CELERY_TIMEZONE = "UTC"
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# Beat records its ticks and sends the daily deal and pool work at start (infrastructure/beat.py).
CELERY_BEAT_SCHEDULER = "infrastructure.beat:RecordingScheduler"
CELERY_BEAT_SCHEDULE = {
    # A worker that runs this is alive (the health check and the staff dashboard read it):
    # one per queue, so each queue's worker proves itself (infrastructure/liveness.py).
    "heartbeat": {"task": "scorpion_site.heartbeat", "schedule": 30.0},
    "heartbeat-hints": {
        "task": "scorpion_site.heartbeat",
        "schedule": 30.0,
        "args": (queues.HINTS_QUEUE,),
        "options": {"queue": queues.HINTS_QUEUE},
    },
    # Keep today and the next 7 days certified; hourly, so a missed run is soon made good.
    "ensure-daily-deals": {"task": "games.tasks.ensure_daily_deals", "schedule": 3600.0},
    "top-up-winnable-pool": {"task": "games.tasks.top_up_winnable_pool", "schedule": 300.0},
    # Expired OAuth tokens and spent codes open nothing; purge them in short batches.
    "purge-expired-tokens": {"task": "accounts.tasks.purge_expired_tokens", "schedule": 3600.0},
    # Guests idle for GUEST_IDLE_DAYS go, with their games (players/guests.py).
    "delete-idle-guests": {"task": "players.tasks.delete_idle_guests", "schedule": 3600.0},
    # Hints are counted in Redis after a game's first and written to the games in batches.
    "flush-hint-counts": {"task": "games.tasks.flush_hint_counts", "schedule": 60.0},
}
# The logs of games finished more than this many days ago move to the archive's storage
# (games/archive.py, docs/settings.md "Archived games"), at most ARCHIVE_BATCH games per run of
# beat's task, every 10 minutes; 0 turns the periodic run off (the command still archives).
ARCHIVE_AFTER_DAYS = env_int("ARCHIVE_AFTER_DAYS", 90, minimum=0)
ARCHIVE_BATCH = env_int("ARCHIVE_BATCH", 5000, minimum=1)
if ARCHIVE_AFTER_DAYS:
    CELERY_BEAT_SCHEDULE["archive-finished-games"] = {
        "task": "games.tasks.archive_finished_games",
        "schedule": 600.0,
    }
# A guest account (made on first play, no sign-up) is deleted after this many days without
# a game played.
GUEST_IDLE_DAYS = env_int("GUEST_IDLE_DAYS", 30, minimum=1)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

# The languages a player can read the site in (docs/web.md, "Languages"): chosen per request by
# the account's setting (accounts.language.AccountLanguageMiddleware), else Accept-Language
# (LocaleMiddleware), else English. The catalogues live in scorpion_site/locale/, their compiled
# .mo files committed, so a fresh clone needs no GNU gettext (docs/web.md says how to update them).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "scorpion_site" / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Where collectstatic puts the files (the proxy serves them from there, or whitenoise does).
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
    # Archived games' logs (games/archive.py): a local directory, or any Django storage.
    "scorpion_archive": env_archive_storage(default_dir=BASE_DIR / "archive"),
}

LOGIN_REDIRECT_URL = "/"
# Sessions (and allauth's app session tokens, which are session keys) are read through the
# cache, with the signed-in user cached beside them: one Redis GET per request and no SQL
# (accounts/sessions.py says how a log-out, deactivation or deletion still ends a session at
# once). The database stays the truth, so a cache outage only costs speed.
# Keys of a shape Django never makes are refused without a lookup.
SESSION_ENGINE = "accounts.sessions"

# --- Accounts (django-allauth, headless for apps and browsers) ---
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*"]
ACCOUNT_UNIQUE_EMAIL = True
_VERIFICATION = os.environ.get("ACCOUNT_EMAIL_VERIFICATION", "optional")
if _VERIFICATION not in {"none", "optional", "mandatory"}:
    raise ImproperlyConfigured(
        f"ACCOUNT_EMAIL_VERIFICATION={_VERIFICATION!r}: use none, optional or mandatory"
    )
ACCOUNT_EMAIL_VERIFICATION = _VERIFICATION
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
# Unused while our adapter derives the address (it calls infrastructure/client_ip.py), but kept
# equal so that nothing in allauth can read X-Forwarded-For differently.
ALLAUTH_TRUSTED_PROXY_COUNT = NUM_PROXIES
# Log-in, failed log-in and sign-up limits (docs/architecture.md, "Limits"); over them allauth's
# endpoints answer 429 problem+json with Retry-After (accounts/ratelimits.py).
ACCOUNT_RATE_LIMITS = {
    "login": "30/m/ip",
    "login_failed": "10/m/ip,5/5m/key",
    "signup": "20/m/ip",
}
HEADLESS_CLIENTS = ("app", "browser")
# The links in allauth's mails (e-mail confirmation, password reset) lead to the web client's
# own pages (web/urls.py), not to allauth's unstyled stock pages; relative URLs are made
# absolute from the request that sent the mail.
HEADLESS_FRONTEND_URLS = {
    "account_confirm_email": "/account/verify-email/{key}/",
    "account_reset_password": "/account/password/reset/",
    "account_reset_password_from_key": "/account/password/reset/{key}/",
    "account_signup": "/account/",
}
# Changing the e-mail address replaces it once the new one is confirmed (not a second one).
ACCOUNT_CHANGE_EMAIL = True
# allauth's session tokens, looked up with one read instead of exists() and then a load.
HEADLESS_TOKEN_STRATEGY = "accounts.sessions.SessionTokenStrategy"
HEADLESS_SERVE_SPECIFICATION = True
# allauth's own page loads ReDoc from a CDN; this one is Swagger UI served from the project.
HEADLESS_SPECIFICATION_TEMPLATE_NAME = "api_docs/allauth_swagger.html"

# --- Mail (verification and password-reset messages) ---
# One URL says it all: smtp+tls://user:password@smtp.example.com:587 (STARTTLS),
# smtp+ssl://...:465 (implicit TLS), smtp://host:25, or consolemail:// to print messages;
# special characters in the password are percent-encoded. Without it, messages go to the
# console, which is only right on a laptop: with DEBUG off, a missing EMAIL_URL stops start-up
# rather than silently losing every verification and reset message.
_EMAIL_URL = (env_secret("EMAIL_URL") or "").strip()
if not _EMAIL_URL and not DEBUG:
    raise ImproperlyConfigured(
        "EMAIL_URL must be set when DEBUG is off, e.g. smtp+tls://user:password@host:587 "
        "(or consolemail:// to print messages to the log on purpose)"
    )
try:
    _EMAIL = environ.Env.email_url_config(_EMAIL_URL or "consolemail://")
except (ImproperlyConfigured, KeyError, ValueError) as error:  # bad scheme or port
    raise ImproperlyConfigured(f"EMAIL_URL is not a mail URL: {error}") from None
EMAIL_BACKEND = _EMAIL["EMAIL_BACKEND"]
EMAIL_HOST = _EMAIL.get("EMAIL_HOST") or "localhost"
EMAIL_PORT = int(_EMAIL.get("EMAIL_PORT") or 25)
EMAIL_HOST_USER = _EMAIL.get("EMAIL_HOST_USER") or ""
EMAIL_HOST_PASSWORD = _EMAIL.get("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS = bool(_EMAIL.get("EMAIL_USE_TLS", False))
EMAIL_USE_SSL = bool(_EMAIL.get("EMAIL_USE_SSL", False))
# A stuck mail server must not hold a web worker for ever.
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "scorpion@localhost")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Third-party apps: OAuth 2 / OpenID Connect provider (allauth.idp.oidc, docs/third-party.md)
# The signing key of ID tokens (RSA, PEM; "\n" escapes are read as newlines). Without one, a
# development key when DEBUG is on; with DEBUG off, OAuth 2 works and OpenID Connect is off
# (the `openid` scope is refused): an ID token signed with a published key would prove nothing.
DEV_OIDC_PRIVATE_KEY = (BASE_DIR / "scorpion_site" / "oidc_dev_key.pem").read_text()
IDP_OIDC_PRIVATE_KEY = env_rsa_key("OIDC_PRIVATE_KEY", DEV_OIDC_PRIVATE_KEY if DEBUG else "")
if not DEBUG and IDP_OIDC_PRIVATE_KEY == DEV_OIDC_PRIVATE_KEY:
    raise ImproperlyConfigured("OIDC_PRIVATE_KEY is the published development key")
IDP_OIDC_ADAPTER = "accounts.oauth.adapter.ScorpionOIDCAdapter"
IDP_OIDC_ACCESS_TOKEN_EXPIRES_IN = env_int("OAUTH_ACCESS_TOKEN_SECONDS", 3600, minimum=60)
# A refresh token is replaced by a new one at every use (rotation); one unused this long dies.
IDP_OIDC_ROTATE_REFRESH_TOKEN = True
IDP_OIDC_REFRESH_TOKEN_EXPIRES_IN = env_int(
    "OAUTH_REFRESH_TOKEN_SECONDS", 30 * 24 * 3600, minimum=3600
)
IDP_OIDC_DEVICE_CODE_EXPIRES_IN = 600
IDP_OIDC_DEVICE_CODE_INTERVAL = 5
# allauth's own limits (checks of the code a player types: 5 a minute per address), and ours
# on asking for device codes, which anyone may do.
IDP_OIDC_RATE_LIMITS = {"device_code": "30/m/ip"}
# LOGIN_URL stays allauth's /accounts/login/ (the admin's log-in); the provider's pages for
# players send them to the home page's log-in form instead (accounts/oauth/login.py).

# --- REST API ---
# Every API view (infrastructure.api.ApiView) refuses an app's token that lacks the scope the
# view declares; the shared base calls the accounts' check by this path, knowing no app itself.
API_SCOPE_CHECK = "accounts.permissions.enforce_token_scope"
# A command that finishes a game counts it in the statistics in its own transaction by calling
# this (games.services.commands): games stands below stats and does not import it.
GAME_FINISHED_RECORDER = "stats.services.stats_record_game_finished"
# Told of every game that ends, after the statistics and in the same transaction
# (games.services.commands), by dotted path so that the games import none of the layers above
# them: the achievements it earns, the challenges' and friends' notices, and the fair-play
# signals of a ranked daily win (docs/fair-play.md).
GAME_FINISHED_HOOKS = [
    "achievements.services.achievements_record_game_finished",
    "social.services.notices.game_finished",
    "fairplay.services.game_finished",
]
# Told of a guest that signed up (accounts.guests.guest_convert), in its transaction: its
# ranked daily attempts are claimed under its new address (docs/api.md, "The daily challenge").
GUEST_SIGNED_UP_HOOKS = ["players.services.guest_signed_up"]
# What a reconnecting feed replays besides the player's own games (games.broadcast.payloads):
# the notices of the social layer, rebuilt from the games that caused them.
FEED_BACKLOG_SOURCES = ["social.services.notices.feed_backlog"]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.SessionTokenAuthentication",
        "accounts.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        # The scopes of an app's token are checked by every API view whatever its
        # permission_classes (infrastructure.api.ApiView, accounts/app_tokens.py).
    ],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "EXCEPTION_HANDLER": "games.api.errors.problem_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "infrastructure.throttles.AnonRateThrottle",
        "infrastructure.throttles.UserRateThrottle",
        "infrastructure.throttles.IPRateThrottle",
        "accounts.throttles.AppRateThrottle",
    ],
    # DRF's own reading of X-Forwarded-For (BaseThrottle.get_ident), kept equal to ours.
    "NUM_PROXIES": NUM_PROXIES,
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("THROTTLE_ANON", "60/min"),
        "user": env_rate("THROTTLE_USER", "1200/min"),
        "ip": env_rate("THROTTLE_IP", "6000/min"),
        "app": env_rate("THROTTLE_APP", "6000/min"),
        # Guest accounts created per address (accounts/guests.py).
        "guest": env_rate("THROTTLE_GUEST", "10/hour"),
        # Solver runs a player's requests start (winning chances computed or queued, an
        # analysis computed in the request, deals certified on the spot for a winnable game):
        # each costs up to seconds of CPU, which the request count alone does not bound.
        # 20/min leaves the web client's chances, prepared after each 3-second pause, room to
        # follow a brisk player; at the measured maxima (docs/benchmarks.md) that is 40 s of CPU a
        # minute inline, per account.
        "solver": env_rate("THROTTLE_SOLVER", "20/min"),
        # What a player can make for others (social): challenges, friend requests (by name or
        # by accepting an invite) and invite links, each counted per account when made.
        "challenge": env_rate("THROTTLE_CHALLENGE", "30/day"),
        "follow": env_rate("THROTTLE_FOLLOW", "50/day"),
        "invite": env_rate("THROTTLE_INVITE", "10/day"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Scorpion API",
    # Swagger UI comes from the project (drf-spectacular-sidecar), not from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    # No deep links: Swagger UI draws each operation's path as a link inside the button that
    # opens it, an interactive element in another that keyboards and screen readers trip on
    # (axe: nested-interactive); without them the path is plain text.
    "SWAGGER_UI_SETTINGS": {"deepLinking": False},
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "DESCRIPTION": "Scorpion Solitaire: games as event logs, daily challenge, statistics.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # One enum for every field that names a difficulty band (games.models.DifficultyBand).
    "ENUM_NAME_OVERRIDES": {
        "DifficultyEnum": "games.models.DifficultyBand",
        "AppKindEnum": "accounts.models.AppKind",
        "FriendshipStatusEnum": "social.models.FriendshipStatus",
        # The games' own status keeps its name beside the friendships' (the SDK reads it).
        "StatusEnum": "games.models.GameStatus",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "scorpion_site.schema.add_problems_and_strict_requests",
    ],
}

# --- Live streams (Server-Sent Events, served by the ASGI stream server) ---
# A `heartbeat` event every so many seconds, busy or idle: proxies keep a quiet stream open, and
# clients reopen a stream after two missed heartbeats (a connection that died without closing).
STREAM_HEARTBEAT_SECONDS = env_int("STREAM_HEARTBEAT_SECONDS", 15, minimum=1)
# Open streams per player, across every stream process (429 beyond).
STREAM_MAX_PER_USER = env_int("STREAM_MAX_PER_USER", 10, minimum=1)
# A client further behind than this many events gets the whole game (a resync) instead.
STREAM_MAX_REPLAY = env_int("STREAM_MAX_REPLAY", 200, minimum=1)
# A stream ends after this long; the client reconnects and resumes (credentials checked again).
STREAM_MAX_SECONDS = env_int("STREAM_MAX_SECONDS", 900, minimum=1)
# An open stream's credentials (an app's access token, a player's session) are checked again
# this often: revoked, expired or signed out, the stream ends at the next check.
STREAM_CREDENTIALS_SECONDS = env_int("STREAM_CREDENTIALS_SECONDS", 15, minimum=1)
# How long a client waits before reconnecting (the SSE retry field).
STREAM_RETRY_MS = env_int("STREAM_RETRY_MS", 2000, minimum=100)

# Requests larger than this are refused before parsing (a move is a few dozen bytes).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 64 * 1024, minimum=1024)

# --- Security: secure by default whenever DEBUG is off; each can be relaxed explicitly ---
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if env_bool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Health checks come over plain HTTP from the orchestrator, not through the TLS proxy.
SECURE_REDIRECT_EXEMPT = [r"^healthz/(workers/)?$"]

# --- Browser hardening and the health checks (kept in one block) ---
# /healthz/ and /healthz/workers/ answer before any other middleware: an orchestrator calls
# them by address (127.0.0.1, a container's address), which is no host of ALLOWED_HOSTS, and
# they need no session, CSRF or redirect. Everything else keeps the host check.
MIDDLEWARE.insert(0, "infrastructure.health.HealthCheckMiddleware")
# Content-Security-Policy on every response (django-csp; Django 5.2 has none of its own):
# scripts, styles, fonts, images and connections from this site only. The one inline script,
# the web client's import map, carries a per-response nonce; there is no 'unsafe-inline'
# script, no inline style or handler anywhere, and nothing from a CDN (Swagger UI is served from
# the project by drf-spectacular-sidecar, for the game API and for allauth's). ReDoc is not
# offered: its bundle always loads Redocly's logo from their CDN, which this policy refuses.
INSTALLED_APPS += ["csp", "drf_spectacular_sidecar"]
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
    "csp.middleware.CSPMiddleware",
)
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

_LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO").strip().upper()
if _LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(
        f"LOG_LEVEL={_LOG_LEVEL!r}: use DEBUG, INFO, WARNING, ERROR or CRITICAL"
    )
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Records about a request (django.request's 4xx/5xx warnings) name the client's address,
    # derived like the rate limits' (NUM_PROXIES), not whatever X-Forwarded-For claims.
    "filters": {"client_ip": {"()": "infrastructure.logs.ClientIPFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s%(client)s"}
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["client_ip"],
            "formatter": "plain",
        }
    },
    "root": {"handlers": ["console"], "level": _LOG_LEVEL},
    "loggers": {
        # Django's default configuration gives the "django" logger a console handler of its
        # own under DEBUG; with the root handler as well every line was printed twice. One
        # handler, at the root, for everything.
        "django": {"handlers": [], "level": _LOG_LEVEL, "propagate": True},
    },
}
