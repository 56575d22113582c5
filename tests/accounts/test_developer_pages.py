"""Developers register an app on the site, see its client id, change it, make a new secret
and delete it; nobody else sees or touches it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from allauth.idp.oidc.models import Client, Token
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client as BrowserClient

from accounts.oauth import services
from accounts.oauth.forms import validate_redirect_uri
from tests.accounts.conftest import (
    REDIRECT_URI,
    App,
    authorize,
    bearer,
    browser_for,
    csrf_token,
    refresh,
    tokens_from,
)
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db


def post(browser: BrowserClient, path: str, data: dict[str, Any] | None = None) -> Any:
    return browser.post(path, {**(data or {}), "csrfmiddlewaretoken": csrf_token(browser)})


def new_app(browser: BrowserClient, **fields: str) -> Any:
    data = {
        "name": "My Client",
        "kind": "confidential",
        "app_kind": "client",
        "redirect_uris": REDIRECT_URI,
    }
    return post(browser, "/developers/apps/new/", {**data, **fields})


def test_a_confidential_app_is_registered_with_its_secret_shown_once(player: Player) -> None:
    browser = browser_for(player)
    assert browser.get("/developers/apps/new/").status_code == 200
    page = new_app(browser)
    assert page.status_code == 201
    client: Client = page.context["app"]
    secret = page.context["secret"]
    html = page.content.decode()
    assert client.pk in html
    assert secret in html
    assert page["Cache-Control"].startswith("max-age=0")
    assert client.get_redirect_uris() == [REDIRECT_URI]
    assert client.type == Client.Type.CONFIDENTIAL
    assert client.check_secret(secret)
    assert secret not in client.secret  # stored hashed
    # Never again: the app's page shows the id, not the secret.
    again = browser.get(f"/developers/apps/{client.pk}/").content.decode()
    assert client.pk in again
    assert secret not in again
    assert "My Client" in browser.get("/developers/apps/").content.decode()
    # And the secret works.
    assert authorize(player, App(client, secret), "games:play").scope == ["games:play"]


def test_a_public_app_has_no_secret_and_may_use_the_device_flow(player: Player) -> None:
    page = new_app(browser_for(player), kind="public", redirect_uris="")
    assert page.status_code == 201
    assert page.context["secret"] is None
    client: Client = page.context["app"]
    assert client.type == Client.Type.PUBLIC
    assert Client.GrantType.DEVICE_CODE in client.get_grant_types()


@pytest.mark.parametrize(
    ("uris", "message"),
    [
        ("http://app.example/cb", "plain http only for the loopback"),
        ("https://app.example/cb#frag", "fragment"),
        ("https://*.example/cb", "wildcards"),
        ("javascript:alert(1)", "reverse domain"),
        ("https:///nohost", "needs a host"),
        ("\n".join(f"https://app.example/{n}" for n in range(11)), "At most 10"),
    ],
)
def test_redirect_uris_are_checked(player: Player, uris: str, message: str) -> None:
    page = new_app(browser_for(player), redirect_uris=uris)
    assert page.status_code == 200
    assert message in page.content.decode()
    assert not Client.objects.filter(owner__isnull=False).exists()  # no player registered one


@pytest.mark.parametrize(
    "uri",
    [
        "https://app.example/callback?x=1",
        "http://127.0.0.1:8123/cb",
        "http://[::1]/cb",
        "com.example.scorpion:/oauth",
    ],
)
def test_good_redirect_uris_pass(uri: str) -> None:
    validate_redirect_uri(uri)


def test_a_confidential_app_needs_a_redirect_uri(player: Player) -> None:
    page = new_app(browser_for(player), redirect_uris="")
    assert "signs players in by redirect" in page.content.decode()
    assert not Client.objects.filter(owner__isnull=False).exists()  # no player registered one


def test_the_developer_changes_the_name_and_redirect_uris(player: Player) -> None:
    browser = browser_for(player)
    client: Client = new_app(browser).context["app"]
    saved = post(
        browser,
        f"/developers/apps/{client.pk}/",
        {"name": "Renamed", "redirect_uris": "https://a.example/cb\nhttps://b.example/cb"},
    )
    assert saved.status_code == 302
    client.refresh_from_db()
    assert client.name == "Renamed"
    assert client.get_redirect_uris() == ["https://a.example/cb", "https://b.example/cb"]
    bad = post(browser, f"/developers/apps/{client.pk}/", {"name": "", "redirect_uris": ""})
    assert bad.status_code == 400


def test_a_new_secret_replaces_the_old_one_at_once(player: Player) -> None:
    browser = browser_for(player)
    created = new_app(browser)
    client, old = created.context["app"], created.context["secret"]
    tokens = authorize(player, App(client, old), "games:play")

    page = post(browser, f"/developers/apps/{client.pk}/secret/")
    new = page.context["secret"]
    assert new
    assert new != old
    assert new in page.content.decode()

    refused = refresh(App(client, old), tokens.refresh_token)
    assert refused.status_code == 401
    assert refused.json()["error"] == "invalid_client"
    renewed = tokens_from(refresh(App(client, new), tokens.refresh_token))
    # The players' grants stay.
    assert bearer(renewed.access_token).post("/api/v1/games/", {}, format="json").status_code == 201
    assert bearer(tokens.access_token).post("/api/v1/games/", {}, format="json").status_code == 201


def test_deleting_the_app_ends_every_access(player: Player) -> None:
    browser = browser_for(player)
    created = new_app(browser)
    client, secret = created.context["app"], created.context["secret"]
    tokens = authorize(player, App(client, secret), "games:play")
    gone = post(browser, f"/developers/apps/{client.pk}/delete/")
    assert gone.status_code == 302
    assert not Client.objects.filter(owner__isnull=False).exists()  # no player registered one
    assert not Token.objects.exists()
    assert bearer(tokens.access_token).post("/api/v1/games/", {}, format="json").status_code == 401


def test_another_players_app_is_a_404_everywhere(
    player: Player, make_player: Callable[[], Player]
) -> None:
    client: Client = new_app(browser_for(player)).context["app"]
    stranger = browser_for(make_player())
    assert stranger.get(f"/developers/apps/{client.pk}/").status_code == 404
    for action in ("", "secret/", "delete/"):
        response = post(stranger, f"/developers/apps/{client.pk}/{action}", {"name": "Mine now"})
        assert response.status_code == 404, action
    client.refresh_from_db()
    assert client.name == "My Client"
    assert "My Client" not in stranger.get("/developers/apps/").content.decode()


def test_the_pages_need_a_signed_in_player(client: Any) -> None:
    for path in ("/developers/apps/", "/developers/apps/new/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/?next=")


def test_writes_need_the_csrf_token(player: Player) -> None:
    browser = browser_for(player)
    forged = browser.post("/developers/apps/new/", {"name": "X", "kind": "public"})
    assert forged.status_code == 403
    assert not Client.objects.filter(owner__isnull=False).exists()  # no player registered one


def test_a_developer_has_at_most_twenty_apps(player: Player) -> None:
    from django.contrib.auth.models import User

    owner = User.objects.get(email=player.email)
    for number in range(services.MAX_APPS_PER_DEVELOPER):
        services.app_register(owner=owner, name=f"App {number}", redirect_uris=[], public=True)
    page = new_app(browser_for(player), kind="public")
    assert page.status_code == 200
    assert "You already have 20 apps" in page.content.decode()


def test_a_guest_registers_no_app_and_is_told_to_sign_up() -> None:
    """Finding 3: a guest registered apps (an app outliving the guest's purge, ownerless)."""
    browser = BrowserClient(enforce_csrf_checks=True)
    token = csrf_token(browser)
    made = browser.post(
        "/api/v1/guest/", content_type="application/json", headers={"X-CSRFToken": token}
    )
    assert made.status_code == 201
    for page in (browser.get("/developers/apps/new/"), new_app(browser)):
        assert page.status_code == 403
        assert "sign up first" in page.content.decode()
    assert not Client.objects.filter(owner_id=made.json()["id"]).exists()
    guest = User.objects.get(pk=made.json()["id"])
    with pytest.raises(ValidationError, match="sign up first"):
        services.app_register(owner=guest, name="Bot", redirect_uris=[], public=True)
