"""The API's docs page (Swagger UI) is the same page for everyone, and answers any caller
without a server error.

Its only renderer is an HTML template, and rendering a template runs the auth context
processor, which asks DRF for ``request.user``: for a caller whose credentials fail (a session
token of a signed-out or deactivated player, a cookie session's write without a CSRF token)
DRF authenticated then, inside the rendering of the error page itself, and the refusal
escaped as a 500. A client that asks for JSON (the SDK, an API client) gets DRF's error
rendered by that template, so it met the 500 on an ordinary GET.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client as BrowserClient
from rest_framework.test import APIClient

from tests.api.conftest import Player

pytestmark = pytest.mark.django_db

JSON = {"Accept": "application/json"}


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
def test_the_docs_page_answers_a_dead_session_token_without_a_server_error(
    player: Player, method: str
) -> None:
    User.objects.filter(email=player.email).update(is_active=False)
    for headers in ({}, JSON):
        response = APIClient().generic(
            method, "/api/docs/", headers={"X-Session-Token": player.token, **headers}
        )
        assert response.status_code < 500, (headers, response.content[:200])
    signed_out = APIClient().get("/api/docs/", headers={"X-Session-Token": "no-such-session"})
    assert signed_out.status_code == 200


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_the_docs_page_answers_a_cookie_session_write_without_a_server_error(
    player: Player, method: str
) -> None:
    browser = BrowserClient(enforce_csrf_checks=True)
    browser.force_login(User.objects.get(email=player.email))
    for headers in ({}, JSON):
        response = browser.generic(method, "/api/docs/", headers=headers)
        assert response.status_code in (405, 406), (headers, response.content[:200])


def test_the_docs_page_is_the_same_page_for_a_player_and_for_nobody(player: Player) -> None:
    assert APIClient().get("/api/docs/").status_code == 200
    assert player.client.get("/api/docs/").status_code == 200
