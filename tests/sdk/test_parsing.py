"""Reading answers without a server: models are forward compatible, errors map by code (and by
status for codes this SDK does not know), the retry policy decides as documented."""

from __future__ import annotations

import email.utils
import time
from typing import Any

import httpx
import pytest
from scorpion_client import (
    ConflictError,
    EmailVerificationRequired,
    Event,
    Game,
    IllegalMove,
    Leaderboard,
    ModeUnavailable,
    NotFound,
    RateLimited,
    RetryPolicy,
    RuleError,
    Scorpion,
    ScorpionError,
    ServerError,
    ServiceUnavailable,
    Stats,
    UnexpectedResponse,
    ValidationError,
    VersionConflict,
    normalize_card,
)
from scorpion_client._core import Ops, error_from_response, parse_retry_after
from scorpion_client.config import TokenStore

GAME: dict[str, Any] = {
    "id": "5d1f6f0e-1111-4c3a-9d7e-000000000001",
    "mode": "random",
    "status": "playing",
    "version": 7,
    "columns": [{"hidden": 3, "cards": ["5H", "KS"]}] + [{"hidden": 0, "cards": []}] * 6,
    "stock": 3,
    "collected": ["H"],
    "moves": 5,
    "can_undo": True,
    "can_redo": False,
    "seed": None,
    "code": None,
    "created_at": "2025-01-31T10:00:00+00:00",
    "updated_at": "2025-01-31T10:05:00Z",
    "finished_at": None,
}


def response(status: int, body: Any = None, **headers: str) -> httpx.Response:
    request = httpx.Request("POST", "http://test/api/v1/games/x/commands/")
    if body is None:
        return httpx.Response(status, headers=headers, request=request)
    content_type = {"Content-Type": "application/problem+json"}
    return httpx.Response(status, json=body, headers={**content_type, **headers}, request=request)


def problem(code: str, status: int, **extra: Any) -> dict[str, Any]:
    return {
        "type": f"/api/problems/{code}/",
        "title": "A title",
        "status": status,
        "detail": f"what went wrong ({code})",
        "code": code,
        **extra,
    }


def test_a_game_with_fields_from_a_newer_server_still_parses() -> None:
    newer = {**GAME, "theme": "dark", "columns": [{"hidden": 0, "cards": [], "glow": 1}] * 7}
    game = Game.from_json(newer)
    assert game.extra == {"theme": "dark"}
    assert game.columns[0].extra == {"glow": 1}
    assert game.pysol_number is None  # absent optional fields are None
    assert game.updated_at is not None
    assert game.updated_at.tzinfo is not None


def test_a_daily_game_says_whether_it_ranks() -> None:
    ranked = Game.from_json({**GAME, "mode": "daily", "daily_date": "2025-01-31", "ranked": True})
    practice = Game.from_json({**GAME, "mode": "daily", "ranked": False})
    assert (ranked.ranked, ranked.is_practice) == (True, False)
    assert (practice.ranked, practice.is_practice) == (False, True)
    assert "ranked" not in ranked.extra
    # An older server without the field: not ranked, and not practice outside the daily mode.
    assert (Game.from_json(GAME).ranked, Game.from_json(GAME).is_practice) == (False, False)


def test_a_game_missing_what_the_contract_promises_is_an_unexpected_response() -> None:
    parse = Ops.games_get("x").parse
    broken = {key: value for key, value in GAME.items() if key != "version"}
    with pytest.raises(UnexpectedResponse):
        parse(httpx.Response(200, json=broken, request=httpx.Request("GET", "http://test/")))
    with pytest.raises(UnexpectedResponse):
        parse(httpx.Response(200, text="<html>", request=httpx.Request("GET", "http://test/")))


def test_events_of_every_kind() -> None:
    move = Event.from_json(
        {
            "seq": 1,
            "type": "move",
            "card": "8H",
            "from": 2,
            "to": 4,
            "count": 2,
            "dealt": [],
            "flipped": [{"column": 2, "card": "4D"}],
            "collected": [{"column": 4, "suit": "H"}],
            "created_at": "2025-01-31T10:00:00+00:00",
        }
    )
    assert (move.card, move.from_, move.to, move.count) == ("8H", 2, 4, 2)
    assert move.flipped[0].card == "4D"
    assert move.collected[0].suit == "H"
    undo = Event.from_json(
        {"seq": 2, "type": "undo", "undone": {"dealt": ["AS", "2S", "3S"], "count": 3}}
    )
    assert undo.undone is not None
    assert (undo.undone.type, undo.undone.dealt) == ("deal", ["AS", "2S", "3S"])
    assert Event.from_json({"seq": 3, "type": "brand_new", "x": 1}).extra == {"x": 1}


def test_stats_and_leaderboards_read_leniently() -> None:
    stats = Stats.from_json({"played": 3, "won": 1, "modes": {"daily": {"played": 1}}})
    assert stats.daily is not None
    assert stats.daily.played == 1
    assert stats.win_rate is None
    board = Leaderboard.from_json(
        {
            "date": "2025-01-31",
            "count": 1,
            "next": None,
            "previous": None,
            "results": [{"rank": 1, "player": "ada", "time": 61.5, "moves": 90, "is_me": True}],
            "me": {"rank": 1, "time": 61.5, "moves": 90, "finished_at": "2025-01-31T10:00:00Z"},
        }
    )
    assert board.results[0].time == 61.5
    assert board.me is not None
    assert board.me.moves == 90


