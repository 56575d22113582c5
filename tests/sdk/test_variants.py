"""The Scorpion family through the SDK and the terminal client, against the live server."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import get_args

import pytest
from scorpion_client import Scorpion, ValidationError, Variant, VariantInfo, cli

from games.engine.position import deal_position
from games.engine.solver import solve
from games.engine.variants import OFFERED_VARIANTS, VARIANTS, deal_code_for_seed
from tests.sdk.conftest import PASSWORD, fast_transport, new_email
from tests.sdk.test_cli import Terminal

pytestmark = pytest.mark.django_db(transaction=True)


def wasp_line(seed: int) -> list[dict[str, object]]:
    """A winning line of a Wasp deal (every Scorpion move is a Wasp move, so the Scorpion
    solver's line on the Wasp layout wins it)."""
    wasp = VARIANTS["wasp"]
    solution = solve(deal_position(deal_code_for_seed(seed, wasp), wasp), node_budget=100_000)
    assert solution.verdict == "won"
    return list(solution.line)


def test_the_variant_literal_is_the_servers_list(client: Scorpion) -> None:
    variants = client.variants()
    assert all(isinstance(variant, VariantInfo) for variant in variants)
    # The Literal also names the variant kept for the games begun in it, which the server
    # lists as no choice for a new game; the terminal client offers the server's list.
    assert [variant.name for variant in variants] == list(OFFERED_VARIANTS) == list(cli.VARIANTS)
    assert list(get_args(Variant)) == list(VARIANTS)
    mice = next(variant for variant in variants if variant.name == "three-blind-mice")
    assert (mice.columns, mice.reserve, mice.stock) == (10, 2, 0)
    assert all(not variant.extra for variant in variants)


def test_create_a_wasp_game_win_it_and_see_it_in_the_stats(client: Scorpion) -> None:
    game = client.games.create(seed=0, variant="wasp")
    assert (game.variant, game.mode, len(game.columns)) == ("wasp", "seeded", 7)
    assert [column.hidden for column in game.columns] == [3, 3, 3, 3, 0, 0, 0]
    for command in wasp_line(0):
        if command["type"] == "deal":
            game.deal()
        else:
            game.move(str(command["card"]), int(str(command["to"])))
    assert game.is_won
    listed = client.games.list(variant="wasp")
    assert [g.id for g in listed.results] == [game.id]
    assert client.games.list(variant="scorpion").results == []
    stats = client.stats.get()
    wasp = stats.variant("wasp")
    assert wasp is not None
    assert (wasp.played, wasp.won, wasp.win_rate) == (1, 1, 1.0)
    assert not stats.extra


def test_a_two_deck_move_names_its_copy_with_from(client: Scorpion) -> None:
    game = client.games.create(seed=3, variant="double-scorpion")
    assert len(game.columns) == 10
    best = game.hints().moves[0]
    assert best.from_ is not None
    event = game.move(best.card, best.to, from_=best.from_)
    assert (event.card, event.from_, event.to) == (best.card, best.from_, best.to)


def test_a_two_deck_move_names_the_lower_copy_with_copy(client: Scorpion) -> None:
    # Seed 4 deals both copies of 3D face up in one column; either may move (PySolFC 3.4.0+).
    game = client.games.create(seed=4, variant="double-scorpion")
    lower = next(move for move in game.hints().moves if move.copy == "lower")
    event = game.move(lower.card, lower.to, from_=lower.from_, copy=lower.copy)
    column = list(game.columns[lower.to].cards)
    assert event.count is not None
    assert event.count >= 3
    assert column[-event.count] == lower.card


def test_three_blind_mice_shows_its_reserve(client: Scorpion) -> None:
    game = client.games.create(variant="three-blind-mice")
    assert len(game.reserve) == 2
    assert game.stock == 0


def test_the_server_refuses_what_the_variant_does_not_deal(client: Scorpion) -> None:
    with pytest.raises(ValidationError) as refused:
        client.games.create(mode="daily", variant="wasp")
    assert refused.value.code == "variant_not_offered"
    with pytest.raises(ValidationError) as unknown:
        client.games.create(variant="spider")  # type: ignore[arg-type]
    assert unknown.value.code == "unknown_variant"


@pytest.fixture
def terminal(server_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Terminal:
    monkeypatch.setattr(cli, "Scorpion", functools.partial(Scorpion, transport=fast_transport()))
    return Terminal(server_url, tmp_path / "scorpion" / "token")


def test_the_terminal_client_plays_a_variant(terminal: Terminal) -> None:
    assert terminal("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    status, out = terminal("new", "--variant", "double-scorpion", "--seed", "3", lines=["q"])
    assert status == 0, out
    assert "Double Scorpion · seeded" in out
    assert " 10 " in out  # the tenth column's header
    status, out = terminal("play", "--variant", "three-blind-mice", lines=["q"])
    assert status == 0, out
    assert "Three Blind Mice · random" in out
    assert "Reserve: " in out
    assert "(from 11)" in out
    status, out = terminal("play", "--daily", "--variant", "wasp", lines=["q"])
    assert status == 1, out
    assert "the daily mode deals Scorpion only, not wasp" in out


def test_the_terminal_clients_list_of_games_names_each_ones_variant(terminal: Terminal) -> None:
    assert terminal("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    assert terminal("new", "--variant", "three-blind-mice", "--seed", "3", lines=["q"])[0] == 0
    assert terminal("new", "--seed", "3", lines=["q"])[0] == 0

    status, out = terminal("games")

    assert status == 0, out
    rows = [line for line in out.splitlines() if "seeded" in line]
    assert len(rows) == 2
    assert "Scorpion" in rows[0]  # newest first
    assert "Three Blind Mice" not in rows[0]
    assert "Three Blind Mice" in rows[1]


def test_the_terminal_client_plays_a_reserve_card_from_the_prompt(terminal: Terminal) -> None:
    # Three Blind Mice, seed 1: the reserve is KD and 4D; 4D (slot 2, "from 12" on screen)
    # goes on the 5D of column 2.
    assert terminal("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    status, out = terminal(
        "play",
        "--variant",
        "three-blind-mice",
        "--seed",
        "1",
        lines=["4d from 11", "4d from 12", "d", "q"],
    )
    assert status == 0, out
    assert "(from 12)" in out
    assert "4♦ is not face up in reserve slot 1" in out  # the wrong slot, named as a slot
    assert "→ column 2" in out
    assert "Stock: none" in out  # never "dealt": this game has no stock
    assert "Stock: dealt" not in out
    assert "Three Blind Mice has no stock to deal" in out


def test_the_terminal_clients_hint_in_two_decks_says_where_to_pick_the_card_from(
    terminal: Terminal,
) -> None:
    # Double Scorpion, seed 300: the first hint moves the 2D of column 4 onto column 1, where
    # the 2D of column 6 could go too; typed as the hint was shown before ("2d 1"), the move
    # was refused as ambiguous.
    assert terminal("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    status, out = terminal(
        "play", "--variant", "double-scorpion", "--seed", "300", lines=["h", "2d 1 from 4", "q"]
    )
    assert status == 0, out
    assert "Hint: 2♦ → column 1 (from 4)" in out
    assert "both copies" not in out
    assert "2♦ and the 5 cards on it → column 1" in out  # typed as hinted: played
