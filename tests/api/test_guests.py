"""Guest play: a visitor plays at once on a guest account kept by the browser session, signs
up later keeping its games, and is limited, cleaned up and named like the rules say."""

from __future__ import annotations

import datetime
import re
import uuid
from typing import Any
from unittest import mock
from urllib.parse import unquote

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from accounts import guests
from accounts.models import Profile
from games.models import DailyDeal, Game
from infrastructure.throttles import GuestRateThrottle
from players import tasks
from stats.models import PlayerStats
from tests.api.conftest import WON_DEAL, sign_up

pytestmark = pytest.mark.django_db
CODE = WON_DEAL["code"]
LINE = WON_DEAL["line"]
PASSWORD = "a long password 42"
AUTH = "/_allauth/browser/v1"


class Browser:
    """A browser: session and CSRF cookies, the CSRF token sent on writes, as web/js/api.js."""

    def __init__(self) -> None:
        self.client = Client(enforce_csrf_checks=True)
        self.client.get("/")  # sets the CSRF cookie

    @property
    def token(self) -> str:
        return self.client.cookies["csrftoken"].value

    def get(self, path: str) -> Any:
        return self.client.get(path)

    def send(self, method: str, path: str, body: Any = None, *, csrf: bool = True) -> Any:
        headers = {"X-CSRFToken": self.token} if csrf else {}
        return getattr(self.client, method)(
            path, body if body is not None else {}, content_type="application/json", headers=headers
        )

    def post(self, path: str, body: Any = None, *, csrf: bool = True) -> Any:
        return self.send("post", path, body, csrf=csrf)

    def play_to_win(self, game_id: str) -> None:
        for step in LINE:
            response = self.post(f"/api/v1/games/{game_id}/commands/", step)
            assert response.status_code == 200, response.content


def guest_browser() -> tuple[Browser, dict[str, Any]]:
    browser = Browser()
    response = browser.post("/api/v1/guest/")
    assert response.status_code == 201, response.content
    return browser, response.json()


def test_a_visitor_plays_at_once_as_a_guest() -> None:
    browser, me = guest_browser()
    assert me["guest"] is True
    assert me["email"] == ""
    game = browser.post("/api/v1/games/", {"code": CODE})
    assert game.status_code == 201
    browser.play_to_win(game.json()["id"])
    assert browser.get("/api/v1/stats/").json()["won"] == 1
    assert browser.get("/api/v1/me/").json()["guest"] is True
    # The pages are the guest's too (no sign-up wall).
    assert browser.get("/stats/").status_code == 200
    user = User.objects.get(pk=me["id"])
    assert not user.has_usable_password()


def test_asking_again_makes_no_second_guest() -> None:
    browser, me = guest_browser()
    again = browser.post("/api/v1/guest/")
    assert again.status_code == 200
    assert again.json()["id"] == me["id"]
    assert Profile.objects.filter(guest=True).count() == 1


def test_a_guest_is_not_made_without_the_csrf_token() -> None:
    """Another site cannot sign a visitor's browser in as a guest of its making."""
    browser = Browser()
    response = browser.post("/api/v1/guest/", csrf=False)
    assert response.status_code == 403
    assert not User.objects.exists()


def test_guests_are_throttled_per_address() -> None:
    with mock.patch.dict(GuestRateThrottle.THROTTLE_RATES, {"guest": "3/hour"}):
        made = [Browser().post("/api/v1/guest/").status_code for _ in range(5)]
    assert made == [201, 201, 201, 429, 429]
    assert Profile.objects.filter(guest=True).count() == 3


