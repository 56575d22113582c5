"""The pages for third-party apps read French too (docs/web.md, "Languages"): a player's apps
and personal access tokens, the developer's app pages, the consent page, the device pages,
the provider's error and log-out pages, each with what its forms and notices say, for a
French browser and for an account that chose French behind an English one. The check is the
one every other page passes (tests/site/test_languages.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.test import Client

from accounts.models import Profile
from accounts.oauth import services
from tests.accounts.conftest import (
    AUTHORIZE_URL,
    DEVICE_CODE_URL,
    DEVICE_URL,
    REDIRECT_URI,
    authorize_params,
    pkce_pair,
    register,
    token_request,
    tokens_from,
)
from tests.site.test_languages import assert_reads_french

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _loose_device_code_limit(settings: Any) -> None:
    """allauth allows 5 device-code checks a minute per address; the pages below make more."""
    settings.IDP_OIDC_RATE_LIMITS = {"device_user_code": "1000/m/ip"}


def reader(*, chosen: bool) -> tuple[Client, User]:
    """A signed-in player who reads French: by the browser's Accept-Language, or by the
    account's own choice behind a browser that asks for English."""
    user = User.objects.create_user("ann", "ann@example.com", "a long password 42")
    Profile.objects.update_or_create(user=user, defaults={"language": "fr" if chosen else ""})
    browser = Client(HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9" if chosen else "fr-FR,fr;q=0.9")
    browser.force_login(user)
    return browser, user


def start_device_flow(client_id: str, scope: str) -> str:
    """The user code a terminal client shows, from the real device-code endpoint."""
    answer = Client().post(
        DEVICE_CODE_URL,
        urlencode({"client_id": client_id, "scope": scope}),
        content_type="application/x-www-form-urlencoded",
    )
    assert answer.status_code == 200, answer.content
    return str(answer.json()["user_code"])


def players_pages(browser: Client, user: User) -> Iterator[tuple[str, HttpResponse, int]]:
    """The apps a player allowed and their tokens, with every notice and refusal."""
    services.personal_token_create(user=user, name="my bot", scopes=["games:read"], days=None)
    yield "apps", browser.get("/account/apps/"), 200
    made = browser.post(
        "/account/tokens/new/", {"name": "scores", "scopes": ["stats:read"], "days": "30"}
    )
    yield "token made", made, 201
    yield "token refused", browser.post("/account/tokens/new/", {"name": ""}), 400
    old, _ = services.personal_token_create(user=user, name="old", scopes=["games:read"], days=7)
    revoked = browser.post(f"/account/tokens/{old.pk}/revoke/", follow=True)
    yield "token revoked", revoked, 200
    yield "no such token", browser.post("/account/tokens/999999/revoke/", follow=True), 200
    yield "no such app", browser.post("/account/apps/nope/revoke/", follow=True), 200


def developer_pages(browser: Client, user: User) -> Iterator[tuple[str, HttpResponse, int]]:
    """A developer's apps: the list, registering one (refused, then done), its page, a new
    secret, saving, a suspended bot, deleting."""
    yield "no apps yet", browser.get("/developers/apps/"), 200
    yield "register", browser.get("/developers/apps/new/"), 200
    refused = {"name": " ", "kind": "confidential", "app_kind": "client"}
    refused["redirect_uris"] = "http://app.example/cb\nftp://x"
    yield "register refused", browser.post("/developers/apps/new/", refused), 200
    new = {"name": "Robo", "kind": "confidential", "app_kind": "client"}
    yield (
        "registered",
        browser.post("/developers/apps/new/", new | {"redirect_uris": REDIRECT_URI}),
        201,
    )
    bot, _ = services.app_register(
        owner=user, name="Bot", redirect_uris=[], public=True, kind="bot"
    )
    services.app_suspend(app=bot, by=None, reason="plays too fast")
    yield "apps", browser.get("/developers/apps/"), 200
    yield "suspended bot", browser.get(f"/developers/apps/{bot.pk}/"), 200
    app = services.app_register(
        owner=user, name="Robo 2", redirect_uris=[REDIRECT_URI], public=False, kind="client"
    )[0]
    yield "confidential app", browser.get(f"/developers/apps/{app.pk}/"), 200
    yield "new secret", browser.post(f"/developers/apps/{app.pk}/secret/"), 200
    saved = browser.post(f"/developers/apps/{app.pk}/", {"name": "Robo 3", "redirect_uris": ""})
    yield "save refused", saved, 400
    saved = browser.post(
        f"/developers/apps/{app.pk}/",
        {"name": "Robo 3", "redirect_uris": REDIRECT_URI},
        follow=True,
    )
    yield "saved", saved, 200
    yield "deleted", browser.post(f"/developers/apps/{app.pk}/delete/", follow=True), 200


def provider_pages(browser: Client, user: User) -> Iterator[tuple[str, HttpResponse, int]]:
    """The provider's pages: consent (refused, then answered), its error pages, the device
    pages (a wrong code, allowed, denied) and the log-out question."""
    app = register()  # another developer's public app, "Robo Player"
    client = app.client
    verifier, challenge = pkce_pair()
    asks = authorize_params(app, "games:play stats:read social:read", challenge)
    consent = browser.get(AUTHORIZE_URL, asks)
    yield "consent", consent, 200
    body = {"request": consent.context["form"]["request"].value(), "action": "grant"}
    yield "consent without a scope", browser.post(AUTHORIZE_URL, body), 200
    granted = browser.post(AUTHORIZE_URL, body | {"scopes": ["games:play"]})
    assert granted.status_code == 302, granted.content
    code = parse_qs(urlsplit(granted["Location"]).query)["code"][0]
    exchange = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier}
    tokens_from(token_request(app, exchange | {"redirect_uri": REDIRECT_URI}))
    allowed = browser.get("/account/apps/")
    assert "Robo Player" in allowed.content.decode()
    yield "allowed apps", allowed, 200
    yield (
        "unregistered redirect",
        browser.get(AUTHORIZE_URL, asks | {"redirect_uri": "https://x.example/"}),
        400,
    )
    yield "no PKCE", browser.get(AUTHORIZE_URL, asks | {"code_challenge": ""}), 400
    # allauth's error page for what oauthlib refuses (answered 200): oauthlib's English words
    # are kept for the app's developer, marked lang="en", under a French summary.
    refused = browser.get(AUTHORIZE_URL, asks | {"client_id": "no-such-app"})
    assert '<p lang="en"><code>invalid_request</code>' in refused.content.decode()
    yield "oauthlib's refusal", refused, 200

    yield "device code", browser.get(DEVICE_URL), 200
    yield "wrong device code", browser.get(DEVICE_URL, {"code": "WRONG-CODE"}), 200
    code = start_device_flow(str(client.pk), "games:play stats:read")
    yield "device consent", browser.get(DEVICE_URL, {"code": code}), 200
    url = f"{DEVICE_URL}?{urlencode({'code': code})}"
    yield "device allowed", browser.post(url, {"action": "confirm"}), 200
    code = start_device_flow(str(client.pk), "games:read")
    yield "device consent again", browser.get(DEVICE_URL, {"code": code}), 200
    url = f"{DEVICE_URL}?{urlencode({'code': code})}"
    yield "device denied", browser.post(url, {"action": "deny"}), 200
    code = start_device_flow(str(client.pk), "games:play")
    services.app_suspend(app=client, by=None)
    yield "suspended app's device", browser.get(DEVICE_URL, {"code": code}), 400
    yield "suspended app's consent", browser.get(AUTHORIZE_URL, asks), 400
    yield "an allowed app suspended", browser.get("/account/apps/"), 200
    yield "log out", browser.get("/identity/o/logout"), 200


