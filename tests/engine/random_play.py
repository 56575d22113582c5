"""Games for property tests, and the cards of a position the player cannot see.

Games are drawn two ways: the deal of a random seed played at random, and a proven-won deal
of the test deals (tests/data/deals.json) followed along its winning line for a while, then
played at random; the second kind reaches collections and won games, which random play
almost never does. Random play sometimes stops early, so positions with face-down cards and
a full stock are common.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from games.engine.actions import DEAL, Action, Move, Record
from games.engine.cards import parse_card, parse_deal_code
from games.engine.deals import SEED_LIMIT, deal_code_for_seed
from games.engine.legal import legal_actions
from games.engine.position import DEAL_COLUMN_SIZE, Position, initial_position
from games.engine.transitions import apply
from tests.data import DEALS

# A game ends within about 55 actions (each move lays a card for good on its successor or a
# King at the bottom of a column), so this bound only guards against a bug.
MAX_ACTIONS = 200


@dataclass(frozen=True)
class Step:
    before: Position
    action: Action
    after: Position
    record: Record


@dataclass(frozen=True)
class Game:
    deal: tuple[int, ...]  # the 52 cards in deal-code order
    start: Position
    steps: tuple[Step, ...]

    @property
    def positions(self) -> list[Position]:
        return [self.start] + [step.after for step in self.steps]


@st.composite
def games(draw: st.DrawFn) -> Game:
    if draw(st.booleans()):
        deal = parse_deal_code(deal_code_for_seed(draw(st.integers(0, SEED_LIMIT - 1))))
        line: list[Action] = []
    else:
        won = draw(st.sampled_from(DEALS["won"]))
        deal = parse_deal_code(won["code"])
        commands = won["line"][: draw(st.integers(0, len(won["line"])))]
        line = [
            DEAL if command["type"] == "deal" else Move(parse_card(command["card"]), command["to"])
            for command in commands
        ]
    start = initial_position(deal)
    steps: list[Step] = []
    position = start
    for followed in range(MAX_ACTIONS):
        if followed < len(line):
            action = line[followed]
        else:
            actions = legal_actions(position)
            if not actions or draw(st.integers(0, 20)) == 0:  # sometimes stop before the end
                break
            action = actions[draw(st.integers(0, len(actions) - 1))]
        after, record = apply(position, action)
        steps.append(Step(position, action, after, record))
        position = after
    return Game(deal, start, tuple(steps))


def unseen_cards(position: Position) -> list[int]:
    """The cards the player cannot see: the face-down cards, column by column from the
    bottom, then the stock in deal order."""
    face_down = [
        card
        for column, hidden in zip(position.columns, position.hidden, strict=True)
        for card in column[:hidden]
    ]
    return face_down + list(position.stock)


def with_unseen(position: Position, order: list[int]) -> Position:
    """The same visible table with the unseen cards ``order`` (as ``unseen_cards`` lists them)
    in place of the position's own, in the position's variant (reserve included)."""
    cards = iter(order)
    columns = tuple(
        tuple(next(cards) for _ in column[:hidden]) + column[hidden:]
        for column, hidden in zip(position.columns, position.hidden, strict=True)
    )
    return Position(
        columns,
        position.hidden,
        tuple(cards),
        position.collected,
        position.reserve,
        position.variant,
    )


def deal_with_unseen(
    deal: tuple[int, ...], position: Position, order: list[int]
) -> tuple[int, ...]:
    """The deal that the actions which led from ``deal`` to ``position`` lead, played again,
    to ``with_unseen(position, order)``.

    A card still unseen has never moved: a face-down card lies where it was dealt (the bottom
    of its column) and the stock is undealt. So swapping those deal slots changes nothing the
    player saw on the way, and every action replays the same.
    """
    slots = [
        column * DEAL_COLUMN_SIZE + index
        for column, hidden in enumerate(position.hidden)
        for index in range(hidden)
    ]
    if position.stock:
        slots += range(len(deal) - len(position.stock), len(deal))
    assert [deal[slot] for slot in slots] == unseen_cards(position), "not a position of this deal"
    cards = list(deal)
    for slot, card in zip(slots, order, strict=True):
        cards[slot] = card
    return tuple(cards)
