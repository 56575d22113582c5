"""Sign-up, log-in, log-out and the account endpoints through the SDK."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from scorpion_client import (
    AuthenticationError,
    NotFound,
    PermissionDenied,
    Scorpion,
    ValidationError,
)

from tests.sdk.conftest import PASSWORD, new_email

pytestmark = pytest.mark.django_db(transaction=True)


def test_signup_login_logout(make_client: Callable[..., Scorpion], server_url: str) -> None:
    email = new_email()
    client = make_client(signed_up=False)
    session = client.auth.signup(email, PASSWORD)
    assert session.token
    assert client.token == session.token
    assert session.email == email
    me = client.me.get()
    assert me.email == email
    assert me.date_joined is not None

    other = make_client(signed_up=False)
    other.auth.login(email, PASSWORD)
    assert other.token
    assert other.token != client.token
    assert other.me.get().id == me.id

    old_token = client.token
    client.auth.logout()
    assert client.token is None
    with Scorpion(server_url, token=old_token) as stale, pytest.raises(AuthenticationError):
        stale.me.get()
    assert other.me.get().email == email  # the other session lives on

    # An existing token is enough to build a client.
    with Scorpion(server_url, token=other.token) as again:
        assert again.me.get().id == me.id


def test_signup_twice_is_a_validation_error(make_client: Callable[..., Scorpion]) -> None:
    email = new_email()
    make_client(signed_up=False).auth.signup(email, PASSWORD)
    with pytest.raises(ValidationError) as caught:
        make_client(signed_up=False).auth.signup(email, PASSWORD)
    assert caught.value.status == 400
    assert "email" in caught.value.errors
    assert caught.value.detail


def test_new_player_summary_stats_and_export(client: Scorpion) -> None:
    today = client.daily.today()
    assert today.game is None
    assert today.solved is False
    assert today.attempts == 0
    stats = client.stats.get()
    assert (stats.played, stats.won, stats.win_rate) == (0, 0, None)
    assert set(stats.modes) >= {"random", "seeded", "daily", "winnable"}
    game = client.games.create(seed=9)
    game.deal()
    exported = client.me.export()
    assert exported["account"]
    assert [g["id"] for g in exported["games"]] == [game.id]


def test_deleting_data_then_the_account(client: Scorpion, server_url: str) -> None:
    client.games.create().deal()
    deleted = client.me.delete_data()
    assert deleted["games"] == 1
    assert deleted["events"] == 1
    assert client.games.list().count == 0
    assert client.me.get().email  # the account stays

    token = client.token
    assert client.me.delete_account()["account"] == 1
    assert client.token is None
    with Scorpion(server_url, token=token) as gone, pytest.raises(AuthenticationError):
        gone.me.get()


def test_display_name_apps_and_a_games_result(client: Scorpion) -> None:
    me = client.me.set_display_name("Ann Lee")
    assert (me.display_name, me.guest) == ("Ann Lee", False)
    assert client.me.get().display_name == "Ann Lee"
    with pytest.raises(ValidationError) as refused:
        client.me.set_display_name("ann@example.com")
    assert refused.value.status == 400
    assert client.me.set_display_name("").display_name == ""

    assert client.me.apps() == []  # no third-party app holds a token of this player
    with pytest.raises(NotFound):
        client.me.revoke_app("no-such-app")

    game = client.games.create(seed=9)
    game.resign()
    result = client.games.result(game)
    assert (result["status"], result["first_win"]) == ("resigned", False)


def test_personal_access_tokens_through_the_sdk(client: Scorpion, server_url: str) -> None:
    made = client.me.create_token("nightly", ["stats:read"], days=30)
    assert made["token"].startswith("scp_")
    assert [token["name"] for token in client.me.tokens()] == ["nightly"]
    with Scorpion(server_url, made["token"], token_type="bearer") as script:
        assert script.stats.get().played == 0
        with pytest.raises(PermissionDenied):
            script.me.get()  # account:read was not chosen
    client.me.revoke_token(made["id"])
    assert client.me.tokens() == []
    revoked = Scorpion(server_url, made["token"], token_type="bearer")
    with revoked, pytest.raises(AuthenticationError):
        revoked.stats.get()
