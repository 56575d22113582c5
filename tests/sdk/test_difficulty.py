"""Deal difficulty through the SDK and the terminal client, against the live server: a
winnable game of a chosen band, the band on the game and the daily, the measures in the
analysis once over, the win rate by band in the statistics (docs/difficulty.md)."""

from __future__ import annotations

import pytest
from scorpion_client import Scorpion, ServiceUnavailable

from games.models import WinnableDeal
from games.services import certification as certification_services
from tests.difficulty_data import banded_pool, today_rated_deal
from tests.sdk.conftest import PASSWORD, new_email
from tests.sdk.test_cli import Terminal, terminal  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db(transaction=True)


def test_create_a_winnable_game_of_a_band_and_read_it_back(client: Scorpion) -> None:
    banded_pool()
    game = client.games.create(mode="winnable", difficulty="hard")
    assert game.difficulty == "hard"
    assert client.games.get(game.id).difficulty == "hard"
    game.resign()
    analysis = client.games.analysis(game.id)
    assert analysis.difficulty is not None
    assert analysis.difficulty.band == "hard"
    assert analysis.difficulty.measures["playouts"] == 64
    stats = client.stats.get()
    assert stats.difficulty["hard"].played == 1
    assert stats.difficulty["hard"].win_rate == 0.0
    assert stats.difficulty["easy"].win_rate is None


def test_an_empty_band_raises_service_unavailable_with_its_code(
    client: Scorpion, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(certification_services, "BAND_INLINE_ATTEMPTS", 0)
    with pytest.raises(ServiceUnavailable) as raised:
        client.games.create(mode="winnable", difficulty="easy")
    assert raised.value.code == "difficulty_unavailable"


def test_the_daily_model_carries_its_band_and_score(client: Scorpion) -> None:
    today_rated_deal("medium", 40)
    today = client.daily.today()
    assert (today.difficulty, today.difficulty_score) == ("medium", 40)


def test_the_terminal_plays_a_winnable_deal_of_the_band_asked_for(
    terminal: Terminal,  # noqa: F811
) -> None:
    banded_pool()
    assert terminal("signup", "--email", new_email(), lines=[PASSWORD])[0] == 0
    status, out = terminal("play", "--difficulty", "easy", lines=["q"])
    assert status == 0, out
    assert "Scorpion · winnable · easy" in out
    assert WinnableDeal.objects.filter(difficulty_band="easy").exists()


def test_the_terminal_refuses_a_difficulty_for_another_deal(terminal: Terminal) -> None:  # noqa: F811
    with pytest.raises(SystemExit):
        terminal("play", "--seed", "5", "--difficulty", "hard")