def test_signing_up_keeps_the_guests_games_and_statistics() -> None:
    browser, me = guest_browser()
    game = browser.post("/api/v1/games/", {"code": CODE}).json()
    browser.play_to_win(game["id"])
    response = browser.post(
        f"{AUTH}/auth/signup", {"email": "kept@example.com", "password": PASSWORD}
    )
    assert response.status_code == 200, response.content
    assert response.json()["data"]["user"]["id"] == me["id"]
    account = browser.get("/api/v1/me/").json()
    assert (account["id"], account["guest"], account["email"]) == (
        me["id"],
        False,
        "kept@example.com",
    )
    assert User.objects.count() == 1
    assert Game.objects.get(pk=game["id"]).owner_id == me["id"]
    assert PlayerStats.objects.get(user_id=me["id"], mode="all").won == 1
    # And the account is an ordinary one: log in elsewhere, find the game.
    other = sign_in("kept@example.com", PASSWORD)
    listed = other.get("/api/v1/games/?status=won").json()["results"]
    assert [g["id"] for g in listed] == [game["id"]]
    assert other.get("/api/v1/stats/").json()["won"] == 1


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/account/email", {"email": "taken@example.com"}),
        ("/account/password/change", {"new_password": PASSWORD}),
    ],
)
def test_a_guest_takes_no_address_or_password_without_signing_up(
    path: str, body: dict[str, str]
) -> None:
    """Finding 3: allauth took both from a guest's session (no current password asked), and
    the account stayed a guest that could log in anywhere, nameless, purged when idle."""
    browser, me = guest_browser()
    response = browser.post(f"{AUTH}{path}", body)
    assert response.status_code == 403, response.content
    error = response.json()["errors"][0]
    assert error["code"] == "guest_must_sign_up"
    assert "sign up" in error["message"]
    user = User.objects.get(pk=me["id"])
    assert (user.email, user.has_usable_password()) == ("", False)
    assert not user.emailaddress_set.exists()
    assert browser.get("/api/v1/me/").json()["guest"] is True
    # The sign-up itself, from the same session, still converts the guest.
    signed_up = browser.post(
        f"{AUTH}/auth/signup", {"email": "later@example.com", "password": PASSWORD}
    )
    assert signed_up.status_code == 200, signed_up.content
    assert signed_up.json()["data"]["user"]["id"] == me["id"]


def test_a_guest_sets_no_password_on_allauths_pages() -> None:
    browser, me = guest_browser()
    for path in ("/accounts/password/set/", "/accounts/password/change/", "/accounts/email/"):
        page = browser.client.post(
            path,
            {"password1": PASSWORD, "password2": PASSWORD, "email": "p@example.com"},
            headers={"X-CSRFToken": browser.token},
        )
        assert (page.status_code, page["Location"]) == (302, "/account/"), path
    user = User.objects.get(pk=me["id"])
    assert (user.email, user.has_usable_password()) == ("", False)


def test_a_player_still_changes_their_password_and_adds_addresses() -> None:
    sign_up("changer@example.com", PASSWORD)
    browser = sign_in("changer@example.com", PASSWORD)
    changed = browser.post(
        f"{AUTH}/account/password/change",
        {"current_password": PASSWORD, "new_password": "another " + PASSWORD},
    )
    assert changed.status_code == 200, changed.content
    added = browser.post(f"{AUTH}/account/email", {"email": "second@example.com"})
    assert added.status_code == 200, added.content


def sign_in(email: str, password: str) -> Browser:
    browser = Browser()
    response = browser.post(f"{AUTH}/auth/login", {"email": email, "password": password})
    assert response.status_code == 200, response.content
    return browser


def test_a_guest_cannot_take_over_an_existing_account() -> None:
    owner = sign_up("owner@example.com", PASSWORD)
    owner_game = owner.new_game(code=CODE)
    browser, me = guest_browser()
    guest_game = browser.post("/api/v1/games/", {"code": CODE}).json()
    # Signing up with the owner's e-mail: refused (or a mail to the owner), never a merge.
    browser.post(f"{AUTH}/auth/signup", {"email": "owner@example.com", "password": "x" + PASSWORD})
    assert Profile.objects.get(user_id=me["id"]).guest is True
    assert User.objects.get(pk=me["id"]).email == ""
    # Logging in from the guest's session with a wrong password: nothing either.
    wrong = browser.post(f"{AUTH}/auth/login", {"email": "owner@example.com", "password": "no"})
    assert wrong.status_code == 400
    owner_user = User.objects.get(email="owner@example.com")
    assert list(Game.objects.filter(owner=owner_user).values_list("pk", flat=True)) == [
        uuid.UUID(owner_game["id"])
    ]
    assert Game.objects.get(pk=guest_game["id"]).owner_id == me["id"]
    # The owner still logs in with their own password.
    sign_in("owner@example.com", PASSWORD)


