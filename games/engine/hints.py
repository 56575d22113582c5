"""Hints: every legal action, best first, by a heuristic that sees only what the player sees.

The heuristic reads the face-up cards, the number of face-down cards in each column and whether
the stock is full, never a face-down card or the stock's contents (docs/rules.md, "Hidden
information"), so a hint cannot give away what the player cannot see. ``legal_actions`` reads
the full position but lists the same actions for the same visible table: a move needs a
face-up card and an exposed (so face-up) destination, the deal only a full stock. Cards are
compared by face, never by which copy of a two-deck card they are (the player sees faces).
Property tests shuffle the unseen cards of random positions, and swap which copy of a two-deck
card is which, and check that nothing here changes (tests/engine/test_properties.py,
tests/engine/test_variant_properties.py, tests/api/test_hints.py). It promises no win: no solver
verdict is given while a game is on, since the solver knows every card.

Scores, highest first:
- completing a King-to-Ace run (the suit is collected);
- turning a face-down card face up, the more face-down cards in that column the better (the
  column that hides the most is the one that most needs digging into);
- emptying a column, worth more when a King elsewhere could use it;
- a King into an empty column, worth more for each card it carries in order (by the
  variant's rule: alternating colours in Scorpion Tail) and when it
  uncovers a face-down card or frees a card that can then move;
- any other move, a little more when it frees a card that can then move or builds a longer
  same-suit run;
- the deal, last: it buries the tops of columns 0-2 under cards nobody chose, so the moves
  come first.
Ties keep the order of ``legal_actions``, so the ranking is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.engine.actions import Action, Deal, Move
from games.engine.cards import ACE, KING, SUITS, card_code
from games.engine.legal import legal_actions
from games.engine.position import Position
from games.engine.transitions import completed_run, completed_suit
from games.engine.variants import FACES, SCORPION

SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")  # in the order of cards.SUITS

COMPLETES_RUN = 10_000
UNCOVERS_FACE_DOWN_CARD = 1_000
PER_FACE_DOWN_CARD_IN_COLUMN = 10
EMPTIES_COLUMN = 500
EMPTY_COLUMN_FOR_A_KING = 200
KING_TO_EMPTY_COLUMN = 300
PER_CARD_CARRIED_IN_ORDER = 20
FREES_A_CARD_THAT_CAN_MOVE = 50
PER_CARD_IN_BUILT_RUN = 5
DEAL_SCORE = -1
_NUMBERS = {3: "three", 4: "four"}


@dataclass(frozen=True, slots=True)
class Hint:
    """One legal action, its score, and why: ``reason`` in words (columns 0 to 6, as the API
    has always said them) and ``details``, the same as data for clients that word it themselves:
    one entry per part of the reason, a ``reason`` word with the cards (codes) and columns
    (numbered 1 to 7, as players see them) involved (docs/api.md, "Hints")."""

    action: Action
    score: int
    reason: str
    details: tuple[dict[str, Any], ...] = field(default=(), compare=True)

    def to_dict(self) -> dict[str, Any]:
        if isinstance(self.action, Deal):
            return {"type": "deal", "reason": self.reason, "details": list(self.details)}
        return {
            "type": "move",
            "card": card_code(self.action.card % FACES),
            "to": self.action.to,
            "reason": self.reason,
            "details": list(self.details),
        }


def ranked_hints(position: Position) -> list[Hint]:
    """Every legal action of ``position``, best first."""
    table = _VisibleTable(position)
    hints = [Hint(action, *table.score(action)) for action in legal_actions(position)]
    # sorted() is stable: equal scores keep the order of legal_actions.
    return sorted(hints, key=lambda hint: -hint.score)


class _VisibleTable:
    """The table as the player sees it: face-up cards by column, and face-down counts."""

    def __init__(self, position: Position) -> None:
        self.variant = position.variant
        # Reserve cards (Three Blind Mice) count as one-card "columns" after the real ones,
        # with nothing face down under them.
        self.face_down = position.hidden + (0,) * len(position.reserve)
        self.face_up = tuple(
            column[hidden:]
            for column, hidden in zip(position.columns, position.hidden, strict=True)
        ) + tuple((card,) for card in position.reserve)
        self.column_count = len(position.columns)
        self.stock = len(position.stock)
        self.column_of = {
            card: number for number, cards in enumerate(self.face_up) for card in cards
        }
        self.kings_that_need_a_column = sum(
            1
            for number, cards in enumerate(self.face_up)
            for index, card in enumerate(cards)
            if card % 13 == KING and (index > 0 or self.face_down[number] > 0)
        )

    def score(self, action: Action) -> tuple[int, str, tuple[dict[str, Any], ...]]:
        if isinstance(action, Deal):
            # The stock's size is public: three cards onto columns 0-2, Double Scorpion's four
            # onto columns 0-3.
            targets = list(range(self.stock))
            return (
                DEAL_SCORE,
                f"deal the {_NUMBERS.get(self.stock, self.stock)} stock cards onto columns "
                + ", ".join(str(column) for column in targets[:-1])
                + f" and {targets[-1]}",
                ({"reason": "deal", "columns": [column + 1 for column in targets]},),
            )
        return self._score_move(action)

    def _score_move(self, move: Move) -> tuple[int, str, tuple[dict[str, Any], ...]]:
        source = self.column_of[move.card]
        cards = self.face_up[source]
        index = cards.index(move.card)
        carried = cards[index:]
        left_below = cards[:index]
        code = card_code(move.card % FACES)
        score = 0
        reasons: list[str] = []
        details: list[dict[str, Any]] = []

        completed = self._completed(self.face_up[move.to] + carried)
        if completed is None:
            completed = self._completed(left_below)
        if completed is not None:
            score += COMPLETES_RUN
            reasons.append(f"completes the run of {SUIT_NAMES[completed]}")
            details.append({"reason": "completes_run", "suit": SUITS[completed]})

        if source >= self.column_count:
            pass  # from the reserve: nothing is uncovered, no column empties
        elif not left_below and self.face_down[source]:
            score += UNCOVERS_FACE_DOWN_CARD + PER_FACE_DOWN_CARD_IN_COLUMN * self.face_down[source]
            reasons.append(f"turns a face-down card in column {source} face up")
            details.append({"reason": "turns_face_up", "column": source + 1})
        elif not left_below and move.card % 13 != KING:
            # A King's column empties only by moving the King to another empty column.
            score += EMPTIES_COLUMN
            if self.kings_that_need_a_column:
                score += EMPTY_COLUMN_FOR_A_KING
            reasons.append(f"empties column {source}")
            details.append({"reason": "empties_column", "column": source + 1})
        elif left_below and self._can_receive(left_below[-1], source):
            score += FREES_A_CARD_THAT_CAN_MOVE
            reasons.append(f"frees {card_code(left_below[-1] % FACES)}, which can then move")
            details.append(
                {"reason": "frees", "card": card_code(left_below[-1] % FACES), "column": source + 1}
            )

        if not self.face_up[move.to] and move.card % 13 != KING:
            # Any card may fill an empty column in some variants (Wasp).
            reasons.insert(0, f"moves {code} into empty column {move.to}")
            details.insert(
                0,
                {"reason": "to_empty", "card": code, "column": move.to + 1, "count": len(carried)},
            )
        elif move.card % 13 == KING:
            # By the variant's rule: in Scorpion Tail a red Queen on a black King is in order.
            in_order = self._ordered(carried)
            score += KING_TO_EMPTY_COLUMN + PER_CARD_CARRIED_IN_ORDER * in_order
            reasons.insert(0, f"moves {code} into empty column {move.to} with {len(carried)} cards")
            details.insert(
                0,
                {
                    "reason": "king_to_empty",
                    "card": code,
                    "column": move.to + 1,
                    "count": len(carried),
                },
            )
        else:
            built = self._ordered_at_top(self.face_up[move.to]) + self._ordered(carried)
            score += PER_CARD_IN_BUILT_RUN * built
            if not reasons:
                onto = card_code(self.face_up[move.to][-1] % FACES)
                reasons.append(f"puts {code} on {onto}")
                details.append({"reason": "builds", "card": code, "onto": onto})
        return score, "; ".join(reasons), tuple(details)

    def _can_receive(self, exposed: int, column: int) -> bool:
        """Whether a face-up card from another column could go onto ``exposed`` (in ``column``)."""
        if exposed % 13 == ACE:
            return False
        if self.variant is SCORPION:
            source = self.column_of.get(exposed - 1)
            return source is not None and source != column
        return any(
            self.column_of.get(card, column) != column for card in self.variant.onto[exposed]
        )

    def _completed(self, cards: tuple[int, ...]) -> int | None:
        if self.variant is SCORPION:
            return completed_suit(cards)
        run = completed_run(cards, self.variant)
        return None if run is None else (run[0] // 13) % 4

    def _ordered(self, cards: tuple[int, ...]) -> int:
        if self.variant is SCORPION:
            return _ordered_length(cards)
        onto = self.variant.onto
        length = 1 if cards else 0
        while length < len(cards) and cards[length] in onto[cards[length - 1]]:
            length += 1
        return length

    def _ordered_at_top(self, cards: tuple[int, ...]) -> int:
        if self.variant is SCORPION:
            return _ordered_length_at_top(cards)
        onto = self.variant.onto
        length = 1 if cards else 0
        while length < len(cards) and cards[-length] in onto[cards[-length - 1]]:
            length += 1
        return length


def _ordered_length(cards: tuple[int, ...]) -> int:
    """How many cards from the bottom of ``cards`` run down in one suit, one rank at a time.

    By face (``card % 52``): in two decks either copy of the next card is in order, and which
    copy is which is not something the player can see (a copy's card int says which was dealt
    first)."""
    length = 1 if cards else 0
    while (
        length < len(cards)
        and cards[length - 1] % 13 != ACE
        and cards[length] % FACES == cards[length - 1] % FACES - 1
    ):
        length += 1
    return length


def _ordered_length_at_top(cards: tuple[int, ...]) -> int:
    """How many cards at the top of ``cards`` run down in one suit, one rank at a time (by face,
    as ``_ordered_length``)."""
    length = 1 if cards else 0
    while (
        length < len(cards)
        and cards[-length] % 13 != KING
        and cards[-length - 1] % FACES == cards[-length] % FACES + 1
    ):
        length += 1
    return length
