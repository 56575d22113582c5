"""The test deals proven won are won by their lines, played as a player would."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine.actions import DEAL, Action, Record
from games.engine.cards import parse_card
from games.engine.legal import status
from games.engine.position import Position, deal_position
from games.engine.resolve import resolve_move
from games.engine.transitions import play, undo
from tests.data import DEALS


def play_line(start: Position, line: list[dict[str, Any]]) -> tuple[Position, list[Record]]:
    position, records = start, []
    for command in line:
        action: Action
        if command["type"] == "deal":
            action = DEAL
        else:
            action = resolve_move(position, parse_card(command["card"]), command.get("to"))
        assert status(position) == "playing"
        position, record = play(position, action)
        records.append(record)
    return position, records


@pytest.mark.parametrize("deal", DEALS["won"], ids=lambda deal: deal["code"][:12])
def test_winning_line_wins(deal: dict[str, Any]) -> None:
    position, _ = play_line(deal_position(deal["code"]), deal["line"])

    assert status(position) == "won"
    assert len(position.collected) == 4
    assert position.columns == ((),) * 7
    assert position.stock == ()


@pytest.mark.parametrize("deal", DEALS["won"], ids=lambda deal: deal["code"][:12])
def test_every_non_king_of_a_winning_line_finds_its_column_by_itself(
    deal: dict[str, Any],
) -> None:
    position = deal_position(deal["code"])
    for command in deal["line"]:
        if command["type"] == "move" and not command["card"].startswith("K"):
            move = resolve_move(position, parse_card(command["card"]))
            assert move.to == command["to"]
        position, _ = play_line(position, [command])


@pytest.mark.parametrize("deal", DEALS["won"], ids=lambda deal: deal["code"][:12])
def test_undoing_a_winning_line_returns_to_the_deal(deal: dict[str, Any]) -> None:
    start = deal_position(deal["code"])
    position, records = play_line(start, deal["line"])

    for record in reversed(records):
        position = undo(position, record)

    assert position == start
