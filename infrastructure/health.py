"""``/healthz/``: is this process able to serve? Database and Redis status, and what the
background processes last said. ``/healthz/workers/``: is the background work being done?"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponseBase, JsonResponse
from django.utils import timezone

from infrastructure import db_routing, liveness
from infrastructure.public_views import ignores_credentials


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


@ignores_credentials  # answered before every other middleware, the same to anyone
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database answers; Redis being down, or the read replica lagging or down,
    degrades but does not fail the check, because play goes on without them (the web process
    must stay in the load balancer)."""
    database = _check_database()
    redis_status = _check_redis()
    # A replica that lags or is down degrades but does not fail the check either: its reads
    # go to the primary meanwhile. Measured now, not this process's cached view.
    replica = db_routing.replica_status(fresh=True)
    healthy = bool(database["ok"])
    all_ok = redis_status["ok"] and (replica.usable or not replica.configured)
    body = {
        "status": "ok" if healthy and all_ok else ("degraded" if healthy else "down"),
        "database": database,
        "redis": redis_status,
        "replica": replica.as_dict(),
        # Informative only: a stopped worker must not take the web process out of rotation.
        "background": liveness.read(redis_url=settings.REDIS_URL, now=timezone.now()).as_dict(),
    }
    return JsonResponse(body, status=200 if healthy else 503)


@ignores_credentials
def healthz_workers(request: HttpRequest) -> JsonResponse:
    """200 when each queue's worker ran its heartbeat and beat ticked recently, else 503: for
    the monitoring of the worker and beat processes. Without Redis (the embedded default) there
    is no background process to watch, and work is done on demand: 200, "not configured"."""
    state = liveness.read(redis_url=settings.REDIS_URL, now=timezone.now())
    # A dead hints worker fails this check too, though play goes on without it (the chances
    # are then computed inline, with fewer samples, on the web processes' CPU): this check is
    # for whoever watches the background processes, and a process of the deployment is down.
    # The web processes' own /healthz/ never fails on any of them.
    healthy = not state.configured or (state.worker_ok and state.hints_worker_ok and state.beat_ok)
    body = {"status": "ok" if healthy else "down", **state.as_dict()}
    return JsonResponse(body, status=200 if healthy else 503)


class HealthCheckMiddleware:
    """Answers the health checks before the host check and every other middleware.

    Orchestrators call them by address (``http://127.0.0.1:8000/healthz/`` from inside a
    container), a host that ``ALLOWED_HOSTS`` rightly refuses once it names the real domain:
    the check would answer 400 and the container would be restarted forever. The answers say
    nothing about the request, so they are safe to give to any host name.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        self.checks: dict[str, Callable[[HttpRequest], HttpResponseBase]] = {
            "/healthz/": healthz,
            "/healthz/workers/": healthz_workers,
        }

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        check = self.checks.get(request.path_info)
        return check(request) if check else self.get_response(request)
