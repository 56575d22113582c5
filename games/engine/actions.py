"""Actions (a move, the deal) and the records of what they did (docs/rules.md).

Actions are immutable and every possible move exists once (``MOVES``), so listing the legal
moves creates no objects. Every action returns a ``Record`` of what happened, including the
automatic steps (cards turned face up, runs collected), so that ``undo``
(games.engine.transitions) restores the earlier position exactly and the event log can replay
a game step by step; ``Record.to_dict`` and ``from_dict`` are its stored form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from games.engine.cards import (
    DECK_SIZE,
    SUIT_RUNS,
    card_code,
    format_cards,
    parse_card,
    parse_suit,
    suit_code,
)
from games.engine.variants import FACES


@dataclass(frozen=True, slots=True)
class Move:
    card: int  # the exact card (0-103 in two decks: either copy of a face)
    to: int  # destination column, 0-based


@dataclass(frozen=True, slots=True)
class Deal:
    pass


Action: TypeAlias = Move | Deal


@dataclass(frozen=True, slots=True)
class Flip:
    """A face-down card left on top of ``column`` turned face up."""

    column: int
    card: int


@dataclass(frozen=True, slots=True)
class Collection:
    """A King-to-Ace run of ``suit`` (its King's suit) left the top of ``column``.

    ``cards`` are the run's exact cards, King first, unless they are simply the one-deck
    same-suit run of ``suit`` (always so in Scorpion): in two decks the copies must be known
    to undo exactly, and an alternate-colour run mixes suits.
    """

    column: int
    suit: int
    cards: tuple[int, ...] = ()

    @property
    def run(self) -> tuple[int, ...]:
        return self.cards or SUIT_RUNS[self.suit]


AutoStep: TypeAlias = Flip | Collection


@dataclass(frozen=True, slots=True)
class Record:
    """What an action did: enough to undo it exactly and to replay it."""

    kind: Literal["move", "deal"]
    card: int | None  # the picked card (move)
    from_col: int | None
    to_col: int | None
    count: int  # cards moved (move) or dealt (deal)
    dealt: tuple[int, ...]  # deal: the cards dealt, onto columns 0.. in order
    auto: tuple[AutoStep, ...]  # automatic steps, in the order they happened

    @property
    def action(self) -> Action:
        if self.kind == "deal":
            return DEAL
        assert self.card is not None
        assert self.to_col is not None
        return Move(self.card, self.to_col)

    @property
    def flipped(self) -> tuple[Flip, ...]:
        return tuple(step for step in self.auto if isinstance(step, Flip))

    @property
    def collected(self) -> tuple[Collection, ...]:
        return tuple(step for step in self.auto if isinstance(step, Collection))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": self.kind,
            "card": None if self.card is None else card_code(self.card),
            "from": self.from_col,
            "to": self.to_col,
            "count": self.count,
            "dealt": format_cards(self.dealt),
            "flipped": [{"column": s.column, "card": card_code(s.card)} for s in self.flipped],
            "collected": [{"column": s.column, "suit": suit_code(s.suit)} for s in self.collected],
            # "flipped" and "collected" lose the order in which the steps interleaved; undo
            # needs it, so the ordered steps are kept as well.
            "auto": [_auto_step_to_dict(step) for step in self.auto],
        }
        ids = self._ids()
        if any(card >= FACES for card in ids):
            # Two decks: which copy moved, for undo and replay to be exact (storage only: the
            # service serves the public fields alone).
            data["ids"] = ids
        return data

    def _ids(self) -> list[int]:
        """Every card int of the record, in a fixed order (see ``from_dict``)."""
        ids = [] if self.card is None else [self.card]
        ids += self.dealt
        for step in self.auto:
            if isinstance(step, Flip):
                ids.append(step.card)
            else:
                ids += step.cards
        return ids

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Record:
        kind = data["type"]
        if kind not in ("move", "deal"):
            raise ValueError(f"a record is a move or a deal, not {kind!r}")
        card = data["card"]
        record = cls(
            kind=kind,
            card=None if card is None else parse_card(card),
            from_col=data["from"],
            to_col=data["to"],
            count=int(data["count"]),
            dealt=tuple(parse_card(code) for code in data["dealt"]),
            auto=tuple(_auto_step_from_dict(step) for step in data["auto"]),
        )
        ids = data.get("ids")
        if ids is None:
            return record
        exact = iter(int(card) for card in ids)
        return cls(
            kind=kind,
            card=None if record.card is None else next(exact),
            from_col=record.from_col,
            to_col=record.to_col,
            count=record.count,
            dealt=tuple(next(exact) for _ in record.dealt),
            auto=tuple(
                Flip(step.column, next(exact))
                if isinstance(step, Flip)
                else Collection(step.column, step.suit, tuple(next(exact) for _ in step.cards))
                for step in record.auto
            ),
        )


DEAL = Deal()

# Actions are immutable, so every possible move exists once and is shared: legal-move
# generation then creates no objects. ``MOVES[card][to]``.
# (Big enough for every variant: two decks, ten columns.)
_MAX_COLUMNS = 10
MOVES = tuple(tuple(Move(card, to) for to in range(_MAX_COLUMNS)) for card in range(2 * DECK_SIZE))


def _auto_step_to_dict(step: AutoStep) -> dict[str, Any]:
    if isinstance(step, Flip):
        return {"step": "flip", "column": step.column, "card": card_code(step.card % FACES)}
    data = {"step": "collect", "column": step.column, "suit": suit_code(step.suit)}
    if step.cards:
        data["cards"] = [card_code(card % FACES) for card in step.cards]
    return data


def _auto_step_from_dict(data: Mapping[str, Any]) -> AutoStep:
    if data["step"] == "flip":
        return Flip(int(data["column"]), parse_card(data["card"]))
    if data["step"] == "collect":
        return Collection(
            int(data["column"]),
            parse_suit(data["suit"]),
            tuple(parse_card(code) for code in data.get("cards", ())),
        )
    raise ValueError(f"an automatic step is a flip or a collection, not {data['step']!r}")