@pytest.mark.parametrize("chosen", [False, True], ids=["accept-language", "account-choice"])
@pytest.mark.parametrize("pages", [players_pages, developer_pages, provider_pages])
def test_the_apps_pages_show_no_english_sentence_in_french(chosen: bool, pages: Any) -> None:
    browser, user = reader(chosen=chosen)
    seen = 0
    for what, response, status in pages(browser, user):
        assert_reads_french(response, what, status=status)
        seen += 1
    assert seen >= 6


def test_a_guest_is_told_in_french_that_it_registers_no_apps() -> None:
    guest = Client(HTTP_ACCEPT_LANGUAGE="fr")
    assert guest.post("/api/v1/guest/", content_type="application/json").status_code == 201
    html = assert_reads_french(guest.get("/developers/apps/"), "guest", status=403)
    assert "Un compte invité ne peut pas enregistrer" in html
    made = guest.post("/account/tokens/new/", {"name": "x", "scopes": ["games:read"]})
    assert "Un compte invité ne peut pas créer de jetons" in assert_reads_french(
        made, "guest's token", status=403
    )


def test_the_consent_page_names_the_scopes_in_french() -> None:
    """The scopes' descriptions are English in accounts/scopes.py (the API's docs), French on
    the page; the check above would not see a short English one."""
    browser, _ = reader(chosen=False)
    _, challenge = pkce_pair()
    page = browser.get(AUTHORIZE_URL, authorize_params(register(), "games:play email", challenge))
    html = assert_reads_french(page, "consent")
    assert "Commencer des parties, jouer des coups et demander des indices en votre nom" in html
    assert "Voir votre adresse électronique" in html
    assert "Robo Player</span> veut utiliser votre compte Scorpion" in html
