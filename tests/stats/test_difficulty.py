"""A player's win rate by difficulty band (GET /api/v1/stats/, "difficulty"): played games on
certified deals, by the band each game was announced in (docs/difficulty.md)."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game, WinnableDeal
from tests.api.conftest import Player
from tests.api.test_daily_secrecy import play_line
from tests.difficulty_data import banded_pool, today_rated_deal
from tests.stats.conftest import CODE, LINE

pytestmark = pytest.mark.django_db


def won_winnable(player: Player, band: str) -> None:
    game = player.new_game(mode="winnable", difficulty=band)
    code = Game.objects.get(pk=game["id"]).deal_code
    line = WinnableDeal.objects.get(deal_code=code).certificate
    assert play_line(player, game["id"], line)["status"] == "won"


def by_band(player: Player) -> dict[str, Any]:
    body: dict[str, Any] = player.get("/api/v1/stats/").json()["difficulty"]
    return body


def test_win_rate_by_band_counts_played_games_by_their_announced_band(player: Player) -> None:
    banded_pool()
    won_winnable(player, "easy")
    resigned = player.new_game(mode="winnable", difficulty="hard")
    player.command(resigned["id"], {"type": "resign"})
    dealt = player.new_game(mode="winnable", difficulty="hard")
    player.command(dealt["id"], {"type": "deal"})
    # Leaves `dealt` behind after a deal (played, lost) and is itself left untouched by the
    # next one (not played).
    player.new_game(mode="winnable", difficulty="hard")
    player.new_game(mode="winnable", difficulty="medium")
    assert by_band(player) == {
        "easy": {"played": 1, "won": 1, "win_rate": 1.0},
        "medium": {"played": 0, "won": 0, "win_rate": None},
        "hard": {"played": 2, "won": 0, "win_rate": 0.0},
    }


def test_the_daily_counts_in_its_band(player: Player) -> None:
    today_rated_deal("medium", 40)
    game = player.new_game(mode="daily")
    play_line(player, game["id"], LINE)
    assert by_band(player)["medium"] == {"played": 1, "won": 1, "win_rate": 1.0}


def test_games_on_unrated_or_chosen_deals_count_in_no_band(player: Player) -> None:
    game = player.new_game(code=CODE)
    player.command(game["id"], {"type": "resign"})
    assert all(figures["played"] == 0 for figures in by_band(player).values())
    assert player.get("/api/v1/stats/").json()["played"] == 1
