"""Bodies and headers built to break a parser: every one is a 4xx problem, never a 500.

DRF's parser and allauth's headless views (which parse bodies themselves, whatever their
Content-Type) both call ``json.loads``: a body nested a thousand deep raised RecursionError, a
5,000-digit number ValueError, and an unpaired surrogate in a password UnicodeEncodeError in the
password hasher. ``infrastructure.problems.JsonBodyMiddleware`` checks every such body first.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.models import Game
from infrastructure.problems import MAX_JSON_DEPTH, MAX_JSON_NUMBER_LENGTH, json_depth_exceeds
from tests.api.conftest import WON_DEAL, Player

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"
GOOD_PASSWORD = "correct horse battery staple"

# The places a client sends a JSON body to: the game API and allauth's sign-up and log-in for
# both of its clients (the app's session tokens and the browser's cookies).
ALLAUTH_PATHS = [
    "/_allauth/app/v1/auth/signup",
    "/_allauth/app/v1/auth/login",
    "/_allauth/browser/v1/auth/signup",
    "/_allauth/browser/v1/auth/login",
]


def nested(depth: int, inner: str = "1") -> bytes:
    return ('{"a": ' * depth + inner + "}" * depth).encode()


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["code"] == code
    assert body["status"] == status
    assert {"type", "title", "detail"} <= set(body)
    return body  # type: ignore[no-any-return]


@pytest.fixture
def json_paths(player: Player) -> list[tuple[APIClient, str]]:
    """(client, path) of every endpoint that takes a JSON body."""
    game = player.new_game(code=WON_DEAL["code"])
    api = [
        (player.client, "/api/v1/games/"),
        (player.client, f"/api/v1/games/{game['id']}/commands/"),
    ]
    return api + [(APIClient(), path) for path in ALLAUTH_PATHS]


def post_raw(
    client: APIClient, path: str, body: bytes, content_type: str = "application/json"
) -> Any:
    return client.generic("POST", path, body, content_type=content_type)


# --- Nesting ---


@pytest.mark.parametrize("shape", ["array", "object"])
def test_json_nested_a_thousand_deep_is_a_400_everywhere(
    json_paths: list[tuple[APIClient, str]], shape: str
) -> None:
    body = b"[" * 1000 + b"]" * 1000 if shape == "array" else nested(1000)
    for client, path in json_paths:
        detail = problem(post_raw(client, path, body), 400, "json_too_deep")["detail"]
        assert str(MAX_JSON_DEPTH) in detail, path


@pytest.mark.parametrize("path", ALLAUTH_PATHS)
def test_allauth_bodies_are_checked_whatever_their_content_type(path: str) -> None:
    # allauth parses the body as JSON even when it is not labelled as JSON.
    problem(post_raw(APIClient(), path, nested(1000), "text/plain"), 400, "json_too_deep")


def test_the_game_api_still_refuses_other_media_types_first(player: Player) -> None:
    response = post_raw(player.client, "/api/v1/games/", nested(1000), "text/plain")
    problem(response, 415, "unsupported_media_type")


def test_nesting_up_to_the_limit_reaches_the_serializer(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    body = b'{"type": ' + b"[" * (MAX_JSON_DEPTH - 1) + b"]" * (MAX_JSON_DEPTH - 1) + b"}"
    response = post_raw(player.client, f"/api/v1/games/{game['id']}/commands/", body)
    problem(response, 400, "validation_error")
    body = nested(MAX_JSON_DEPTH + 1)
    response = post_raw(player.client, f"/api/v1/games/{game['id']}/commands/", body)
    problem(response, 400, "json_too_deep")


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    assert not json_depth_exceeds('{"a": "' + "[{" * 500 + '"}', 3)
    assert not json_depth_exceeds('{"a": "\\"[[[[[[[[[[[[[[[[[\\\\"}', 3)
    assert json_depth_exceeds('{"a": "\\\\", "b": [[[[]]]]}', 3)
    assert json_depth_exceeds('["unterminated \\" string", [[[[', 3)
    assert not json_depth_exceeds('["unterminated string [[[[[[[[', 3)


def test_allauth_still_signs_up_and_logs_in_with_plain_json() -> None:
    client = APIClient()
    body = b'{"email": "plain@example.com", "password": "' + GOOD_PASSWORD.encode() + b'"}'
    assert post_raw(client, ALLAUTH_PATHS[0], body).status_code == 200
    assert post_raw(APIClient(), ALLAUTH_PATHS[1], body).status_code == 200


def test_a_string_full_of_brackets_reaches_allauth() -> None:
    email = "[" * 2000 + "@example.com"
    body = ('{"email": "' + email + '", "password": "' + GOOD_PASSWORD + '"}').encode()
    response = post_raw(APIClient(), ALLAUTH_PATHS[0], body)
    assert response.status_code == 400, response.content
    assert response.json().get("code") != "json_too_deep"


# --- Numbers, constants, encodings ---


@pytest.mark.parametrize(
    "value",
    [
        "1" * 5000,  # past Python's int-string limit: ValueError in json.loads
        "1" * 101,
        "-" + "9" * 200,
        "1" + "0" * 200 + ".5",
        "1e999",  # a float that overflows to infinity
        "NaN",
        "Infinity",
        "-Infinity",
    ],
)
def test_numbers_no_parser_should_take_are_malformed(
    json_paths: list[tuple[APIClient, str]], value: str
) -> None:
    for client, path in json_paths:
        body = ('{"seed": ' + value + ', "email": "x@example.com", "password": 1}').encode()
        problem(post_raw(client, path, body), 400, "malformed_json")


def test_a_number_of_the_longest_length_taken_reaches_the_serializer(player: Player) -> None:
    body = b'{"pysol_number": ' + b"9" * MAX_JSON_NUMBER_LENGTH + b"}"
    body = problem(post_raw(player.client, "/api/v1/games/", body), 400, "validation_error")
    assert "pysol_number" in body["errors"]
    response = post_raw(player.client, "/api/v1/games/", b'{"pysol_number": 9223372036854775807}')
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b'{"email": "\xff\xfe@example.com"}', "application/json"),  # not UTF-8
        (b'\xef\xbb\xbf{"email": "a@example.com"}', "application/json"),  # a byte-order mark
        (b'{"email": "a@example.com"}', "application/json; charset=no-such-charset"),
        (b'{"email": "a@example.com",}', "application/json"),
        (b"{", "application/json"),
    ],
)
def test_text_that_is_not_json_is_malformed(
    json_paths: list[tuple[APIClient, str]], body: bytes, content_type: str
) -> None:
    for client, path in json_paths:
        problem(post_raw(client, path, body, content_type), 400, "malformed_json")


@pytest.mark.parametrize("path", ALLAUTH_PATHS)
@pytest.mark.parametrize("field", ["password", "email"])
def test_an_unpaired_surrogate_is_malformed(
    make_player: Callable[[], Player], path: str, field: str
) -> None:
    existing = make_player()
    values = {"email": existing.email, "password": GOOD_PASSWORD}
    values[field] = "x\\ud800" + values[field]  # escaped in the JSON text, valid UTF-8 bytes
    body = json.dumps(values).replace("\\\\", "\\")  # one backslash: a JSON escape
    problem(post_raw(APIClient(), path, body.encode()), 400, "malformed_json")


def test_a_surrogate_pair_is_a_character_like_any_other(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    body = b'{"type": "move", "card": "\\ud83c\\udccf"}'  # U+1F0CF, a joker: no such card
    response = post_raw(player.client, f"/api/v1/games/{game['id']}/commands/", body)
    assert response.status_code in (400, 422), response.content
    assert response.json()["code"] != "malformed_json"


def test_an_oversized_allauth_body_is_413() -> None:
    body = ('{"email": "a@example.com", "password": "' + "x" * 100_000 + '"}').encode()
    problem(post_raw(APIClient(), ALLAUTH_PATHS[0], body), 413, "payload_too_large")


def test_a_refused_body_changes_nothing(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    body = b'{"type": "deal", "pad": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    post_raw(player.client, f"/api/v1/games/{game['id']}/commands/", body)
    assert Game.objects.get(pk=game["id"]).version == 0


# --- Headers and path segments parsed as integers ---


@pytest.mark.parametrize(
    "if_match",
    [
        '"' + "7" * 5000 + '"',  # past Python's int-string limit
        'W/"' + "1" * 5000 + '"',
        '"' + "9" * 11 + '"',  # more digits than any version has
        '"2147483648"',  # one past the largest version
        '"\u0663"',  # an Arabic-Indic three: a digit to str.isdigit(), not to HTTP
        '"-1"',
        '"1',
    ],
)
def test_an_if_match_that_is_no_etag_of_this_api_is_a_400(player: Player, if_match: str) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    path = f"/api/v1/games/{game['id']}/commands/"
    body = problem(
        player.post(path, {"type": "deal"}, **{"If-Match": if_match}), 400, "validation_error"
    )
    assert "If-Match" in body["errors"]
    assert Game.objects.get(pk=game["id"]).version == 0


def test_the_largest_version_is_a_conflict_not_an_error(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    path = f"/api/v1/games/{game['id']}/commands/"
    response = player.post(path, {"type": "deal"}, **{"If-Match": '"2147483647"'})
    problem(response, 409, "version_conflict")
    response = player.post(path, {"type": "deal", "expected_version": 2**31})
    problem(response, 400, "validation_error")


@pytest.mark.parametrize("version", ["9" * 5000, "1" + "0" * 30, "-1", "1.0", "%D9%A3", "0x1"])
def test_a_state_version_no_game_has_is_a_404(player: Player, version: str) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    problem(player.get(f"/api/v1/games/{game['id']}/states/{version}/"), 404, "not_found")


@pytest.mark.parametrize(
    "game_id",
    ["%C3%BC", "%00", "%F0%9F%83%8F", "0" * 5000, "00000000-0000-0000-0000-00000000000%C3%BC"],
)
def test_a_game_id_that_is_no_uuid_is_a_404(player: Player, game_id: str) -> None:
    for suffix in ("", "events/", "hints/", "states/0/"):
        problem(player.get(f"/api/v1/games/{game_id}/{suffix}"), 404, "not_found")


def test_huge_idempotency_keys_and_headers_are_refused_or_ignored(player: Player) -> None:
    game = player.new_game(code=WON_DEAL["code"])
    path = f"/api/v1/games/{game['id']}/commands/"
    response = player.post(path, {"type": "deal"}, **{"Idempotency-Key": "k" * 100_000})
    problem(response, 400, "validation_error")
    response = player.post(path, {"type": "deal"}, **{"X-Anything": "x" * 100_000})
    assert response.status_code == 200, response.content


@pytest.mark.parametrize("length", ["abc", "9" * 5000, "1e3", "1_0", "\u0663", "-1"])
@pytest.mark.parametrize("path", ["/api/v1/games/", *ALLAUTH_PATHS])
def test_a_content_length_that_is_no_length_is_a_400(path: str, length: str) -> None:
    # Servers in front may pass the header on as it came (Django's runserver does).
    response = APIClient().generic(
        "POST", path, b"{}", content_type="application/json", CONTENT_LENGTH=length
    )
    problem(response, 400, "validation_error")


# --- Session tokens ---


@pytest.mark.parametrize(
    "token",
    [
        "a\x00" * 20,  # PostgreSQL refuses NUL in a query: was a 500
        "x" * 100_000,
        "\u00e9" * 32,
        "abc",
        "0123456789abcdef0123456789abcdef\x00",
        "0123456789ABCDEF0123456789ABCDEF",
    ],
)
@pytest.mark.parametrize("path", ["/api/v1/me/", "/api/v1/games/", "/_allauth/app/v1/auth/session"])
def test_a_session_token_that_cannot_be_one_is_refused_without_a_lookup(
    path: str, token: str
) -> None:
    response = APIClient().get(path, HTTP_X_SESSION_TOKEN=token)
    # allauth answers an unknown token with 410 (the session is gone), the API with 401.
    assert response.status_code == (410 if path.startswith("/_allauth/") else 401), response.content


@pytest.mark.parametrize(
    "cookie", ["abcdefgh\x00ijklmnop", "x" * 5000, "0123456789ABCDEF0123456789ABCDEF"]
)
@pytest.mark.parametrize("path", ["/", "/api/v1/me/", "/_allauth/browser/v1/auth/session"])
def test_a_session_cookie_that_cannot_be_one_is_no_session(path: str, cookie: str) -> None:
    response = APIClient().get(path, HTTP_COOKIE=f"sessionid={cookie}")
    assert response.status_code in {200, 401, 403, 410}, response.content


def test_a_real_session_token_still_works(player: Player) -> None:
    assert player.get("/api/v1/me/").status_code == 200
    assert player.get("/_allauth/app/v1/auth/session").status_code == 200


# --- Endpoints a library serves that this service does not offer ---


@pytest.mark.parametrize("client", ["app", "browser"])
@pytest.mark.parametrize("path", ["account/phone", "auth/phone/verify", "auth/phone/verify/resend"])
def test_allauth_phone_endpoints_do_not_exist_here(player: Player, client: str, path: str) -> None:
    # allauth's phone views need a phone adapter: GET as a signed-in player and PUT, PATCH or
    # DELETE by anyone raised NotImplementedError or AttributeError (500).
    url = f"/_allauth/{client}/v1/{path}"
    for caller in (player.client, APIClient()):
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            response = caller.generic(method, url, b"{}", content_type="application/json")
            problem(response, 404, "not_found")


@pytest.mark.parametrize("client", ["app", "browser"])
@pytest.mark.parametrize("key", ["-abc", " -abc", "\x00-abc", "\t-x", "zzzzzzzzzzzzzzzzzzzzzz-abc"])
def test_a_password_reset_key_of_no_account_is_a_400(client: str, key: str) -> None:
    # allauth took an empty account part ("-abc") for None and raised TypeError: a 500.
    path = f"/_allauth/{client}/v1/auth/password/reset"
    response = APIClient().get(path, HTTP_X_PASSWORD_RESET_KEY=key)
    assert response.status_code == 400, response.content
    body = {"key": key, "password": GOOD_PASSWORD}
    response = APIClient().post(path, body, format="json")
    assert response.status_code == 400, response.content