@pytest.mark.parametrize(
    ("code", "status", "cls"),
    [
        ("illegal_move", 422, IllegalMove),
        ("validation_error", 400, ValidationError),
        ("not_found", 404, NotFound),
        ("mode_unavailable", 501, ModeUnavailable),
        ("deal_unavailable", 503, ServiceUnavailable),
        ("server_error", 500, ServerError),
        # Codes of a newer server: the class by status.
        ("game_paused", 409, ConflictError),
        ("too_many_hints", 422, RuleError),
        ("teapot", 418, ScorpionError),
    ],
)
def test_problem_codes_map_to_exceptions(code: str, status: int, cls: type[Exception]) -> None:
    error = error_from_response(response(status, problem(code, status)))
    assert type(error) is cls
    assert error.code == code
    assert error.status == status
    assert error.detail == f"what went wrong ({code})"
    assert str(error).startswith(error.detail)


def test_version_conflict_carries_the_current_game() -> None:
    error = error_from_response(response(409, problem("version_conflict", 409, game=GAME)))
    assert isinstance(error, VersionConflict)
    assert error.current_game is not None
    assert error.current_game.version == 7


def test_rate_limited_reads_retry_after_in_seconds_or_as_a_date() -> None:
    error = error_from_response(response(429, problem("throttled", 429), **{"Retry-After": "17"}))
    assert isinstance(error, RateLimited)
    assert error.retry_after == 17
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    retry_after = parse_retry_after(later)
    assert retry_after is not None
    assert 25 <= retry_after <= 30
    assert parse_retry_after("soon") is None


def test_errors_that_are_not_problem_details() -> None:
    allauth = {
        "status": 400,
        "errors": [{"message": "Email already taken.", "code": "email_taken", "param": "email"}],
    }
    error = error_from_response(response(400, allauth))
    assert isinstance(error, ValidationError)
    assert error.errors == {"email": ["Email already taken."]}
    assert error.code == "email_taken"
    pending = {
        "status": 401,
        "data": {"flows": [{"id": "verify_email", "is_pending": True}]},
        "meta": {"is_authenticated": False, "session_token": "abc"},
    }
    unverified = error_from_response(response(401, pending))
    assert isinstance(unverified, EmailVerificationRequired)
    assert unverified.session_token == "abc"
    proxy = httpx.Response(502, text="<html>Bad gateway</html>", request=httpx.Request("GET", "/"))
    assert isinstance(error_from_response(proxy), ServerError)


def test_retry_policy_decisions() -> None:
    client = Scorpion("http://test", retry=RetryPolicy(max_retries=2, backoff_base=1))
    command = Ops.games_command("g", {"type": "deal"})
    # Not idempotent on the server: a sign-up, and a refresh (its refresh token is spent).
    signup = Ops.signup("a@example.com", "pw")
    refresh = Ops.oauth_token({"grant_type": "refresh_token"})
    create = Ops.games_create()  # deduplicated by its Idempotency-Key
    failed = response(500, problem("server_error", 500))
    busy = response(503, problem("deal_unavailable", 503), **{"Retry-After": "3"})
    assert client._delay_after_response(command, 0, failed) is not None  # idempotent
    assert client._delay_after_response(create, 0, failed) is not None  # so is a create
    assert client._delay_after_response(signup, 0, failed) is None  # might have been applied
    assert client._delay_after_response(refresh, 0, failed) is None
    assert client._delay_after_response(signup, 0, busy) == 3  # surely not applied
    assert client._delay_after_response(command, 2, failed) is None  # retries spent
    assert client._delay_after_response(command, 0, response(422, problem("x", 422))) is None
    dropped = httpx.ReadError("dropped")
    refused = httpx.ConnectError("refused")
    assert client._delay_after_error(command, 0, dropped) is not None
    assert client._delay_after_error(create, 0, dropped) is not None
    assert client._delay_after_error(signup, 0, dropped) is None
    assert client._delay_after_error(signup, 0, refused) is not None
    waits = [RetryPolicy(backoff_base=1, backoff_max=4).backoff(n) for n in range(6)]
    assert all(0 <= wait <= min(4, 2**n) for n, wait in enumerate(waits))
    client.close()


def test_a_503_is_retried_until_answered(sleeps: list[float]) -> None:
    """The retry loop itself, on a transport that fails twice (5xx cannot be provoked on the
    real server on purpose)."""
    answers = [
        response(503, problem("deal_unavailable", 503)),
        response(502),
        httpx.Response(200, json={**GAME, "event": {"seq": 8, "type": "deal"}}),
    ]
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Idempotency-Key"])
        return answers.pop(0)

    with Scorpion("http://test", transport=httpx.MockTransport(handler)) as client:
        result = client.games.deal("g")
    assert result.event.type == "deal"
    assert len(seen) == 3
    assert len(set(seen)) == 1
    assert len(sleeps) == 2


def test_cards_and_token_files(tmp_path: Any) -> None:
    assert normalize_card(" 8h ") == "8H"
    assert normalize_card("10s") == "TS"
    store = TokenStore(tmp_path / "token")
    assert store.get("http://a") is None
    store.set("http://a/", "t1")
    store.set("http://b", "t2")
    assert (store.get("http://a"), store.get("http://b")) == ("t1", "t2")
    store.set("http://a", None)
    assert store.get("http://a") is None
    (tmp_path / "bare").write_text("a-token\n")
    assert TokenStore(tmp_path / "bare").get("http://anything") == "a-token"
