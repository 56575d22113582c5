"""Every error the server answers becomes the SDK exception for its problem code."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from scorpion_client import (
    AccessDenied,
    AuthenticationError,
    ConflictError,
    DeviceCodeExpired,
    GameFinished,
    IdempotencyKeyReused,
    IllegalMove,
    NotFound,
    NothingToRedo,
    NothingToUndo,
    OAuthError,
    RuleError,
    Scorpion,
    ScorpionError,
    StockEmpty,
    UnknownCard,
    ValidationError,
    VersionConflict,
)
from scorpion_client._core import error_from_response

from tests.sdk.conftest import PASSWORD, WON_DEAL, new_email

pytestmark = pytest.mark.django_db(transaction=True)


def test_rule_errors_carry_code_status_and_detail(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])

    with pytest.raises(IllegalMove) as illegal:
        game.move("AS")  # the ace of spades cannot be moved anywhere at the deal
    error = illegal.value
    assert isinstance(error, RuleError)
    assert isinstance(error, ScorpionError)
    assert (error.status, error.code) == (422, "illegal_move")
    assert error.title
    assert error.detail
    assert error.detail in str(error)
    assert error.body["type"].endswith("/illegal_move/")

    with pytest.raises(UnknownCard) as unknown:
        game.move("1Z")
    assert (unknown.value.status, unknown.value.code) == (400, "unknown_card")

    with pytest.raises(NothingToUndo):
        game.undo()
    with pytest.raises(NothingToRedo):
        game.redo()

    game.deal()
    with pytest.raises(StockEmpty) as empty:
        game.deal()
    assert empty.value.status == 422

    assert game.version == 1  # a rejected request changes nothing
    assert client.games.get(game.id).version == 1

    game.resign()
    with pytest.raises(GameFinished) as finished:
        game.undo()
    assert isinstance(finished.value, ConflictError)
    assert finished.value.status == 409


def test_validation_errors_name_the_fields(client: Scorpion) -> None:
    with pytest.raises(ValidationError) as caught:
        client.games.create(code="KD" * 52)
    assert caught.value.status == 400
    assert caught.value.code == "validation_error"
    assert "twice" in str(caught.value)  # the server's detail is the message

    with pytest.raises(ValidationError) as both:
        client.games.create(seed=1, code=WON_DEAL["code"])
    assert both.value.errors

    game = client.games.create()
    with pytest.raises(ValidationError) as typo:
        client.games.command(game.id, {"type": "move", "crad": "8H"})  # type: ignore[typeddict-unknown-key]
    assert "crad" in typo.value.errors


def test_idempotency_key_reused_for_another_command(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    client.games.command(game.id, {"type": "deal"}, idempotency_key="my-key-1")
    replay = client.games.command(game.id, {"type": "deal"}, idempotency_key="my-key-1")
    assert replay.replayed
    assert replay.game.version == 1
    with pytest.raises(IdempotencyKeyReused):
        client.games.command(game.id, {"type": "undo"}, idempotency_key="my-key-1")


def test_version_conflict_between_two_clients(make_client: Callable[..., Scorpion]) -> None:
    email = new_email()
    phone = make_client(signed_up=False)
    phone.auth.signup(email, PASSWORD)
    laptop = make_client(signed_up=False)
    laptop.auth.login(email, PASSWORD)
    assert phone.token != laptop.token

    on_phone = phone.games.create(code=WON_DEAL["code"])
    on_laptop = laptop.games.get(on_phone.id)

    first, second = WON_DEAL["line"][0], WON_DEAL["line"][1]
    on_phone.move(first["card"])  # sends expected_version=0: accepted, now version 1

    with pytest.raises(VersionConflict) as caught:
        on_laptop.move(second["card"], to=second["to"])  # still believes version 0
    conflict = caught.value
    assert (conflict.status, conflict.code) == (409, "version_conflict")
    current = conflict.current_game
    assert current is not None
    assert current.version == 1
    assert current.id == on_phone.id
    # The handle now holds the current game; the same move, chosen again, goes through.
    assert on_laptop.version == 1
    assert on_laptop.columns == on_phone.columns
    on_laptop.move(second["card"], to=second["to"])
    assert on_laptop.version == 2

    # Without a version check the command applies to whatever the game is now.
    result = phone.games.deal(on_phone.id)
    assert result.game.version == 3
    with pytest.raises(VersionConflict):
        phone.games.undo(on_phone.id, expected_version=2)


def test_authentication_errors(make_client: Callable[..., Scorpion], server_url: str) -> None:
    anonymous = make_client(signed_up=False)
    with pytest.raises(AuthenticationError) as caught:
        anonymous.games.list()
    assert (caught.value.status, caught.value.code) == (401, "not_authenticated")

    with Scorpion(server_url, token="not-a-token") as stale, pytest.raises(AuthenticationError):
        stale.me.get()

    # A refused log-in is an AuthenticationError, as documented (allauth answers it with 400).
    with pytest.raises(AuthenticationError) as wrong:
        anonymous.auth.login("nobody@example.com", "wrong password 1")
    assert not isinstance(wrong.value, ValidationError)
    assert (wrong.value.status, wrong.value.code) == (400, "email_password_mismatch")
    assert wrong.value.detail
    assert anonymous.token is None


def test_not_found(client: Scorpion) -> None:
    with pytest.raises(NotFound) as caught:
        client.games.get("00000000-0000-0000-0000-000000000000")
    assert caught.value.detail
    with pytest.raises(NotFound):
        client.games.get("not-a-uuid")


def test_a_bearer_token_sent_as_a_session_token_says_to_use_bearer(
    client: Scorpion, server_url: str
) -> None:
    """A personal access token (or an app's OAuth token) passed as the default session token:
    the 401 says how to send it, and sent as bearer it works."""
    value = client.me.create_token("script", ["account:read"])["token"]
    with Scorpion(server_url, token=value) as wrong, pytest.raises(AuthenticationError) as caught:
        wrong.me.get()
    assert 'token_type="bearer"' in str(caught.value)
    with Scorpion(server_url, token=value, token_type="bearer") as right:
        assert right.me.get().email
    # A real session token that expired is not told so.
    with Scorpion(server_url, token="a" * 32) as stale, pytest.raises(AuthenticationError) as old:
        stale.me.get()
    assert "bearer" not in str(old.value)


@pytest.mark.parametrize(
    ("word", "kind", "sentence"),
    [
        ("access_denied", AccessDenied, "The player did not allow the app"),
        ("invalid_grant", OAuthError, "The log-in is no longer valid"),
        ("expired_token", DeviceCodeExpired, "The code expired"),
        ("something_new", ScorpionError, "The server refused the log-in (something_new)."),
    ],
)
def test_an_oauth_error_without_a_description_is_said_in_a_sentence(
    word: str, kind: type[ScorpionError], sentence: str
) -> None:
    request = httpx.Request("POST", "http://test/identity/o/api/token")
    for body in ({"error": word}, {"error": word, "error_description": word}):
        error = error_from_response(httpx.Response(400, json=body, request=request))
        assert isinstance(error, kind)
        assert (error.code, str(error).startswith(sentence)) == (word, True), str(error)
    described = {"error": word, "error_description": "The server's own words."}
    error = error_from_response(httpx.Response(400, json=described, request=request))
    assert error.detail == "The server's own words."
