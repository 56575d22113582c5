"""Playing through the SDK against the live server: a won game, undo/redo, replay, lists."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from scorpion_client import Game, GameHandle, NotFound, Scorpion
from scorpion_client._core import Ops

from tests.sdk.conftest import DEALS, WON_DEAL

pytestmark = pytest.mark.django_db(transaction=True)


def play_line(game: GameHandle, line: list[dict[str, object]]) -> None:
    for command in line:
        if command["type"] == "deal":
            game.deal()
        else:
            card = str(command["card"])
            to = command["to"]
            # The destination of anything but a King is found by the server.
            game.move(card, to=int(str(to)) if card.startswith("K") else None)


def test_play_a_known_deal_to_a_win(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    assert isinstance(game, GameHandle)
    assert (game.mode, game.status, game.version, game.stock) == ("seeded", "playing", 0, 3)
    assert len(game.columns) == 7
    assert [c.hidden for c in game.columns] == [3, 3, 3, 3, 0, 0, 0]
    assert game.code == WON_DEAL["code"]  # supplied by the player, so not secret

    play_line(game, WON_DEAL["line"])

    assert game.is_won
    assert game.is_finished
    assert game.version == len(WON_DEAL["line"])
    assert game.moves == len(WON_DEAL["line"])
    assert sorted(game.collected) == ["C", "D", "H", "S"]
    assert all(column.is_empty for column in game.columns)
    assert game.finished_at is not None
    assert game.elapsed_seconds is not None
    assert not game.can_undo
    assert game.last_event is not None
    assert game.last_event.collected

    fetched = client.games.get(game.id)
    assert fetched.snapshot() == game.snapshot()
    events = game.events()
    assert [e.seq for e in events] == list(range(1, game.version + 1))
    assert events[0].type == "move"
    assert events[0].card == WON_DEAL["line"][0]["card"]
    deal = next(e for e in events if e.type == "deal")
    assert len(deal.dealt) == 3


def test_undo_and_redo(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    first = WON_DEAL["line"][0]
    event = game.move(first["card"].lower())  # cards are case-insensitive
    assert (event.type, event.card, event.to) == ("move", first["card"], first["to"])
    after_move = game.snapshot()
    assert game.can_undo
    assert not game.can_redo

    undo = game.undo()
    assert undo.type == "undo"
    assert undo.undone is not None
    assert undo.undone.card == first["card"]
    assert game.version == 2
    assert game.moves == 0
    assert game.columns == client.games.state(game.id, 0).columns
    assert game.can_redo
    assert not game.can_undo

    redo = game.redo()
    assert redo.redone is not None
    assert redo.redone.card == first["card"]
    assert game.version == 3
    assert game.moves == 1
    assert game.columns == after_move.columns


def test_replay_steps_through_every_version(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    play_line(game, WON_DEAL["line"][:4])
    game.undo()
    positions = list(game.replay())
    assert [p.version for p in positions] == [0, 1, 2, 3, 4, 5]
    assert [p.moves for p in positions] == [0, 1, 2, 3, 4, 3]
    assert positions[3].columns == positions[5].columns  # the undo restored version 3
    assert positions[-1].columns == game.columns
    assert all(isinstance(p, Game) for p in positions)


def test_hints_refresh_and_restart(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    hints = game.hints()
    assert hints.version == 0
    assert hints.deal is True
    assert hints.moves
    assert hints.best is not None
    assert all(0 <= m.to <= 6 for m in hints.moves)
    game.move(hints.best.card, to=hints.best.to if hints.best.card[0] == "K" else None)

    # Another device plays; refresh() brings the handle up to date.
    other = client.games.get(game.id)
    other.deal()
    assert game.version == 1
    assert game.refresh() is game
    assert game.version == 2
    assert game.stock == 0
    assert game.refresh().version == 2  # unchanged: a 304, nothing to update

    again = game.restart()
    assert again.id != game.id
    assert again.version == 0
    assert again.restarted_from == game.id
    assert again.columns == client.games.state(game.id, 0).columns


def test_new_game_choices(client: Scorpion) -> None:
    by_seed = client.games.create(seed=42)
    assert by_seed.seed == 42
    assert by_seed.mode == "seeded"
    assert client.games.create(seed=42).columns == by_seed.columns
    random = client.games.create()
    assert random.mode == "random"
    assert random.seed is None
    assert random.code is None
    by_number = client.games.create(pysol_number=1234)
    assert by_number.pysol_number == 1234
    lost = client.games.create(code=DEALS["lost"][0]["code"])
    assert lost.status == "playing"


def test_list_filters_and_iterates_every_page(client: Scorpion) -> None:
    first = client.games.create(seed=0)
    first.resign()  # before the next seeded game, which would leave it behind (abandoned)
    created = [first, *(client.games.create(seed=seed) for seed in range(1, 5))]

    page = client.games.list(page_size=2)
    assert page.count == 5
    assert len(page.results) == 2
    assert page.next is not None
    assert [g.id for g in page.results] == [created[4].id, created[3].id]  # newest first

    everything = list(client.games.iter_all(page_size=2))
    assert [g.id for g in everything] == [g.id for g in reversed(created)]

    resigned = list(client.games.iter_all(status="resigned"))
    assert [g.id for g in resigned] == [created[0].id]
    assert resigned[0].code is not None  # a finished game reveals its deal
    assert list(client.games.iter_all(mode="daily")) == []


def test_another_players_game_is_not_found(make_client: Callable[..., Scorpion]) -> None:
    alice, bob = make_client(), make_client()
    game = alice.games.create()
    with pytest.raises(NotFound) as caught:
        bob.games.get(game.id)
    assert caught.value.status == 404
    assert caught.value.code == "not_found"
    with pytest.raises(NotFound):
        bob.games.move(game.id, "8H")
    with pytest.raises(NotFound):
        alice.games.state(game.id, 1)  # past the game's last version


def test_events_and_replay_follow_the_pages_for_the_caller(client: Scorpion) -> None:
    game = client.games.create(code=WON_DEAL["code"])
    first = WON_DEAL["line"][0]
    for _ in range(6):
        game.move(first["card"])
        game.undo()
    assert game.version == 12

    pages = list(client.iter_pages(Ops.games_events(game.id, limit=5)))
    assert [len(page.results) for page in pages] == [5, 5, 2]
    assert [e.seq for e in client.games.iter_events(game.id, page_size=5)] == list(range(1, 13))
    assert [e.seq for e in client.games.iter_events(game.id, after=10)] == [11, 12]
    assert client.games.export_events(game.id) == game.events()

    replayed = list(client.games.replay(game.id, page_size=5))
    assert [state.version for state in replayed] == list(range(13))
    assert replayed[1].moves == 1
    assert replayed[2].moves == 0
    assert [s.version for s in client.games.replay(game.id, start=3, stop=7)] == [3, 4, 5, 6, 7]
    single = client.games.state(game.id, 7)
    assert (replayed[7].columns, replayed[7].moves) == (single.columns, single.moves)
