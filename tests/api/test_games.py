"""The game API: creating, playing, undoing, replaying, and every way a request can fail."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from games import services
from games.engine.cards import card_code, parse_deal_code
from games.engine.deals import deal_code_for_pysol, deal_code_for_seed
from games.models import DailyDeal, Game, GameEvent, WinnableDeal
from tests.api.conftest import DEALS, WON_DEAL, Player

pytestmark = pytest.mark.django_db

CODE = WON_DEAL["code"]
LINE = WON_DEAL["line"]


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == code
    assert body["status"] == status
    assert {"type", "title", "detail"} <= set(body)
    return body  # type: ignore[no-any-return]


def hidden_cards(deal_code: str, game: dict[str, Any]) -> set[str]:
    """The cards of a deal the player cannot see in the given game view."""
    visible = {card for column in game["columns"] for card in column["cards"]}
    everything = {card_code(card) for card in parse_deal_code(deal_code)}
    collected = {c for c in everything if c[1] in game["collected"]}
    return everything - visible - collected


def strings_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    return set()


# --- Creating games ---


def test_new_random_game_is_at_version_zero_and_hides_its_deal(player: Player) -> None:
    game = player.new_game()
    assert game["mode"] == "random"
    assert game["status"] == "playing"
    assert game["version"] == 0
    assert game["stock"] == 3
    assert game["moves"] == 0
    assert game["seed"] is None
    assert game["code"] is None
    assert [c["hidden"] for c in game["columns"]] == [3, 3, 3, 3, 0, 0, 0]
    assert [len(c["cards"]) for c in game["columns"]] == [4, 4, 4, 4, 7, 7, 7]
    assert game["can_undo"] is False


def test_game_from_a_deal_code_lays_out_exactly_that_deal(player: Player) -> None:
    game = player.new_game(code=CODE)
    assert game["mode"] == "seeded"
    assert game["code"] == CODE
    assert game["columns"][0]["cards"] == [CODE[6:8], CODE[8:10], CODE[10:12], CODE[12:14]]
    assert game["columns"][6]["cards"] == [CODE[2 * i : 2 * i + 2] for i in range(42, 49)]


def test_game_from_a_seed_uses_the_documented_algorithm(player: Player) -> None:
    game = player.new_game(seed=123456789)
    assert game["seed"] == 123456789
    assert game["code"] == deal_code_for_seed(123456789)


def test_game_from_a_pysol_number_matches_pysolfc(player: Player) -> None:
    game = player.new_game(pysol_number=1234)
    assert game["pysol_number"] == 1234
    assert game["code"] == deal_code_for_pysol(1234)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"code": "KD7D"}, "code"),
        ({"code": CODE[:-2] + CODE[:2]}, "code"),
        ({"seed": -1}, "seed"),
        ({"seed": 2**63}, "seed"),
        ({"seed": "12"}, "seed"),
        ({"seed": True}, "seed"),
        ({"seed": 1, "code": CODE}, "non_field_errors"),
        ({"mode": "chess"}, "mode"),
        ({"mode": "random", "seed": 5}, "mode"),
        ({"crad": "8H"}, "crad"),
    ],
)
def test_bad_create_requests_are_validation_errors(
    player: Player, body: dict[str, Any], field: str
) -> None:
    response = player.post("/api/v1/games/", body)
    body_ = problem(response, 400, "validation_error")
    assert field in body_["errors"]
    assert Game.objects.count() == 0


def test_duplicate_card_in_code_names_the_card(player: Player) -> None:
    doubled = CODE[:102] + CODE[:2]
    body = problem(player.post("/api/v1/games/", {"code": doubled}), 400, "validation_error")
    assert CODE[:2] in body["detail"]


def certified(deal: dict[str, Any], seed: int) -> dict[str, Any]:
    return {"seed": seed, "deal_code": deal["code"], "certificate": deal["line"]}


def test_daily_game_is_the_same_deal_for_everyone_and_stays_secret(
    player: Player, make_player: Callable[[], Player]
) -> None:
    today = timezone.now().date()
    DailyDeal.objects.create(date=today, candidate=0, **certified(WON_DEAL, 42))
    mine = player.new_game(mode="daily")
    theirs = make_player().new_game(mode="daily")
    assert mine["mode"] == theirs["mode"] == "daily"
    assert mine["daily_date"] == today.isoformat()
    assert mine["columns"] == theirs["columns"]
    assert mine["columns"][6]["cards"] == [CODE[2 * i : 2 * i + 2] for i in range(42, 49)]
    assert mine["seed"] is None
    assert mine["code"] is None


def test_daily_summary_reports_the_latest_attempt_and_whether_solved(player: Player) -> None:
    today = timezone.now().date()
    assert player.get("/api/v1/daily/").json() == {
        "date": today.isoformat(),
        "game": None,
        "status": None,
        "ranked_game": None,
        "ranked_status": None,
        "solved": False,
        "ranked_available": True,
        "attempts": 0,
        "deal_ready": False,
        "difficulty": None,
        "difficulty_score": None,
    }
    DailyDeal.objects.create(date=today, candidate=0, **certified(WON_DEAL, 42))
    first = player.new_game(mode="daily")
    for step in LINE:
        player.command(first["id"], step)
    second = player.new_game(mode="daily")
    summary = player.get("/api/v1/daily/").json()
    assert summary["game"] == second["id"]
    assert summary["ranked_game"] == first["id"]
    assert summary["ranked_status"] == "won"
    assert summary["solved"] is True
    assert summary["ranked_available"] is False
    assert summary["attempts"] == 2
    assert summary["deal_ready"] is True


def test_winnable_mode_draws_certified_deals_the_player_has_not_played(player: Player) -> None:
    for seed, deal in enumerate(DEALS["won"][:2]):
        WinnableDeal.objects.create(**certified(deal, seed))
    first = player.new_game(mode="winnable")
    second = player.new_game(mode="winnable")
    codes = {Game.objects.get(pk=g["id"]).deal_code for g in (first, second)}
    assert codes == {DEALS["won"][0]["code"], DEALS["won"][1]["code"]}
    assert first["mode"] == "winnable"
    assert first["code"] is None


# --- Reading games ---


def test_list_is_newest_first_paginated_and_filterable(player: Player) -> None:
    first = player.new_game(code=CODE)
    second = player.new_game()
    player.command(second["id"], {"type": "resign"})
    listing = player.get("/api/v1/games/").json()
    assert listing["count"] == 2
    assert [g["id"] for g in listing["results"]] == [second["id"], first["id"]]
    resigned = player.get("/api/v1/games/?status=resigned").json()
    assert [g["id"] for g in resigned["results"]] == [second["id"]]
    seeded = player.get("/api/v1/games/?mode=seeded").json()
    assert [g["id"] for g in seeded["results"]] == [first["id"]]
    page = player.get("/api/v1/games/?page_size=1&page=2").json()
    assert [g["id"] for g in page["results"]] == [first["id"]]
    problem(player.get("/api/v1/games/?status=lost"), 400, "validation_error")


def test_detail_has_an_etag_of_its_version_and_honours_if_none_match(player: Player) -> None:
    game = player.new_game(code=CODE)
    response = player.get(f"/api/v1/games/{game['id']}/")
    assert response["ETag"] == '"0"'
    assert player.get(f"/api/v1/games/{game['id']}/", **{"If-None-Match": '"0"'}).status_code == 304
    player.command(game["id"], LINE[0])
    assert player.get(f"/api/v1/games/{game['id']}/")["ETag"] == '"1"'


def test_another_players_game_is_404_everywhere(
    player: Player, make_player: Callable[[], Player]
) -> None:
    game = player.new_game(code=CODE)
    stranger = make_player()
    base = f"/api/v1/games/{game['id']}/"
    for path in (base, base + "hints/", base + "events/", base + "states/0/"):
        problem(stranger.get(path), 404, "not_found")
    problem(stranger.command(game["id"], LINE[0]), 404, "not_found")
    problem(stranger.post(base + "restart/"), 404, "not_found")
    assert Game.objects.get(pk=game["id"]).version == 0


# --- Playing ---


def test_move_returns_the_game_and_the_event(player: Player) -> None:
    game = player.new_game(code=CODE)
    response = player.command(game["id"], {"type": "move", "card": LINE[0]["card"]})
    assert response.status_code == 200
    body = response.json()
    assert body["version"] == 1
    assert body["moves"] == 1
    assert body["event"]["type"] == "move"
    assert body["event"]["card"] == LINE[0]["card"]
    assert body["event"]["to"] == LINE[0]["to"]
    assert (
        body["columns"][LINE[0]["to"]]["cards"][-1] == LINE[0]["card"] or body["event"]["count"] > 1
    )
    assert response["ETag"] == '"1"'


def test_card_codes_are_case_insensitive(player: Player) -> None:
    game = player.new_game(code=CODE)
    response = player.command(game["id"], {"type": "move", "card": LINE[0]["card"].lower()})
    assert response.status_code == 200


def test_whole_game_won_through_the_api_along_a_known_line(player: Player) -> None:
    game = player.new_game(code=CODE)
    for step in LINE:
        response = player.command(game["id"], step)
        assert response.status_code == 200, (step, response.content)
    final = response.json()
    assert final["status"] == "won"
    assert sorted(final["collected"]) == ["C", "D", "H", "S"]
    assert final["finished_at"] is not None
    assert final["can_undo"] is False
    problem(player.command(game["id"], {"type": "undo"}), 409, "game_finished")


@pytest.mark.parametrize("deal", DEALS["won"][1:4], ids=lambda d: d["code"][:8])
def test_other_known_winning_lines_win_through_the_api(
    player: Player, deal: dict[str, Any]
) -> None:
    game = player.new_game(code=deal["code"])
    for step in deal["line"]:
        assert player.command(game["id"], step).status_code == 200
    assert player.get(f"/api/v1/games/{game['id']}/").json()["status"] == "won"


def test_illegal_move_explains_itself_and_changes_nothing(player: Player) -> None:
    game = player.new_game(code=CODE)
    top_cards = [column["cards"][-1] for column in game["columns"]]
    # A face-up card whose successor is not exposed anywhere.
    candidates = [
        card
        for column in game["columns"]
        for card in column["cards"]
        if card[0] != "K"
        and "A23456789TJQK"["A23456789TJQK".index(card[0]) + 1] + card[1] not in top_cards
    ]
    body = problem(
        player.command(game["id"], {"type": "move", "card": candidates[0]}), 422, "illegal_move"
    )
    assert candidates[0] in body["detail"]
    assert Game.objects.get(pk=game["id"]).version == 0
    assert GameEvent.objects.count() == 0


def test_unknown_card_is_its_own_error(player: Player) -> None:
    game = player.new_game(code=CODE)
    body = problem(player.command(game["id"], {"type": "move", "card": "1Z"}), 400, "unknown_card")
    assert "1Z" in body["detail"]


def test_hidden_card_gets_the_same_answer_in_the_tableau_and_in_the_stock(player: Player) -> None:
    game = player.new_game(code=CODE)
    face_down = CODE[0:2]  # bottom of column 1
    in_stock = CODE[-2:]
    down = problem(
        player.command(game["id"], {"type": "move", "card": face_down}), 422, "illegal_move"
    )
    stock = problem(
        player.command(game["id"], {"type": "move", "card": in_stock}), 422, "illegal_move"
    )
    assert down["detail"].replace(face_down, "XX") == stock["detail"].replace(in_stock, "XX")


def test_deal_twice_is_stock_empty(player: Player) -> None:
    game = player.new_game(code=CODE)
    dealt = player.command(game["id"], {"type": "deal"}).json()
    assert dealt["stock"] == 0
    assert dealt["event"]["dealt"] == [CODE[98:100], CODE[100:102], CODE[102:104]]
    problem(player.command(game["id"], {"type": "deal"}), 422, "stock_empty")


def test_undo_and_redo_walk_the_line(player: Player) -> None:
    game = player.new_game(code=CODE)
    problem(player.command(game["id"], {"type": "undo"}), 422, "nothing_to_undo")
    problem(player.command(game["id"], {"type": "redo"}), 422, "nothing_to_redo")
    after_one = player.command(game["id"], LINE[0]).json()
    undone = player.command(game["id"], {"type": "undo"}).json()
    assert undone["columns"] == game["columns"]
    assert undone["moves"] == 0
    assert undone["can_redo"] is True
    assert undone["version"] == 2
    redone = player.command(game["id"], {"type": "redo"}).json()
    assert redone["columns"] == after_one["columns"]
    assert redone["version"] == 3
    assert redone["can_redo"] is False


def test_new_move_discards_the_redo_line(player: Player) -> None:
    game = player.new_game(code=CODE)
    player.command(game["id"], LINE[0])
    player.command(game["id"], {"type": "undo"})
    player.command(game["id"], {"type": "deal"})
    problem(player.command(game["id"], {"type": "redo"}), 422, "nothing_to_redo")


def test_resign_is_final_and_reveals_the_deal(player: Player) -> None:
    game = player.new_game()
    resigned = player.command(game["id"], {"type": "resign"}).json()
    assert resigned["status"] == "resigned"
    assert resigned["finished_at"] is not None
    assert len(resigned["code"]) == 104
    assert isinstance(resigned["seed"], int)
    problem(player.command(game["id"], {"type": "deal"}), 409, "game_finished")


def test_restart_starts_the_same_deal_afresh(player: Player) -> None:
    game = player.new_game()
    player.command(game["id"], {"type": "deal"})
    response = player.post(f"/api/v1/games/{game['id']}/restart/")
    assert response.status_code == 201
    again = response.json()
    assert again["id"] != game["id"]
    assert again["version"] == 0
    assert again["columns"] == game["columns"]
    assert again["restarted_from"] == game["id"]
    assert Game.objects.get(pk=again["id"]).deal_code == Game.objects.get(pk=game["id"]).deal_code


def test_timing_starts_with_the_first_action(player: Player) -> None:
    game = player.new_game(code=CODE)
    assert game["started_at"] is None
    moved = player.command(game["id"], LINE[0]).json()
    assert moved["started_at"] is not None
    assert moved["elapsed_seconds"] >= 0


# --- Concurrency controls ---


def test_expected_version_mismatch_is_409_with_the_current_game(player: Player) -> None:
    game = player.new_game(code=CODE)
    player.command(game["id"], LINE[0])
    body = problem(
        player.command(game["id"], {**LINE[1], "expected_version": 0}), 409, "version_conflict"
    )
    assert body["game"]["version"] == 1
    assert body["game"]["id"] == game["id"]
    assert Game.objects.get(pk=game["id"]).version == 1


def test_if_match_works_like_expected_version(player: Player) -> None:
    game = player.new_game(code=CODE)
    assert player.command(game["id"], LINE[0], **{"If-Match": '"0"'}).status_code == 200
    problem(player.command(game["id"], LINE[1], **{"If-Match": '"0"'}), 409, "version_conflict")
    problem(player.command(game["id"], LINE[1], **{"If-Match": "zero"}), 400, "validation_error")
    assert player.command(game["id"], LINE[1], **{"If-Match": '"1"'}).status_code == 200


def test_idempotency_key_replays_the_first_answer_and_applies_once(player: Player) -> None:
    game = player.new_game(code=CODE)
    first = player.command(game["id"], LINE[0], **{"Idempotency-Key": "k-1"})
    player.command(game["id"], LINE[1])
    again = player.command(game["id"], LINE[0], **{"Idempotency-Key": "k-1"})
    assert again.status_code == 200
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["event"] == first.json()["event"]
    assert again.json()["columns"] == first.json()["columns"]
    assert Game.objects.get(pk=game["id"]).version == 2


def test_idempotency_key_reused_for_another_command_is_refused(player: Player) -> None:
    game = player.new_game(code=CODE)
    player.command(game["id"], LINE[0], **{"Idempotency-Key": "k-2"})
    problem(
        player.command(game["id"], {"type": "deal"}, **{"Idempotency-Key": "k-2"}),
        422,
        "idempotency_key_reused",
    )


def test_create_with_an_idempotency_key_makes_one_game(player: Player) -> None:
    first = player.post("/api/v1/games/", {"code": CODE}, **{"Idempotency-Key": "new-1"})
    again = player.post("/api/v1/games/", {"code": CODE}, **{"Idempotency-Key": "new-1"})
    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"]
    assert Game.objects.count() == 1
    problem(
        player.post("/api/v1/games/", {"seed": 5}, **{"Idempotency-Key": "new-1"}),
        422,
        "idempotency_key_reused",
    )


def test_restart_with_an_idempotency_key_makes_one_game(player: Player) -> None:
    game = player.new_game(code=CODE)
    path = f"/api/v1/games/{game['id']}/restart/"
    first = player.post(path, **{"Idempotency-Key": "again-1"}).json()
    again = player.post(path, **{"Idempotency-Key": "again-1"}).json()
    assert first["id"] == again["id"]
    assert Game.objects.count() == 2


# --- Malformed requests ---


def test_malformed_json_is_a_problem(player: Player) -> None:
    game = player.new_game(code=CODE)
    response = player.client.post(
        f"/api/v1/games/{game['id']}/commands/", "{not json", content_type="application/json"
    )
    problem(response, 400, "malformed_json")


def test_non_json_body_is_415(player: Player) -> None:
    game = player.new_game(code=CODE)
    response = player.client.post(
        f"/api/v1/games/{game['id']}/commands/", "type=deal", content_type="text/plain"
    )
    problem(response, 415, "unsupported_media_type")


def test_oversized_body_is_413(player: Player) -> None:
    game = player.new_game(code=CODE)
    response = player.client.post(
        f"/api/v1/games/{game['id']}/commands/",
        '{"type": "deal", "pad": "' + "x" * 100_000 + '"}',
        content_type="application/json",
    )
    problem(response, 413, "payload_too_large")


def test_wrong_method_is_405(player: Player) -> None:
    game = player.new_game(code=CODE)
    problem(player.client.delete(f"/api/v1/games/{game['id']}/"), 405, "method_not_allowed")


def test_unknown_api_path_is_a_404_problem(player: Player) -> None:
    problem(player.get("/api/v1/nothing-here/"), 404, "not_found")


@pytest.mark.parametrize(
    "body",
    [
        {"type": "jump"},
        {"type": "move"},
        {"type": "move", "card": 8},
        {"type": "move", "card": "KS", "to": 10},
        {"type": "move", "card": "KS", "to": "4"},
        {"type": "deal", "card": "8H"},
        {"type": "deal", "expected_version": "0"},
        {"type": "deal", "extra": 1},
        [],
    ],
)
def test_wrong_types_and_fields_are_validation_errors(player: Player, body: Any) -> None:
    game = player.new_game(code=CODE)
    problem(player.command(game["id"], body), 400, "validation_error")
    assert Game.objects.get(pk=game["id"]).version == 0


def test_every_problem_type_uri_is_documented(player: Player) -> None:
    body = problem(player.get("/api/v1/nothing-here/"), 404, "not_found")
    described = player.client.get(body["type"])
    assert described.status_code == 200
    assert described.json()["code"] == "not_found"


# --- History: events, states, hints ---


def test_events_list_everything_the_player_did_oldest_first(player: Player) -> None:
    game = player.new_game(code=CODE)
    player.command(game["id"], LINE[0])
    player.command(game["id"], {"type": "undo"})
    player.command(game["id"], {"type": "redo"})
    player.command(game["id"], {"type": "deal"})
    page = player.get(f"/api/v1/games/{game['id']}/events/").json()
    assert (page["version"], page["next"]) == (4, None)
    events = page["results"]
    assert [e["type"] for e in events] == ["move", "undo", "redo", "deal"]
    assert [e["seq"] for e in events] == [1, 2, 3, 4]
    assert events[1]["undone"]["card"] == LINE[0]["card"]


def test_states_rebuild_every_earlier_position(player: Player) -> None:
    game = player.new_game(code=CODE)
    seen = [game]
    for step in LINE[:6]:
        seen.append(player.command(game["id"], step).json())
    seen.append(player.command(game["id"], {"type": "undo"}).json())
    for version, expected in enumerate(seen):
        state = player.get(f"/api/v1/games/{game['id']}/states/{version}/").json()
        assert state["version"] == version
        assert state["columns"] == expected["columns"]
        assert state["moves"] == expected["moves"]
    problem(player.get(f"/api/v1/games/{game['id']}/states/{len(seen)}/"), 404, "not_found")


def test_asking_for_hints_is_counted(player: Player) -> None:
    game = player.new_game(code=CODE)
    player.get(f"/api/v1/games/{game['id']}/hints/")
    player.get(f"/api/v1/games/{game['id']}/hints/")
    services.hint_counts_flush()  # the worker's job, every minute (tests/api/test_hint_counts.py)
    assert Game.objects.get(pk=game["id"]).hint_count == 2


def test_hints_list_every_legal_move_and_the_deal(player: Player) -> None:
    game = player.new_game(code=CODE)
    hints = player.get(f"/api/v1/games/{game['id']}/hints/").json()
    assert hints["version"] == 0
    assert hints["deal"] is True
    assert {"card": LINE[0]["card"], "to": LINE[0]["to"]} in [
        {"card": m["card"], "to": m["to"]} for m in hints["moves"]
    ]
    for move in hints["moves"]:
        assert move["reason"]
    # Every hinted move is accepted.
    for move in hints["moves"]:
        response = player.command(
            game["id"], {"type": "move", "card": move["card"], "to": move["to"]}
        )
        assert response.status_code == 200
        player.command(game["id"], {"type": "undo"})


# --- Hidden information ---


def test_no_endpoint_reveals_a_hidden_card_while_the_game_is_on(player: Player) -> None:
    game = player.new_game()
    deal_code = Game.objects.get(pk=game["id"]).deal_code
    player.command(game["id"], {"type": "deal"})
    game = player.get(f"/api/v1/games/{game['id']}/").json()
    secret = hidden_cards(deal_code, game)
    assert len(secret) == 12
    base = f"/api/v1/games/{game['id']}/"
    responses = [
        player.get(base).json(),
        player.get("/api/v1/games/").json(),
        player.get(base + "hints/").json(),
        player.get(base + "events/").json(),
        player.get(base + "states/0/").json(),
        player.get(base + "states/1/").json(),
        player.command(game["id"], {"type": "undo"}).json(),
        player.get(base + "states/2/").json(),
    ]
    for body in responses:
        leaked = strings_in(body) & secret
        assert not leaked
        assert deal_code not in strings_in(body)
    assert game["seed"] is None
    assert game["code"] is None


def test_stock_cards_are_hidden_again_after_the_deal_is_undone(player: Player) -> None:
    game = player.new_game(code=CODE)
    player.command(game["id"], {"type": "deal"})
    undone = player.command(game["id"], {"type": "undo"}).json()
    assert undone["stock"] == 3
    assert undone["columns"] == game["columns"]


@pytest.mark.parametrize(
    "query",
    [
        "page_size=abc",
        "page_size=-3",
        "page_size=101",
        "status=",
        "mode=",
        "page=abc",
        "page=%C2%B2",
        "status=won&status=lost",
        "colour=red",
    ],
)
def test_bad_list_queries_are_validation_errors(player: Player, query: str) -> None:
    problem(player.get(f"/api/v1/games/?{query}"), 400, "validation_error")


def test_pysol_numbers_beyond_64_bits_are_refused(player: Player) -> None:
    body = problem(player.post("/api/v1/games/", {"pysol_number": 2**63}), 400, "validation_error")
    assert "pysol_number" in body["errors"]


def test_a_refusal_says_why_as_data_with_columns_numbered_1_to_7(player: Player) -> None:
    game = player.new_game(code=CODE)
    tops = {column["cards"][-1] for column in game["columns"] if column["cards"]}
    face_up = [(c, card) for c, column in enumerate(game["columns"]) for card in column["cards"]]
    # A face-up card dropped on a column that is not its successor's.
    column, card = next((c, card) for c, card in face_up if card[0] != "K")
    successor = "A23456789TJQK"["A23456789TJQK".index(card[0]) + 1] + card[1]
    wrong = next(
        t for t in range(7) if t != column and game["columns"][t]["cards"][-1:] != [successor]
    )
    body = problem(
        player.command(game["id"], {"type": "move", "card": card, "to": wrong}), 422, "illegal_move"
    )
    details = body["details"]
    assert details["card"] == card
    assert details["column"] == column + 1
    assert details["onto"] == successor
    if successor in tops:
        assert details == {
            "reason": "wrong_column",
            "card": card,
            "column": column + 1,
            "to": wrong + 1,
            "onto": successor,
            "onto_column": next(
                t + 1 for t in range(7) if game["columns"][t]["cards"][-1:] == [successor]
            ),
        }
    else:
        assert details["reason"] in ("onto_not_exposed", "onto_own_column")


def test_a_face_down_card_and_a_stock_card_get_the_same_details(player: Player) -> None:
    game = player.new_game(code=CODE)
    face_down, in_stock = CODE[0:2], CODE[-2:]
    answers = [
        problem(player.command(game["id"], {"type": "move", "card": card}), 422, "illegal_move")
        for card in (face_down, in_stock)
    ]
    assert answers[0]["details"] == {"reason": "not_face_up", "card": face_down}
    assert answers[1]["details"] == {"reason": "not_face_up", "card": in_stock}
    assert set(answers[0]) == set(answers[1])
