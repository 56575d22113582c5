"""Fuzzing allauth's headless endpoints from the description allauth serves of them.

allauth's endpoints are ours to answer for (sign-up, log-in, e-mail, password, session), but
their description is allauth's (``/_allauth/openapi.json``) and their errors are allauth's own
documents, not the API's problem details. So this checks one thing only, for every operation,
with data that fits the description and with data that does not, as an anonymous caller and
as a signed-in one (``X-Session-Token`` for the app client, the session cookie for the
browser's): no answer is a 5xx. It found allauth's phone endpoints answering 500 (a service
without phone numbers now answers 404 there) and a NUL in a session token doing the same.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from typing import Any

import hypothesis.errors
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import Case, GenerationMode
from schemathesis.schemas import BaseSchema

from tests.api.conftest import Player

# The requests go through the WSGI application in this thread, on the test's connection.
pytestmark = pytest.mark.django_db

SCHEMA_PATH = "/_allauth/openapi.json"
MAX_EXAMPLES = 10
HTTP_METHODS = {"get", "put", "post", "delete", "patch"}


def _allauth_operations() -> list[tuple[str, str]]:
    """(METHOD, path) of every operation allauth describes, read at collection time."""
    from allauth.headless.spec.internal.schema import get_schema

    paths: dict[str, Any] = get_schema()["paths"]
    return sorted(
        (method.upper(), path)
        for path, item in paths.items()
        for method in item
        if method in HTTP_METHODS
    )


OPERATIONS = _allauth_operations()


@contextlib.contextmanager
def connection_kept_open() -> Iterator[None]:
    """Keep the WSGI application from closing the test's connection after each request (as
    Django's test client does), so that the test's transaction holds every request."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def application(settings: Any) -> Any:
    from scorpion_site.wsgi import application

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "localhost"]
    return application


# allauth's schema as the application serves it, fetched through it once per test process (it
# depends on no request; building it costs about 0.3 s); each test loads a copy of its own.
_served: dict[str, dict[str, Any]] = {}


@pytest.fixture
def allauth_schema(application: Any) -> BaseSchema:
    if SCHEMA_PATH not in _served:
        with connection_kept_open():
            _served[SCHEMA_PATH] = schemathesis.openapi.from_wsgi(
                SCHEMA_PATH, application
            ).raw_schema
    schema = schemathesis.openapi.from_dict(copy.deepcopy(_served[SCHEMA_PATH]))
    schema.app = application
    schema.location = SCHEMA_PATH
    return schema


def _headers(case: Case, player: Player | None) -> dict[str, str]:
    if player is None:
        return {}
    client = (case.path_parameters or {}).get("client")
    if client == "browser":
        return {"Cookie": f"sessionid={player.browser_session}"}
    return {"X-Session-Token": player.token}


@pytest.fixture
def signed_in(player: Player) -> Player:
    """The player, with a browser session as well as an app session token."""
    from django.contrib.auth.models import User
    from django.test import Client

    browser = Client()
    browser.force_login(User.objects.get(email=player.email))
    player.browser_session = browser.cookies["sessionid"].value  # type: ignore[attr-defined]
    return player


@pytest.mark.parametrize("operation", OPERATIONS, ids=" ".join)
def test_no_allauth_endpoint_answers_a_server_error(
    allauth_schema: BaseSchema, signed_in: Player, operation: tuple[str, str]
) -> None:
    method, path = operation
    api_operation = allauth_schema[path][method]
    failures: list[str] = []
    for mode in GenerationMode:
        for player in (None, signed_in):
            try:
                with connection_kept_open():
                    _fuzz(api_operation.as_strategy(generation_mode=mode), player, failures)
            except hypothesis.errors.Unsatisfiable:
                continue  # nothing in this request can be made invalid
    assert not failures, "\n\n".join(failures[:5])


def _fuzz(strategy: st.SearchStrategy[Case], player: Player | None, failures: list[str]) -> None:
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def fuzz(case: Case) -> None:
        response = case.call(headers=_headers(case, player))
        if response.status_code >= 500:
            failures.append(
                f"{case.as_curl_command()}\n-> {response.status_code} {response.content[:500]!r}"
            )

    fuzz()
