"""The health checks: the web process's own, and the one for the background processes."""

from __future__ import annotations

import json

import pytest
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db


@override_settings(REDIS_URL=None)
def test_without_redis_there_is_no_background_process_to_watch() -> None:
    response = Client().get("/healthz/workers/")
    assert response.status_code == 200
    assert json.loads(response.content) == {"status": "ok", "configured": False}
    health = json.loads(Client().get("/healthz/").content)
    assert health["background"] == {"configured": False}


@override_settings(REDIS_URL="redis://127.0.0.1:1/0")
def test_unreachable_redis_makes_workers_down_but_the_web_process_stays_up() -> None:
    response = Client().get("/healthz/workers/")
    assert response.status_code == 503
    assert json.loads(response.content)["error"]
    web = Client().get("/healthz/")
    assert web.status_code == 200
    assert json.loads(web.content)["status"] == "degraded"


def test_without_a_replica_the_health_check_says_so_and_every_read_is_the_primarys() -> None:
    from infrastructure.db_routing import Router, read_alias

    health = json.loads(Client().get("/healthz/").content)
    assert health["replica"] == {"configured": False}
    assert read_alias() == "default"
    assert Router().db_for_read(object) is None  # Django's default: the one database
    assert Router().allow_migrate("default", "games") is True
