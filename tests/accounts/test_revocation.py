"""A player's authorised apps, and revocation: on the API and on the web page, at once, and
without a race against a refresh that is in flight."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from allauth.idp.oidc import views as idp_views
from allauth.idp.oidc.models import Token
from django.db import connection, transaction

from accounts.oauth import services
from tests.accounts.conftest import (
    App,
    authorize,
    bearer,
    browser_for,
    csrf_token,
    refresh,
    register,
    tokens_from,
)
from tests.api.conftest import Player
from tests.conftest import require_service


@pytest.mark.django_db
def test_the_list_shows_each_app_once_with_everything_granted(
    player: Player, make_player: Callable[[], Player]
) -> None:
    first, second = register(name="First"), register(name="Second")
    authorize(player, first, "games:play")
    authorize(player, first, "stats:read")
    authorize(player, second, "games:read")
    authorize(make_player(), second, "account:read")  # someone else's grant: not listed

    listed = player.get("/api/v1/me/apps/").json()
    assert [(a["name"], a["scopes"], a["suspended"]) for a in listed] == [
        ("First", ["games:play", "stats:read"], False),
        ("Second", ["games:read"], False),
    ]
    assert listed[0]["client_id"] == first.client_id


@pytest.mark.django_db
def test_revoking_ends_every_token_of_that_app_and_only_that_app(player: Player) -> None:
    kept, revoked = register(name="Kept"), register(name="Revoked")
    kept_tokens = authorize(player, kept, "games:play")
    tokens = [authorize(player, revoked, "games:play") for _ in range(2)]

    assert player.client.delete(f"/api/v1/me/apps/{revoked.client_id}/").status_code == 204

    for token in tokens:
        assert (
            bearer(token.access_token).post("/api/v1/games/", {}, format="json").status_code == 401
        )
        assert refresh(revoked, token.refresh_token).json()["error"] == "invalid_grant"
    assert (
        bearer(kept_tokens.access_token).post("/api/v1/games/", {}, format="json").status_code
        == 201
    )
    assert [a["name"] for a in player.get("/api/v1/me/apps/").json()] == ["Kept"]


@pytest.mark.django_db
def test_revoking_voids_a_device_approval_not_yet_traded_for_tokens(
    player: Player, app: App
) -> None:
    from tests.accounts.test_flows import answer_device, poll, start_device_flow

    started = start_device_flow(app, "games:play")
    answer_device(player, started["user_code"], "confirm")
    assert player.client.delete(f"/api/v1/me/apps/{app.client_id}/").status_code == 204
    assert poll(app, started["device_code"]).json()["error"] == "invalid_grant"
    assert not Token.objects.filter(client=app.client).exists()


@pytest.mark.django_db
def test_revoking_an_app_that_holds_nothing_is_a_404(
    player: Player, make_player: Callable[[], Player], app: App
) -> None:
    authorize(make_player(), app, "games:play")
    response = player.client.delete(f"/api/v1/me/apps/{app.client_id}/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert Token.objects.filter(client=app.client).exists()  # the other player's grant stays


@pytest.mark.django_db
def test_an_app_cannot_see_or_revoke_the_players_apps(player: Player, app: App) -> None:
    tokens = authorize(player, app, "games:play games:read stats:read account:read")
    api = bearer(tokens.access_token)
    assert api.get("/api/v1/me/apps/").json()["code"] == "insufficient_scope"
    assert api.delete(f"/api/v1/me/apps/{app.client_id}/").status_code == 403
    assert api.get("/api/v1/me/").status_code == 200


@pytest.mark.django_db
def test_the_web_page_lists_and_revokes(player: Player, app: App) -> None:
    tokens = authorize(player, app, "games:play")
    browser = browser_for(player)
    page = browser.get("/account/apps/")
    html = page.content.decode()
    assert "Robo Player" in html
    assert "games:play" in html
    assert page["Cache-Control"].startswith("max-age=0")

    forged = browser.post(f"/account/apps/{app.client_id}/revoke/")
    assert forged.status_code == 403  # no CSRF token
    assert bearer(tokens.access_token).post("/api/v1/games/", {}, format="json").status_code == 201

    done = browser.post(
        f"/account/apps/{app.client_id}/revoke/",
        {"csrfmiddlewaretoken": csrf_token(browser)},
        follow=True,
    )
    assert "Revoked" in done.content.decode()
    assert "Robo Player" not in done.content.decode()
    assert bearer(tokens.access_token).post("/api/v1/games/", {}, format="json").status_code == 401


@pytest.mark.django_db
def test_the_page_needs_a_signed_in_player(client: Any) -> None:
    response = client.get("/account/apps/")
    assert response.status_code == 302
    assert response["Location"] == "/?next=/account/apps/"


# --- Revocation racing a refresh (PostgreSQL: SQLite runs one writer at a time) ---


def _in_thread(work: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    result: list[Any] = []

    def run() -> None:
        try:
            result.append(work())
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, result


@pytest.fixture
def postgresql(transactional_db: None) -> None:
    require_service("PostgreSQL (DATABASE_URL)", connection.vendor == "postgresql")


@pytest.mark.usefixtures("postgresql")
def test_a_refresh_in_flight_cannot_outlive_a_revocation(
    player: Player, app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refresh has issued its new tokens but not committed them when the player revokes:
    the revocation waits for it, then removes the new tokens as well."""
    tokens = authorize(player, app, "games:play")
    issued, release = threading.Event(), threading.Event()
    original = idp_views.TokenView._create_token_response

    def pause_after_issuing(self: Any, request: Any, **kwargs: Any) -> Any:
        response = original(self, request, **kwargs)
        issued.set()
        assert release.wait(10)
        return response

    monkeypatch.setattr(idp_views.TokenView, "_create_token_response", pause_after_issuing)
    refreshing, refreshed = _in_thread(lambda: refresh(app, tokens.refresh_token))
    assert issued.wait(10)
    user = player_user(player)
    revoking, revoked = _in_thread(
        lambda: services.app_revoke_for_player(user=user, client_id=app.client_id)
    )
    revoking.join(0.5)
    assert revoking.is_alive(), "the revocation must wait for the refresh in flight"
    release.set()
    refreshing.join(10)
    revoking.join(10)

    new = tokens_from(refreshed[0])
    assert revoked[0] >= 2  # the new access and refresh tokens
    assert not Token.objects.filter(client=app.client).exists()
    assert bearer(new.access_token).post("/api/v1/games/", {}, format="json").status_code == 401
    assert refresh(app, new.refresh_token).json()["error"] == "invalid_grant"


