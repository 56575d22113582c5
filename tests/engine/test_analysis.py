"""Post-game analysis (games.analysis): the verdict on the deal, where a lost game turned, and
a winning line from there, on real logs built with the game's own command handling."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from games.analysis import analyse, line_steps
from games.engine.actions import Move as MoveAction
from games.engine.cards import card_code, parse_card, parse_deal_code
from games.engine.deals import deal_code_for_seed
from games.engine.legal import legal_actions, status
from games.engine.position import Position
from games.engine.solver import compiled, solve
from games.engine.transitions import play
from games.history import Command, GameState, apply_command, new_game_state
from tests.data import DEALS
from tests.engine.test_solver import HARD_SEED, play_line

WON_CODE = DEALS["won"][0]["code"]
WON_LINE = DEALS["won"][0]["line"]
LOST_CODE = DEALS["lost"][0]["code"]


class Log:
    """A game played through ``history.apply_command``: its events as they would be stored."""

    def __init__(self, code: str) -> None:
        self.cards = parse_deal_code(code)
        self.state: GameState = new_game_state(self.cards)
        self.events: list[tuple[str, dict[str, Any]]] = []

    def do(self, command: Command) -> Log:
        outcome = apply_command(self.state, command)
        self.state = outcome.state
        self.events.append((outcome.event_type, outcome.payload))
        return self

    def command(self, step: dict[str, Any]) -> Log:
        if step["type"] == "deal":
            return self.do(Command("deal"))
        return self.do(Command("move", parse_card(step["card"]), step["to"]))


def losing_move(position: Position) -> MoveAction:
    """A legal move from a winnable position after which the game can no longer be won."""
    for action in legal_actions(position):
        if isinstance(action, MoveAction) and solve(play(position, action)[0]).lost:
            return action
    raise AssertionError("no losing move here")


def first_losing_point(code: str, line: list[dict[str, Any]]) -> tuple[Log, MoveAction]:
    """Follow the winning line until a position offers a move that loses the game."""
    log = Log(code)
    for step in line:
        for action in legal_actions(log.state.position):
            if isinstance(action, MoveAction) and solve(play(log.state.position, action)[0]).lost:
                return log, action
        log.command(step)
    raise AssertionError("the line never offers a losing move")


def test_a_won_game_has_a_winning_line_from_the_deal_and_no_turning_point() -> None:
    log = Log(WON_CODE)
    for step in WON_LINE:
        log.command(step)
    assert log.state.status == "won"

    result = analyse(log.cards, log.events, won=True)

    assert (result.deal, result.outcome) == ("won", "won")
    assert result.last_winnable_version is None
    assert result.line_version == 0
    assert status(play_line(new_game_state(log.cards).position, result.line)) == "won"


def test_an_unwinnable_deal_resigned_is_said_unwinnable() -> None:
    log = Log(LOST_CODE).do(Command("resign"))

    result = analyse(log.cards, log.events, won=False)

    assert (result.deal, result.outcome) == ("lost", "unwinnable")
    assert result.last_winnable_version is None
    assert result.line == []


def test_a_losing_move_is_the_turning_point_and_the_line_wins_from_the_version_before() -> None:
    log, action = first_losing_point(WON_CODE, WON_LINE)
    before = len(log.events)
    log.do(Command("move", action.card, action.to)).do(Command("resign"))

    result = analyse(log.cards, log.events, won=False)

    assert (result.deal, result.outcome) == ("won", "slipped")
    assert result.last_winnable_version == before
    assert result.line_version == before
    # The event after the last winnable version is the losing move.
    assert log.events[before][0] == "move"
    assert log.events[before][1]["card"] == card_code(action.card)
    start = _state_at(log, before).position
    assert status(play_line(start, result.line)) == "won"


def test_an_undo_that_brings_a_win_back_moves_the_turning_point_later() -> None:
    log, action = first_losing_point(WON_CODE, WON_LINE)
    log.do(Command("move", action.card, action.to)).do(Command("undo")).do(Command("resign"))

    result = analyse(log.cards, log.events, won=False)

    # Resigned on a winnable table: the last version itself could still be won.
    assert result.outcome == "ended_winnable"
    assert result.last_winnable_version == len(log.events)
    assert status(play_line(log.state.position, result.line)) == "won"


def test_a_redo_of_the_losing_move_is_the_turning_point() -> None:
    log, action = first_losing_point(WON_CODE, WON_LINE)
    log.do(Command("move", action.card, action.to)).do(Command("undo")).do(Command("redo"))
    log.do(Command("resign"))

    result = analyse(log.cards, log.events, won=False)

    assert result.outcome == "slipped"
    assert result.last_winnable_version is not None
    assert log.events[result.last_winnable_version][0] == "redo"


def test_a_budget_too_small_says_unknown_and_never_guesses() -> None:
    log, action = first_losing_point(WON_CODE, WON_LINE)
    log.do(Command("move", action.card, action.to)).do(Command("resign"))

    result = analyse(log.cards, log.events, won=False, node_budget=1, total_budget=1)

    assert result.outcome == "unknown"
    assert result.deal == "unknown"
    assert result.last_winnable_version is None
    assert result.line == []


def test_the_total_budget_bounds_the_whole_analysis() -> None:
    log = Log(deal_code_for_seed(HARD_SEED)).do(Command("resign"))
    needed = analyse(log.cards, log.events, won=False).nodes
    assert needed > 1000

    short = analyse(log.cards, log.events, won=False, total_budget=needed - 1)
    enough = analyse(log.cards, log.events, won=False, total_budget=needed)

    assert short.outcome == "unknown"
    assert short.deal == "unknown"
    assert short.nodes <= needed
    assert (enough.deal, enough.outcome) == ("lost", "unwinnable")


def test_an_analysis_settled_within_small_budgets_is_the_one_larger_budgets_give() -> None:
    # What lets a request store an analysis computed with smaller budgets than a worker's.
    log, action = first_losing_point(WON_CODE, WON_LINE)
    log.do(Command("move", action.card, action.to)).do(Command("resign"))
    full = analyse(log.cards, log.events, won=False)
    assert full.settled
    assert full.solved_positions > 1

    exact = analyse(
        log.cards, log.events, won=False, node_budget=full.nodes, total_budget=full.nodes
    )
    short = analyse(log.cards, log.events, won=False, total_budget=full.nodes - 1)

    assert exact.settled
    assert dataclasses.replace(exact, seconds=0.0) == dataclasses.replace(full, seconds=0.0)
    assert not short.settled
    assert short.undecided_calls >= 1


def test_line_steps_draw_the_table_after_each_command_without_face_down_cards() -> None:
    start = new_game_state(parse_deal_code(WON_CODE)).position

    steps = line_steps(start, WON_LINE)

    assert [step["command"] for step in steps] == WON_LINE
    assert len(steps[-1]["collected"]) == 4
    for step in steps:
        assert len(step["columns"]) == 7
        assert set(step) == {"command", "columns", "stock", "collected"}
        assert all(set(column) == {"hidden", "cards"} for column in step["columns"])
        assert isinstance(step["stock"], int)  # a count: never the stock's cards


def _state_at(log: Log, version: int) -> GameState:
    state = new_game_state(log.cards)
    from games.history import fold_event

    for event_type, payload in log.events[:version]:
        state = fold_event(state, event_type, payload)
    return state


# The deal of seeds 0-9,999 whose proof is the longest: 1,025,570 positions (games/engine/
# solver.py), twice the analyses' old budget per call. 0.9 s compiled, 46 s in Python.
DEAREST_SEED = 7908


@pytest.mark.skipif(not compiled(), reason="46 s with the Python search; the same budgets")
def test_an_analysis_decides_the_dearest_deal_as_solve_does() -> None:
    log = Log(deal_code_for_seed(DEAREST_SEED)).do(Command("resign"))
    assert solve(log.cards).verdict == "lost"

    result = analyse(log.cards, log.events, won=False)

    assert (result.deal, result.outcome) == ("lost", "unwinnable")
    assert result.settled
