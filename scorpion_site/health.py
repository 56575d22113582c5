"""``/healthz``: is this process able to serve? Database and Redis status."""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponseBase, JsonResponse


def _check_database() -> dict[str, object]:
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "down"; the message says which
        return {"ok": False, "error": exc.__class__.__name__}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 2)}


def _check_redis() -> dict[str, object]:
    if not settings.REDIS_URL:
        return {"ok": True, "configured": False}
    import redis

    started = time.perf_counter()
    try:
        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1
        )
        client.ping()
    except redis.RedisError as exc:
        return {"ok": False, "configured": True, "error": exc.__class__.__name__}
    return {"ok": True, "configured": True, "ms": round((time.perf_counter() - started) * 1000, 2)}


def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database answers; Redis being down degrades but does not fail the check,
    because play goes on without it (the web process must stay in the load balancer)."""
    database = _check_database()
    redis_status = _check_redis()
    healthy = bool(database["ok"])
    body = {
        "status": "ok" if healthy and redis_status["ok"] else ("degraded" if healthy else "down"),
        "database": database,
        "redis": redis_status,
    }
    return JsonResponse(body, status=200 if healthy else 503)


class HealthCheckMiddleware:
    """Answers ``/healthz/`` before the host check and every other middleware.

    Orchestrators call the check by address (``http://127.0.0.1:8000/healthz/`` from inside a
    container), a host that ``ALLOWED_HOSTS`` rightly refuses once it names the real domain:
    the check would answer 400 and the container would be restarted forever. The answer says
    nothing about the request, so it is safe to give to any host name.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.path_info == "/healthz/":
            return healthz(request)
        return self.get_response(request)
