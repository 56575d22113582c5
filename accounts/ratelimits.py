"""allauth's rate limits (sign-up, log-in, failed log-ins) answered like the API's throttles.

allauth enforces ``ACCOUNT_RATE_LIMITS`` itself, but its headless endpoints answer a bare
``{"status": 429}`` without ``Retry-After``, and too many failed log-ins for one e-mail
address come back as a 400 validation error (``too_many_login_attempts``). This middleware
turns both into what the API answers when a throttle trips: ``429`` problem+json with the
stable code ``throttled`` and ``Retry-After``. allauth's HTML pages (``/accounts/...``, which
the admin's log-in goes through) keep their pages and get the ``Retry-After`` header.

allauth keeps, per limit and client, the list of the timestamps of the counted requests in
the cache (``allauth.core.internal.ratelimit``); the wait is read from those lists: the time
until enough of them leave the window for one more request to pass.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable
from typing import Any

from allauth.account import app_settings as account_settings
from allauth.core.internal.ratelimit import Rate, get_cache_key, get_rates, parse_rates
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext

from infrastructure.problems import problem_json_response

APP = "allauth.account"
# Set by the adapter on a request refused for too many failed log-ins: the key of the account
# being guessed, which the per-key limit counts by.
LOGIN_FAILED_KEY = "_scorpion_login_failed_key"
TOO_MANY_LOGINS = "too_many_login_attempts"


def _actions_for(path: str) -> tuple[str, ...] | None:
    """The limits an allauth endpoint applies, for the endpoints whose limits we know."""
    end = path.rstrip("/")
    if end.endswith(("/auth/login", "/accounts/login")):
        return ("login", "login_failed")
    if end.endswith(("/auth/signup", "/accounts/signup")):
        return ("signup",)
    return None


def _rates(actions: Iterable[str] | None) -> list[tuple[str, Rate]]:
    config: dict[str, str | None] = account_settings.RATE_LIMITS
    chosen = config if actions is None else {a: config.get(a) for a in actions}
    return [(action, rate) for action, spec in chosen.items() for rate in parse_rates(spec)]


def retry_after(request: HttpRequest, *, login_failed_key: str | None = None) -> int:
    """Seconds until allauth lets this client through again, at least 1.

    Exact for limits per address, per user and on failed log-ins (their key is known); for
    an endpoint whose limits are not known here, every configured limit is looked at.
    """
    rates = _rates(_actions_for(request.path))
    user = getattr(request, "user", None)
    keys: dict[str, Rate] = {}
    for action, rate in rates:
        if rate.per == "user" and not (user and user.is_authenticated):
            continue
        key = login_failed_key if action == "login_failed" else None
        if rate.per == "key" and key is None:
            continue
        cache_key = get_cache_key(request, app=APP, action=action, rate=rate, key=key, user=user)
        keys[cache_key] = rate
    histories: dict[str, Any] = cache.get_many(list(keys)) if keys else {}
    now = time.time()
    waits = []
    for cache_key, rate in keys.items():
        history = histories.get(cache_key) or []
        live = sorted((t for t in history if t > now - rate.duration), reverse=True)
        if len(live) >= rate.amount:
            # The rate.amount-th newest request must leave the window for one more to pass.
            waits.append(live[rate.amount - 1] + rate.duration - now)
    if not waits:
        # A limit whose key we cannot see (a per-key limit of another endpoint): the longest
        # window of the endpoint's limits, after which it surely lets the client through.
        waits = [float(rate.duration) for _, rate in rates] or [1.0]
    return max(1, math.ceil(max(waits)))


def retry_after_per_ip(request: HttpRequest, *, app: str, action: str) -> int:
    """Seconds until an allauth limit counted per address (``app``'s ``action``, such as the
    provider's ``device_code``) lets this client through again, at least 1."""
    rates = [rate for rate in get_rates(app=app, action=action) if rate.per == "ip"]
    now = time.time()
    waits = [1.0]
    for rate in rates:
        history = cache.get(get_cache_key(request, app=app, action=action, rate=rate)) or []
        live = sorted((t for t in history if t > now - rate.duration), reverse=True)
        if len(live) >= rate.amount:
            waits.append(live[rate.amount - 1] + rate.duration - now)
    return max(1, math.ceil(max(waits)))


def _headless_error_codes(response: HttpResponse) -> set[str]:
    if response.get("Content-Type", "").split(";")[0] != "application/json":
        return set()
    try:
        body = json.loads(response.content)
    except ValueError:
        return set()
    errors = body.get("errors") if isinstance(body, dict) else None
    if not isinstance(errors, list):
        return set()
    return {e["code"] for e in errors if isinstance(e, dict) and isinstance(e.get("code"), str)}


class RateLimitResponseMiddleware:
    """429 problem+json with ``Retry-After`` for allauth's rate limits (module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        status = response.status_code
        if request.path.startswith("/_allauth/") and status in (400, 429):
            too_many_logins = status == 400 and TOO_MANY_LOGINS in _headless_error_codes(response)
            if status == 429 or too_many_logins:
                return self._problem(request, too_many_logins=too_many_logins)
        elif status == 429 and request.path.startswith("/accounts/"):
            response["Retry-After"] = str(retry_after(request))
        return response

    @staticmethod
    def _problem(request: HttpRequest, *, too_many_logins: bool) -> HttpResponse:
        wait = retry_after(request, login_failed_key=getattr(request, LOGIN_FAILED_KEY, None))
        detail = (
            gettext(
                "too many failed log-ins for this account or address; retry in %(wait)d seconds"
            )
            if too_many_logins
            else gettext("too many requests from this address; retry in %(wait)d seconds")
        )
        problem = problem_json_response("throttled", detail % {"wait": wait})
        problem["Retry-After"] = str(wait)
        return problem