@pytest.mark.usefixtures("postgresql")
def test_a_refresh_after_a_revocation_began_gets_nothing(player: Player, app: App) -> None:
    tokens = authorize(player, app, "games:play")
    user, deleted, release = player_user(player), threading.Event(), threading.Event()

    def revoke_and_hold() -> int:
        with transaction.atomic():
            count = services.app_revoke_for_player(user=user, client_id=app.client_id)
            deleted.set()
            assert release.wait(10)
        return count

    revoking, _ = _in_thread(revoke_and_hold)
    assert deleted.wait(10)
    refreshing, refreshed = _in_thread(lambda: refresh(app, tokens.refresh_token))
    refreshing.join(0.5)
    assert refreshing.is_alive(), "the refresh must wait for the revocation"
    release.set()
    revoking.join(10)
    refreshing.join(10)

    assert refreshed[0].json()["error"] == "invalid_grant"
    assert not Token.objects.filter(client=app.client).exists()


def player_user(player: Player) -> Any:
    from django.contrib.auth.models import User

    return User.objects.get(email=player.email)


@pytest.mark.django_db
def test_expired_tokens_are_purged_and_live_ones_kept(player: Player, app: App) -> None:
    from django.utils import timezone

    from accounts.tasks import purge_expired_tokens

    old = authorize(player, app, "games:play")
    live = authorize(player, app, "games:play")
    Token.objects.by_value(old.access_token).update(expires_at=timezone.now())
    purge_expired_tokens()
    assert bearer(old.access_token).post("/api/v1/games/", {}, format="json").status_code == 401
    assert bearer(live.access_token).post("/api/v1/games/", {}, format="json").status_code == 201
    grants = Token.objects.filter(type__in=[Token.Type.ACCESS_TOKEN, Token.Type.REFRESH_TOKEN])
    assert grants.count() == 3  # the live access token and both refresh tokens
    purge_expired_tokens()  # nothing more to do
    assert grants.count() == 3
