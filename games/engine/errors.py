"""The engine's errors.

Every error carries a stable machine-readable ``code`` (the words of the public API's
problem details) and a human ``str()`` that says in plain words what was wrong, so the web
layer can turn any of them into a response without knowing the engine's internals.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class: a request the rules of Scorpion do not allow.

    ``details`` says the same as the message as data, for clients that word it themselves: a
    ``reason`` word and the cards (codes like ``"QS"``) and columns (numbered 1 to 7, as players
    see them) involved (docs/api.md, "Problems"). It names only cards the player can see, or the
    card a move names and the card it would go on (which the rules name anyway), never where an
    unseen card lies.
    """

    code = "illegal_move"

    def __init__(self, message: str, details: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.details: dict[str, object] = details or {}


class UnknownCardError(EngineError):
    """A card code that names no card (``"1Z"``, ``"10H"``, ``""``)."""

    code = "unknown_card"


class DealCodeError(EngineError):
    """A deal code that is not 52 distinct cards in 104 characters."""

    code = "validation_error"


class SeedError(EngineError):
    """A seed or deal number outside the range the algorithm accepts."""

    code = "validation_error"


class IllegalMoveError(EngineError):
    """A move the rules forbid, or naming a card the player cannot see."""

    code = "illegal_move"


class StockEmptyError(EngineError):
    """A deal asked for when the stock has already been dealt."""

    code = "stock_empty"


class UnknownVariantError(EngineError):
    """A variant name that names no game of the Scorpion family (games.engine.variants)."""

    code = "validation_error"