def listed_games(browser: Browser) -> list[str]:
    response = browser.get("/api/v1/games/")
    assert response.status_code == 200, response.content
    return [game["id"] for game in response.json()["results"]]


def log_in(browser: Browser, email: str, password: str) -> Any:
    return browser.post(f"{AUTH}/auth/login", {"email": email, "password": password})


def test_a_guests_failed_log_in_elsewhere_leaves_the_guest_signed_in() -> None:
    """A guest has no password: signed out, its games could never be reached again."""
    sign_up("owner@example.com", PASSWORD)
    browser, me = guest_browser()
    game = browser.post("/api/v1/games/", {"code": CODE}).json()
    session = browser.client.cookies["sessionid"].value

    wrong = log_in(browser, "owner@example.com", "not the password")
    assert wrong.status_code == 400, wrong.content
    unknown = log_in(browser, "nobody@example.com", PASSWORD)
    assert unknown.status_code == 400, unknown.content

    assert browser.client.cookies["sessionid"].value == session
    assert browser.get("/api/v1/me/").json()["id"] == me["id"]
    assert listed_games(browser) == [game["id"]]
    # And the guest goes on playing.
    assert browser.post(f"/api/v1/games/{game['id']}/commands/", LINE[0]).status_code == 200


def test_a_guests_right_log_in_switches_the_browser_to_the_account() -> None:
    owner = sign_up("owner@example.com", PASSWORD)
    owner_game = owner.new_game(code=CODE)
    browser, me = guest_browser()
    guest_game = browser.post("/api/v1/games/", {"code": CODE}).json()
    guest_session = browser.client.cookies["sessionid"].value

    right = log_in(browser, "owner@example.com", PASSWORD)
    assert right.status_code == 200, right.content
    owner_id = User.objects.get(email="owner@example.com").pk
    assert right.json()["data"]["user"]["id"] == owner_id

    # A new session (Django's login rotates it), holding nothing of the guest's.
    assert browser.client.cookies["sessionid"].value != guest_session
    assert browser.get("/api/v1/me/").json()["id"] == owner_id
    assert listed_games(browser) == [owner_game["id"]]
    # Nothing merged: the guest's game is still the guest's, the guest still a guest.
    assert Game.objects.get(pk=guest_game["id"]).owner_id == me["id"]
    assert Profile.objects.get(user_id=me["id"]).guest is True
    # The guest's old session key no longer signs anyone in.
    stale = Browser()
    stale.client.cookies["sessionid"] = guest_session
    assert stale.get("/api/v1/me/").status_code in (401, 403)


def test_another_site_cannot_log_a_guests_browser_in_to_an_account() -> None:
    """Log-in CSRF: a guest's session is now open to a log-in, so the token must be checked."""
    sign_up("attacker@example.com", PASSWORD)
    browser, me = guest_browser()
    forged = browser.post(
        f"{AUTH}/auth/login", {"email": "attacker@example.com", "password": PASSWORD}, csrf=False
    )
    assert forged.status_code == 403
    assert browser.get("/api/v1/me/").json()["id"] == me["id"]


def test_a_guests_log_in_says_no_more_than_anyones() -> None:
    """Whether an address has an account: a guest learns what allauth tells anyone."""
    sign_up("owner@example.com", PASSWORD)
    guest, _ = guest_browser()
    anyone = Browser()
    for email, password in [("owner@example.com", "wrong"), ("nobody@example.com", "wrong")]:
        as_guest = log_in(guest, email, password)
        as_anyone = log_in(anyone, email, password)
        assert (as_guest.status_code, as_guest.json()) == (as_anyone.status_code, as_anyone.json())


def test_a_guests_failed_log_ins_are_limited_as_anyones(settings: Any) -> None:
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "login_failed": "3/5m/key"}
    sign_up("owner@example.com", PASSWORD)
    browser, me = guest_browser()
    answers = [log_in(browser, "owner@example.com", "wrong").status_code for _ in range(4)]
    assert answers == [400, 400, 400, 429]
    # Over the limit, even the right password is refused, and the guest is still signed in.
    limited = log_in(browser, "owner@example.com", PASSWORD)
    assert limited.status_code == 429
    assert limited.json()["code"] == "throttled"
    assert int(limited["Retry-After"]) > 0
    assert browser.get("/api/v1/me/").json()["id"] == me["id"]


