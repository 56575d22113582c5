"""Migration 0015: the games begun before the family followed PySolFC 3.4.0 keep the rules they
began with. Wasp's then (face down in columns 1-3) are Wasp II's, Double Scorpion's then (4 x 11
and 6 x 10, no stock, only the upper of two copies in a column moving) are
``double-scorpion-3-2``'s; every stored log replays to the very states it had."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import User

from games import selectors
from games.engine.variants import deal_code_for_seed, get_variant
from games.history import SNAPSHOT_INTERVAL
from games.models import Game, GameSnapshot
from games.variants import deal_state, offered_variant_names
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db

migration = importlib.import_module("games.migrations.0015_variants_keep_their_rules")


def double_scorpion_3_2_game(owner: User, *, seed: int) -> Game:
    """A game of a variant no longer offered for new games, its row made as the service made
    it then (the API refuses to begin one now)."""
    code = deal_code_for_seed(seed, get_variant("double-scorpion-3-2"))
    return Game.objects.create(
        owner=owner,
        mode="seeded",
        variant="double-scorpion-3-2",
        deal_code=code,
        seed=seed,
        state=deal_state(code, "double-scorpion-3-2").to_dict(),
    )


def play_a_while(player: Player, game_id: str, commands: int) -> None:
    """The hints' best moves, with undos, redos and the deal among them: a log longer than a
    snapshot's interval, with every kind of event a replay goes through."""
    for step in range(commands):
        game = player.get(f"/api/v1/games/{game_id}/").json()
        if game["status"] != "playing":
            break
        hints = player.get(f"/api/v1/games/{game_id}/hints/").json()
        body: dict[str, Any]
        if step % 7 == 5 and game["moves"]:
            body = {"type": "undo"}
        elif step % 7 == 6:
            body = {"type": "redo"}
        elif hints["moves"] and step % 11 != 10:
            best = hints["moves"][step % min(3, len(hints["moves"]))]
            body = {"type": "move", "card": best["card"], "from": best["from"], "to": best["to"]}
            if "copy" in best:
                body["copy"] = best["copy"]
        elif hints["deal"]:
            body = {"type": "deal"}
        else:
            body = {"type": "undo"}
        response = player.command(game_id, body)
        if body["type"] == "redo" and response.status_code != 200:
            continue  # nothing to redo (a move came after the undo): the next step plays on
        assert response.status_code == 200, (body, response.content)


def states_from_the_log(game: Game) -> list[dict[str, Any]]:
    """Every state of the game, folded from its deal by its variant's rules (the staff's
    replay viewer: no derived data trusted)."""
    return [
        selectors.game_state_at(game=game, version=version, from_deal=True).to_dict()
        for version in range(game.version + 1)
    ]


def without_clock(page: dict[str, Any]) -> list[dict[str, Any]]:
    """A page of states without what the clock changes between two reads (a game in play's
    time runs on)."""
    return [
        {key: value for key, value in state.items() if key != "elapsed_seconds"}
        for state in page["results"]
    ]


def stored_as_before(game_id: str, old: str) -> None:
    """Turn a game of the kept rules back into the rows an earlier release stored: the
    variant's old name, on the game and in every stored position."""

    def renamed(state: dict[str, Any]) -> dict[str, Any]:
        return {**state, "position": {**state["position"], "variant": old}}

    game = Game.objects.get(pk=game_id)
    Game.objects.filter(pk=game_id).update(variant=old, state=renamed(game.state))
    for snapshot in GameSnapshot.objects.filter(game_id=game_id):
        GameSnapshot.objects.filter(pk=snapshot.pk).update(state=renamed(snapshot.state))


