"""The Scorpion family through the API: a game is created in a variant, is played by that
variant's rules, shows its own layout, and is kept apart from the other variants' games."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games import tasks
from games.analysis import VARIANT_ANALYSIS_BUDGETS, analysis_budgets
from games.engine.position import deal_position
from games.engine.solver import solve
from games.engine.variant_solver import dead
from games.engine.variants import VARIANTS, deal_code_for_seed
from games.models import Game
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"
NAMES = ["scorpion", "wasp", "wasp-ii", "scorpion-tail", "three-blind-mice", "double-scorpion"]


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    return body


def winning_wasp_line(seed: int, name: str = "wasp") -> list[dict[str, Any]]:
    """A winning line of a Wasp deal. Every Scorpion move is a Wasp move (same building, and
    Wasp lets any card, not only a King, fill an empty column), so the Scorpion solver's line
    on the Wasp layout wins the Wasp game."""
    wasp = VARIANTS[name]
    position = deal_position(deal_code_for_seed(seed, wasp), wasp)
    solution = solve(position, node_budget=100_000)
    assert solution.verdict == "won"
    return list(solution.line)


# --- The list of variants ---


def test_the_variants_are_listed_publicly_with_their_layouts() -> None:
    response = APIClient().get("/api/v1/variants/")
    assert response.status_code == 200, response.content
    body = response.json()
    assert [variant["name"] for variant in body] == NAMES
    by_name = {variant["name"]: variant for variant in body}
    assert by_name["scorpion"]["columns"] == 7
    assert by_name["scorpion"]["face_down"] == [3, 3, 3, 3, 0, 0, 0]
    assert by_name["wasp"]["empty_column"] == "any"
    assert by_name["scorpion-tail"]["build"] == "alternate"
    assert by_name["three-blind-mice"]["columns"] == 10
    assert by_name["three-blind-mice"]["reserve"] == 2
    assert by_name["wasp"]["face_down"] == [3, 3, 3, 3, 0, 0, 0]  # PySolFC 3.4.0+
    assert by_name["wasp-ii"]["face_down"] == [3, 3, 3, 0, 0, 0, 0]
    assert by_name["double-scorpion"]["decks"] == 2
    assert by_name["double-scorpion"]["column_sizes"] == [10] * 10
    assert by_name["double-scorpion"]["stock"] == 4
    assert all(variant["summary"] and variant["title"] for variant in body)


def test_each_variant_summary_agrees_with_its_layout_and_rules() -> None:
    # The lobby's picker shows these sentences: they must not contradict the data beside them.
    by_name = {variant["name"]: variant for variant in APIClient().get("/api/v1/variants/").json()}
    wasp = by_name["wasp"]["summary"].lower()
    assert "first three columns" not in wasp
    assert "any card" in wasp
    assert "every card" not in wasp
    assert "first three columns" in by_name["wasp-ii"]["summary"].lower()
    assert "stock of four" in by_name["double-scorpion"]["summary"].lower()
    assert "other colour" in by_name["scorpion-tail"]["summary"]
    mice = by_name["three-blind-mice"]["summary"].lower()
    assert "no stock" in mice
    assert "reserve of two" in mice
    assert "last three" in mice


# --- Creating a game in a variant ---


def test_a_game_is_scorpion_unless_a_variant_is_chosen(player: Player) -> None:
    game = player.new_game()
    assert game["variant"] == "scorpion"
    assert len(game["columns"]) == 7
    assert game["reserve"] == []


@pytest.mark.parametrize(
    ("name", "columns", "hidden", "stock", "reserve"),
    [
        ("wasp", 7, [3, 3, 3, 3, 0, 0, 0], 3, 0),
        ("wasp-ii", 7, [3, 3, 3, 0, 0, 0, 0], 3, 0),
        ("scorpion-tail", 7, [3, 3, 3, 3, 0, 0, 0], 3, 0),
        ("three-blind-mice", 10, [0] * 7 + [3, 3, 3], 0, 2),
        ("double-scorpion", 10, [4] * 5 + [0] * 5, 4, 0),
    ],
)
def test_a_game_is_dealt_in_the_layout_of_its_variant(
    player: Player, name: str, columns: int, hidden: list[int], stock: int, reserve: int
) -> None:
    game = player.new_game(variant=name)
    assert game["variant"] == name
    assert game["mode"] == "random"
    assert len(game["columns"]) == columns
    assert [column["hidden"] for column in game["columns"]] == hidden
    assert game["stock"] == stock
    assert len(game["reserve"]) == reserve
    assert game["code"] is None  # secret while the game is on, as in Scorpion
    stored = Game.objects.get(pk=game["id"])
    assert stored.variant == name
    # Read back from the stored projection: the same table.
    again = player.get(f"/api/v1/games/{game['id']}/").json()
    assert again["columns"] == game["columns"]
    assert again["variant"] == name


def test_a_seed_is_dealt_in_the_chosen_variant(player: Player) -> None:
    scorpion = Game.objects.get(pk=player.new_game(seed=42)["id"])
    wasp = Game.objects.get(pk=player.new_game(seed=42, variant="wasp-ii")["id"])
    double = Game.objects.get(pk=player.new_game(seed=42, variant="double-scorpion")["id"])
    # One deck: the same shuffle, laid out the variant's way; two decks: 104 cards.
    assert wasp.deal_code == scorpion.deal_code
    assert wasp.state["position"]["columns"][3]["hidden"] == 0
    assert scorpion.state["position"]["columns"][3]["hidden"] == 3
    assert len(double.deal_code) == 208
    assert double.seed == 42


def test_a_two_deck_deal_code_is_taken_only_by_the_two_deck_variant(player: Player) -> None:
    double = Game.objects.get(pk=player.new_game(seed=7, variant="double-scorpion")["id"])
    code = double.deal_code.lower()
    game = player.new_game(code=code, variant="double-scorpion")
    assert game["variant"] == "double-scorpion"
    assert game["code"] == double.deal_code  # supplied: shown, normalised
    body = problem(player.post("/api/v1/games/", {"code": code}), 400, "validation_error")
    assert "code" in body["errors"]
    body = problem(
        player.post("/api/v1/games/", {"code": code[:104], "variant": "double-scorpion"}),
        400,
        "validation_error",
    )
    assert "208" in body["detail"]


def test_an_unknown_variant_is_refused_naming_the_variants(player: Player) -> None:
    body = problem(player.post("/api/v1/games/", {"variant": "spider"}), 400, "unknown_variant")
    assert body["variants"] == NAMES
    assert "spider" in body["detail"]
    assert "variant" in body["errors"]
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    "variant", [7, True, None, ["wasp"], {"name": "wasp"}, "", "w" * 10_000, "WASP "]
)
def test_a_variant_of_the_wrong_shape_is_a_clean_400(player: Player, variant: Any) -> None:
    response = player.post("/api/v1/games/", {"variant": variant})
    assert response.status_code == 400, response.content
    assert response.json()["code"] in ("validation_error", "unknown_variant")
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {"mode": "daily", "variant": "wasp"},
        {"mode": "winnable", "variant": "double-scorpion"},
        {"pysol_number": 5, "variant": "scorpion-tail"},
    ],
)
def test_the_daily_winnable_and_pysol_deals_are_scorpion_only(
    player: Player, body: dict[str, Any]
) -> None:
    detail = problem(player.post("/api/v1/games/", body), 400, "variant_not_offered")["detail"]
    assert "Scorpion" in detail
    assert not Game.objects.exists()


def test_games_are_listed_by_variant(player: Player) -> None:
    wasp = player.new_game(variant="wasp")
    player.new_game()
    listed = player.get("/api/v1/games/?variant=wasp").json()
    assert [game["id"] for game in listed["results"]] == [wasp["id"]]
    problem(player.get("/api/v1/games/?variant=spider"), 400, "validation_error")


def test_one_open_game_per_mode_and_variant(player: Player) -> None:
    scorpion = player.new_game()
    first_wasp = player.new_game(variant="wasp")
    second_wasp = player.new_game(variant="wasp")
    status = dict(Game.objects.values_list("id", "status"))
    assert status[Game.objects.get(pk=scorpion["id"]).pk] == "playing"
    assert status[Game.objects.get(pk=first_wasp["id"]).pk] == "abandoned"
    assert status[Game.objects.get(pk=second_wasp["id"]).pk] == "playing"


def test_a_restart_keeps_the_variant(player: Player) -> None:
    game = player.new_game(variant="three-blind-mice")
    restarted = player.post(f"/api/v1/games/{game['id']}/restart/")
    assert restarted.status_code == 201, restarted.content
    body = restarted.json()
    assert body["variant"] == "three-blind-mice"
    assert body["columns"] == game["columns"]
    assert body["reserve"] == game["reserve"]


# --- Playing a variant ---


def test_a_wasp_ii_game_is_won_through_the_api_and_counts_for_wasp_ii(player: Player) -> None:
    game = player.new_game(seed=0, variant="wasp-ii")
    response = None
    for command in winning_wasp_line(0, "wasp-ii"):
        response = player.command(game["id"], command)
        assert response.status_code == 200, (command, response.content)
    assert response is not None
    assert response.json()["status"] == "won"
    assert response.json()["variant"] == "wasp-ii"
    stats = player.get("/api/v1/stats/").json()
    by_variant = {row["variant"]: row for row in stats["variants"]}
    assert by_variant["wasp-ii"]["won"] == by_variant["wasp-ii"]["played"] == 1
    assert by_variant["wasp-ii"]["win_rate"] == 1.0
    assert by_variant["scorpion"]["played"] == 0
    assert stats["won"] == 1  # and overall
    # The solver plays Wasp II by its rules: the won game's analysis is served.
    analysis = player.get(f"/api/v1/games/{game['id']}/analysis/")
    assert analysis.status_code == 200, analysis.content
    assert analysis.json()["outcome"] == "won"
    assert analysis.json()["deal"] == "won"
    # Replaying the history from the deal gives the Wasp II game (face down in columns 1-3),
    # not a Scorpion one.
    states = player.get(f"/api/v1/games/{game['id']}/states/?start=0&limit=2").json()
    assert states["results"][0]["variant"] == "wasp-ii"
    assert states["results"][0]["columns"][3]["hidden"] == 0


def test_the_hints_of_a_two_deck_game_say_where_each_card_is_taken_from(
    player: Player,
) -> None:
    game = player.new_game(seed=3, variant="double-scorpion")
    hints = player.get(f"/api/v1/games/{game['id']}/hints/").json()
    assert hints["moves"], hints
    best = hints["moves"][0]
    assert 0 <= best["from"] < 10
    assert best["card"] in game["columns"][best["from"]]["cards"]
    wrong = (best["from"] + 1) % 10
    refused = player.command(
        game["id"], {"type": "move", "card": best["card"], "from": wrong, "to": best["to"]}
    )
    assert refused.status_code == 422, refused.content
    played = player.command(
        game["id"], {"type": "move", "card": best["card"], "from": best["from"], "to": best["to"]}
    )
    assert played.status_code == 200, played.content
    assert played.json()["event"]["from"] == best["from"]
    assert played.json()["event"]["to"] == best["to"]


def test_double_scorpion_deals_its_stock_of_four_onto_columns_1_to_4(player: Player) -> None:
    game = player.new_game(seed=3, variant="double-scorpion")
    assert game["stock"] == 4
    hints = player.get(f"/api/v1/games/{game['id']}/hints/").json()
    assert hints["deal"] is True
    dealt = player.command(game["id"], {"type": "deal"})
    assert dealt.status_code == 200, dealt.content
    event = dealt.json()["event"]
    assert len(event["dealt"]) == 4
    after = dealt.json()
    assert after["stock"] == 0
    assert [column["cards"][-1] for column in after["columns"][:4]] == event["dealt"]


def test_either_copy_in_one_column_moves_by_naming_it(player: Player) -> None:
    # Seed 4 deals both copies of 3D face up in column 9 (index 8), and either may go onto an
    # exposed 4D (PySolFC 3.4.0+): the hints name each by ``copy``, and the lower one moves.
    game = player.new_game(seed=4, variant="double-scorpion")
    hints = player.get(f"/api/v1/games/{game['id']}/hints/").json()
    both = [move for move in hints["moves"] if "copy" in move]
    assert {move["copy"] for move in both} == {"upper", "lower"}, hints
    lower = next(move for move in both if move["copy"] == "lower")
    upper = next(move for move in both if move["copy"] == "upper")
    assert (lower["card"], lower["from"], lower["to"]) == (
        upper["card"],
        upper["from"],
        upper["to"],
    )
    body = {"type": "move", "card": lower["card"], "from": lower["from"], "to": lower["to"]}
    played = player.command(game["id"], {**body, "copy": "lower"})
    assert played.status_code == 200, played.content
    column = game["columns"][lower["from"]]["cards"]
    # The lower copy carries every card above it: more than the upper one would.
    assert played.json()["event"]["count"] == len(column) - column.index(lower["card"])
    assert played.json()["event"]["count"] > column[::-1].index(lower["card"]) + 1


def test_a_copy_that_is_not_there_or_of_the_wrong_shape_is_refused(player: Player) -> None:
    game = player.new_game(seed=3, variant="double-scorpion")
    best = player.get(f"/api/v1/games/{game['id']}/hints/").json()["moves"][0]
    assert "copy" not in best
    body = {"type": "move", "card": best["card"], "from": best["from"], "to": best["to"]}
    refused = problem(player.command(game["id"], {**body, "copy": "lower"}), 422, "illegal_move")
    assert refused["details"]["reason"] == "no_lower_copy"
    for wrong in ("middle", 1, True):
        response = player.command(game["id"], {**body, "copy": wrong})
        assert response.status_code == 400, response.content
    body = problem(
        player.command(game["id"], {"type": "undo", "copy": "upper"}), 400, "validation_error"
    )
    assert "copy" in body["errors"]
    assert Game.objects.get(pk=game["id"]).version == 0


def test_double_scorpion_as_pysolfc_3_2_dealt_it_is_not_offered_for_new_games(
    player: Player,
) -> None:
    body = problem(
        player.post("/api/v1/games/", {"variant": "double-scorpion-3-2"}),
        400,
        "variant_not_offered",
    )
    assert "double-scorpion" in body["detail"]
    assert "double-scorpion-3-2" not in [
        v["name"] for v in APIClient().get("/api/v1/variants/").json()
    ]
    assert not Game.objects.exists()


def test_a_reserve_card_is_picked_from_past_the_last_column(player: Player) -> None:
    game = player.new_game(seed=1, variant="three-blind-mice")
    hints = player.get(f"/api/v1/games/{game['id']}/hints/").json()
    from_reserve = [move for move in hints["moves"] if move["from"] >= 10]
    for move in from_reserve:
        assert move["card"] == game["reserve"][move["from"] - 10]


def test_a_reserve_card_asked_for_from_the_wrong_slot_names_the_reserve_slot(
    player: Player,
) -> None:
    game = player.new_game(seed=7, variant="three-blind-mice")
    card = game["reserve"][1]  # in slot 2: asked for from slot 1 (index 10)
    body = problem(
        player.command(game["id"], {"type": "move", "card": card, "from": 10}), 422, "illegal_move"
    )
    assert body["details"]["reason"] == "not_in_column"
    assert body["detail"] == f"{card} is not face up in reserve slot 1"


def test_a_deal_in_a_variant_without_a_stock_says_it_has_none(player: Player) -> None:
    game = player.new_game(variant="three-blind-mice")
    body = problem(player.command(game["id"], {"type": "deal"}), 422, "stock_empty")
    assert "has no stock" in body["detail"]
    assert "already been dealt" not in body["detail"]


@pytest.mark.parametrize("source", [-1, 12, "3", True, 10**30])
def test_a_from_of_the_wrong_shape_is_a_clean_400(player: Player, source: Any) -> None:
    game = player.new_game(variant="double-scorpion")
    response = player.command(game["id"], {"type": "move", "card": "KS", "from": source})
    assert response.status_code == 400, response.content
    assert Game.objects.get(pk=game["id"]).version == 0


def test_only_a_move_takes_from(player: Player) -> None:
    game = player.new_game()
    body = problem(player.command(game["id"], {"type": "undo", "from": 2}), 400, "validation_error")
    assert "from" in body["errors"]


def test_the_export_keeps_which_copy_moved_back_while_the_deal_is_secret(
    player: Player,
) -> None:
    game = player.new_game(variant="double-scorpion")  # random: its deal is secret
    for _ in range(12):  # a few moves: some of them move a second copy (card ints 52-103)
        hints = player.get(f"/api/v1/games/{game['id']}/hints/").json()
        if not hints["moves"]:
            break
        best = hints["moves"][0]
        body = {"type": "move", "card": best["card"], "from": best["from"], "to": best["to"]}
        if "copy" in best:
            body["copy"] = best["copy"]
        assert player.command(game["id"], body).status_code == 200
    stored = [event.payload for event in Game.objects.get(pk=game["id"]).events.all()]
    assert stored
    exported = player.get("/api/v1/me/export/").json()
    mine = next(item for item in exported["games"] if item["id"] == game["id"])
    assert mine["variant"] == "double-scorpion"
    assert mine["code"] is None
    assert all("ids" not in event["payload"] for event in mine["events"])
    events = player.get(f"/api/v1/games/{game['id']}/events/").json()["results"]
    assert all("ids" not in event for event in events)


def test_an_exported_payload_loses_its_copies_undone_and_redone_too() -> None:
    from players.selectors import _without_copies

    payload = {"card": "8H", "ids": [60], "undone": {"card": "8H", "ids": [60]}}
    assert _without_copies(payload) == {"card": "8H", "undone": {"card": "8H"}}


def analysis_of_a_resigned_game(player: Player, variant: str, seed: int) -> dict[str, Any]:
    game = player.new_game(variant=variant, seed=seed)
    assert player.command(game["id"], {"type": "resign"}).status_code == 200
    # As a worker analyses it, with the variant's full budgets (a request's smaller ones store
    # only what they decide: tests/api/test_analysis.py).
    tasks.analyse_game(game["id"])
    response = player.get(f"/api/v1/games/{game['id']}/analysis/")
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    assert body["status"] == "ready"
    return body


def test_a_finished_game_of_every_variant_is_analysed_by_its_own_budget(player: Player) -> None:
    # Three Blind Mice seed 0 is proven lost at the deal (a deadlock); Three Blind Mice seed 1
    # and Scorpion Tail seed 7 are won within the budget. Scorpion Tail is searched without the
    # deadlock proof (games/engine/variant_solver.py, uses_deadlock_proof), and the plain search
    # proved none of its deals lost within the budget (seeds 0-97, and the 61 deals of seeds
    # 0-2999 that are deadlocked at the deal): seed 8, one of those, is analysed as undecided.
    expected = {
        ("three-blind-mice", 0): "lost",
        ("three-blind-mice", 1): "won",
        ("scorpion-tail", 8): "unknown",
        ("scorpion-tail", 7): "won",
    }
    tail = VARIANTS["scorpion-tail"]
    assert dead(deal_position(deal_code_for_seed(8, tail), tail))  # what the proof would say
    for (variant, seed), deal in expected.items():
        body = analysis_of_a_resigned_game(player, variant, seed)
        assert body["node_budget"] == analysis_budgets(variant)[0] < analysis_budgets("scorpion")[0]
        assert body["deal"] == deal, (variant, seed)
        # Resigned at once: a lost deal was unwinnable, a won one ended winnable, with its line,
        # an undecided one stays unknown, its budget spent.
        if deal == "lost":
            assert body["outcome"] == "unwinnable"
            assert body["line"] == []
        elif deal == "unknown":
            assert body["outcome"] == "unknown"
            assert body["line"] == []
            assert body["solver_nodes"] > body["node_budget"]
        else:
            assert body["outcome"] == "ended_winnable"
            # Version 1, the resign (which changes no position), is the game's last.
            assert body["last_winnable_version"] == body["line_version"] == body["version"] == 1
            assert body["line"]


def test_a_double_scorpion_winning_line_is_served_each_move_with_its_copy(
    player: Player,
) -> None:
    # Seed 3's line starts with the 6 of clubs whose other copy lies face up elsewhere, under
    # cards: the step's table was once played with that copy and the answer was a 422.
    body = analysis_of_a_resigned_game(player, "double-scorpion", 3)

    assert (body["deal"], body["outcome"]) == ("won", "ended_winnable")
    moves = [step["command"] for step in body["line"] if step["command"]["type"] == "move"]
    assert moves
    assert all(isinstance(move["from"], int) for move in moves)
    assert len(body["line"][-1]["collected"]) == 8  # the line's last table: all eight runs


def test_a_deal_the_solver_cannot_decide_is_analysed_as_unknown_not_guessed(
    player: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A small budget, so that the test is quick: Double Scorpion seed 0 is undecided with it.
    monkeypatch.setitem(VARIANT_ANALYSIS_BUDGETS, "double-scorpion", (500, 1_000))
    body = analysis_of_a_resigned_game(player, "double-scorpion", 0)
    assert body["deal"] == "unknown"
    assert body["outcome"] == "unknown"
    assert body["last_winnable_version"] is None
    assert body["line"] == []
    assert body["line_version"] is None
    assert body["node_budget"] == 500
    assert 0 < body["solver_nodes"] <= 1_000