def test_a_guests_log_ins_count_against_the_address_limit(settings: Any) -> None:
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "login": "2/m/ip"}
    sign_up("owner@example.com", PASSWORD)
    browser, me = guest_browser()
    answers = [log_in(browser, "owner@example.com", "wrong").status_code for _ in range(3)]
    assert answers == [400, 400, 429]
    assert browser.get("/api/v1/me/").json()["id"] == me["id"]


def test_a_signed_in_player_still_gets_allauths_conflict_on_log_in() -> None:
    sign_up("owner@example.com", PASSWORD)
    sign_up("other@example.com", PASSWORD)
    player = sign_in("owner@example.com", PASSWORD)
    again = log_in(player, "other@example.com", PASSWORD)
    assert again.status_code == 409
    assert player.get("/api/v1/me/").json()["email"] == "owner@example.com"


def test_a_guests_log_in_waiting_for_a_confirmed_address_keeps_the_guest(
    settings: Any, mailoutbox: list[Any]
) -> None:
    """allauth's e-mail verification runs as for anyone: the log-in waits for the address to
    be confirmed, the guest playing on meanwhile."""
    # Signed up while verification was optional: signed in at once, the mail still unanswered
    # (allauth sends the log-in no second one so soon).
    sign_up("unproven@example.com", PASSWORD)
    settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory"
    browser, me = guest_browser()
    game = browser.post("/api/v1/games/", {"code": CODE}).json()

    pending = log_in(browser, "unproven@example.com", PASSWORD)
    assert pending.status_code == 401, pending.content
    flows = {flow["id"] for flow in pending.json()["data"]["flows"] if flow.get("is_pending")}
    assert flows == {"verify_email"}
    assert browser.get("/api/v1/me/").json()["id"] == me["id"]
    assert listed_games(browser) == [game["id"]]

    key = re.search(r"/account/verify-email/([^/\s]+)/", mailoutbox[-1].body)
    assert key is not None, mailoutbox[-1].body
    verified = browser.post(f"{AUTH}/auth/email/verify", {"key": unquote(key.group(1))})
    assert verified.status_code == 200, verified.content
    # The address confirmed, the guest is still signed in; its log-in now goes through.
    assert browser.get("/api/v1/me/").json()["id"] == me["id"]
    assert log_in(browser, "unproven@example.com", PASSWORD).status_code == 200
    assert browser.get("/api/v1/me/").json()["email"] == "unproven@example.com"
    assert Game.objects.get(pk=game["id"]).owner_id == me["id"]


def test_idle_guests_are_deleted_with_their_games_and_others_are_kept() -> None:
    long_ago = timezone.now() - datetime.timedelta(days=40)
    idle = guests.guest_create()
    playing = guests.guest_create()
    fresh = guests.guest_create()
    converted = guests.guest_create()
    Profile.objects.filter(user=converted).update(guest=False)
    User.objects.filter(pk__in=[idle.pk, playing.pk, converted.pk]).update(date_joined=long_ago)
    old_game = Game.objects.create(owner=idle, deal_code=CODE, state={})
    Game.objects.filter(pk=old_game.pk).update(updated_at=long_ago)
    Game.objects.create(owner=playing, deal_code=CODE, state={})  # played today
    with mock.patch("django.conf.settings.GUEST_IDLE_DAYS", 30):
        assert tasks.delete_idle_guests() == 1
        assert tasks.delete_idle_guests() == 0  # idempotent
    assert set(User.objects.values_list("pk", flat=True)) == {playing.pk, fresh.pk, converted.pk}
    assert not Game.objects.filter(pk=old_game.pk).exists()


def test_a_deleted_guests_browser_is_simply_signed_out() -> None:
    browser, me = guest_browser()
    User.objects.filter(pk=me["id"]).delete()
    assert browser.get("/api/v1/me/").status_code in (401, 403)
    assert browser.post("/api/v1/guest/").status_code == 201  # and may play again