def test_games_begun_under_the_old_rules_replay_every_stored_log_to_the_same_states(
    player: Player,
) -> None:
    owner = User.objects.get(email=player.email)
    # A Wasp game of then: dealt, played and stored as Wasp II plays today.
    wasp = player.new_game(seed=5, variant="wasp-ii")["id"]
    # A Double Scorpion game of then (no longer offered for new games: its row made here as
    # the service made it, then played through the API like any game).
    double = str(double_scorpion_3_2_game(owner, seed=5).pk)
    # And a Scorpion game, whose rules this release keeps.
    scorpion = player.new_game(seed=5)["id"]
    for game_id in (wasp, double, scorpion):
        play_a_while(player, game_id, 2 * SNAPSHOT_INTERVAL + 5)
    expected = {
        game.pk: (game.variant, states_from_the_log(game), game.state)
        for game in Game.objects.all()
    }
    pages = {
        game_id: player.get(f"/api/v1/games/{game_id}/states/?start=0&limit=100").json()
        for game_id in (wasp, double, scorpion)
    }
    assert all(Game.objects.get(pk=pk).version > SNAPSHOT_INTERVAL for pk in expected)
    assert GameSnapshot.objects.filter(game_id=double).exists()
    stored_as_before(wasp, "wasp")
    stored_as_before(double, "double-scorpion")
    # Read by today's rules, the old rows are other games: Wasp now deals face-down cards in
    # column 4, Double Scorpion ten by ten with a stock.
    for game_id in (wasp, double):
        old = Game.objects.get(pk=game_id)
        assert deal_state(old.deal_code, old.variant).to_dict() != expected[old.pk][1][0]

    migration.forwards(apps, None)

    for game in Game.objects.all():
        variant, states, projection = expected[game.pk]
        assert game.variant == variant
        assert states_from_the_log(game) == states
        assert game.state == projection == states[-1]
        for snapshot in GameSnapshot.objects.filter(game=game):
            assert snapshot.state == states[snapshot.version]
    assert Game.objects.get(pk=wasp).variant == "wasp-ii"
    assert Game.objects.get(pk=double).variant == "double-scorpion-3-2"
    for game_id, page in pages.items():
        again = player.get(f"/api/v1/games/{game_id}/states/?start=0&limit=100").json()
        assert without_clock(again) == without_clock(page)
    # And they go on by their rules: the next command is accepted as before.
    for game_id in (wasp, double):
        play_a_while(player, game_id, 3)


def test_the_migration_leaves_todays_games_and_the_other_variants_alone(player: Player) -> None:
    games = {
        name: player.new_game(seed=2, variant=name)["id"]
        for name in ("scorpion", "wasp-ii", "scorpion-tail", "three-blind-mice")
    }
    before = {game.pk: (game.variant, game.state) for game in Game.objects.all()}

    migration.forwards(apps, None)

    assert {game.pk: (game.variant, game.state) for game in Game.objects.all()} == before
    assert {str(pk) for pk in before} == set(games.values())


def test_a_game_begun_in_double_scorpion_3_2_restarts_by_its_own_rules(player: Player) -> None:
    game = double_scorpion_3_2_game(User.objects.get(email=player.email), seed=8)
    response = player.post(f"/api/v1/games/{game.pk}/restart/")
    assert response.status_code == 201, response.content
    again = response.json()
    assert again["variant"] == "double-scorpion-3-2"
    assert [len(column["cards"]) + column["hidden"] for column in again["columns"]] == [11] * 4 + [
        10
    ] * 6
    assert again["stock"] == 0


def test_the_statistics_list_a_variant_no_longer_offered_only_to_its_players(
    player: Player, make_player: Callable[[], Player]
) -> None:
    # Every player's statistics list the variants a new game may be in; Double Scorpion 3.2
    # (kept for the games begun in it) only for a player who has such a game.
    newcomer = make_player()
    listed = [row["variant"] for row in newcomer.get("/api/v1/stats/").json()["variants"]]
    assert listed == offered_variant_names()

    double_scorpion_3_2_game(User.objects.get(email=player.email), seed=8)
    rows = {row["variant"]: row for row in player.get("/api/v1/stats/").json()["variants"]}
    assert set(rows) == {*offered_variant_names(), "double-scorpion-3-2"}
    assert rows["double-scorpion-3-2"]["in_play"] == 1


def test_the_achievements_list_a_variant_no_longer_offered_only_to_its_players(
    player: Player, make_player: Callable[[], Player]
) -> None:
    # Nobody begins a Double Scorpion 3.2 game now, so its achievement is one only a player
    # who has such a game (or has earned it) can hold: as the statistics list the variants.
    def codes(who: Player) -> list[str]:
        response = who.get("/api/v1/achievements/")
        assert response.status_code == 200, response.content
        return [row["code"] for row in response.json()["achievements"]]

    newcomer = make_player()
    listed = [code for code in codes(newcomer) if code.startswith("win_")]
    assert listed == [f"win_{name}" for name in offered_variant_names()]

    double_scorpion_3_2_game(User.objects.get(email=player.email), seed=8)
    assert "win_double-scorpion-3-2" in codes(player)