def test_leaderboards_show_guests_as_guest_and_players_by_their_name() -> None:
    today = timezone.now().date()
    DailyDeal.objects.create(date=today, candidate=0, seed=5, deal_code=CODE, certificate=LINE)
    browser, _ = guest_browser()
    game = browser.post("/api/v1/games/", {"mode": "daily"}).json()
    browser.play_to_win(game["id"])
    named = sign_up("named@example.com", PASSWORD)
    assert (
        named.client.patch("/api/v1/me/", {"display_name": "Ann Lee"}, format="json").status_code
        == 200
    )
    daily = named.new_game(mode="daily")
    for step in LINE:
        named.command(daily["id"], step)
    board = named.get(f"/api/v1/daily/{today.isoformat()}/leaderboard/").json()
    players = sorted(entry["player"] for entry in board["results"])
    assert players[0].startswith("Ann Lee#")
    assert players[1] == "Guest"


@pytest.mark.parametrize(
    "name", ["Guest", "a@b.example", "A***#3f9c", "trailing.", "x" * 31, "two  spaces", "-dash"]
)
def test_display_names_that_could_mislead_are_refused(name: str) -> None:
    player = sign_up("naming@example.com", PASSWORD)
    response = player.client.patch("/api/v1/me/", {"display_name": name}, format="json")
    assert response.status_code == 400, name
    assert response.json()["code"] == "validation_error"


def test_a_guest_signs_up_before_choosing_a_name() -> None:
    browser, _ = guest_browser()
    response = browser.send("patch", "/api/v1/me/", {"display_name": "Sneaky"})
    assert response.status_code == 403


def test_with_mandatory_verification_a_guests_sign_up_waits_for_the_mail(settings: Any) -> None:
    """The guest's session does not become a signed-in account with an unproven address:
    setting the password ends it (Django's session hash), and the account is usable once the
    address is confirmed, with the guest's games."""
    settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory"
    browser, me = guest_browser()
    game = browser.post("/api/v1/games/", {"code": CODE}).json()
    response = browser.post(
        f"{AUTH}/auth/signup", {"email": "proven@example.com", "password": PASSWORD}
    )
    assert response.status_code == 401  # pending: verify_email
    assert browser.get("/api/v1/me/").status_code in (401, 403)
    user = User.objects.get(pk=me["id"])
    assert user.email == "proven@example.com"
    from allauth.account.models import EmailAddress

    assert not EmailAddress.objects.get(user=user).verified
    # Unverified, the account cannot log in; confirmed, it can, and the game is there.
    refused = Browser().post(
        f"{AUTH}/auth/login", {"email": "proven@example.com", "password": PASSWORD}
    )
    assert refused.status_code == 401
    EmailAddress.objects.filter(user=user).update(verified=True)
    again = sign_in("proven@example.com", PASSWORD)
    assert again.get(f"/api/v1/games/{game['id']}/").status_code == 200


class _SignupForm:
    def __init__(self, email: str) -> None:
        self.cleaned_data = {"email": email, "password1": PASSWORD}


def test_two_racing_sign_ups_from_one_guest_never_overwrite_each_other() -> None:
    # Both requests left the guest session before either saved: allauth handed both the
    # guest's row (new_user). The first converts the guest; the second must not write its
    # e-mail and password over the first's, and becomes an account of its own.
    from django.test import RequestFactory

    from accounts.adapter import AccountAdapter
    from accounts.middleware import GUEST_ATTRIBUTE

    browser, guest = guest_browser()
    game = browser.post("/api/v1/games/", {"mode": "random"}).json()
    guest_user = User.objects.get(pk=guest["id"])
    adapter = AccountAdapter()
    requests = []
    for _ in range(2):
        request = RequestFactory().post("/_allauth/browser/v1/auth/signup")
        setattr(request, GUEST_ATTRIBUTE, guest_user)
        requests.append(request)
    first_row, second_row = (adapter.new_user(request) for request in requests)
    assert first_row.pk == second_row.pk == guest_user.pk

    adapter.save_user(requests[0], first_row, _SignupForm("first@example.com"))
    adapter.save_user(requests[1], second_row, _SignupForm("second@example.com"))

    converted = User.objects.get(pk=guest_user.pk)
    assert converted.email == "first@example.com"
    assert converted.check_password(PASSWORD)
    assert not Profile.objects.get(user=converted).guest
    assert Game.objects.get(pk=game["id"]).owner_id == converted.pk
    other = User.objects.get(email="second@example.com")
    assert other.pk != converted.pk
    assert not Game.objects.filter(owner=other).exists()
