"""The rules of Scorpion Solitaire in Python (no Django): cards, positions, moves, hints; the
solver's searches are also compiled (solver.py, _solver_c.c; variant_solver.py, _variant_c.c).

Everything the web layer, the solver and the tools need is importable from here.
"""

from games.engine.actions import DEAL, Action, AutoStep, Collection, Deal, Flip, Move, Record
from games.engine.cards import (
    ACE,
    DECK_SIZE,
    KING,
    RANKS,
    SUITS,
    card_code,
    format_cards,
    format_deal_code,
    is_king,
    parse_card,
    parse_deal_code,
    rank,
    suit,
    suit_code,
)
from games.engine.errors import (
    DealCodeError,
    EngineError,
    IllegalMoveError,
    SeedError,
    StockEmptyError,
    UnknownCardError,
    UnknownVariantError,
)
from games.engine.hints import Hint, ranked_hints
from games.engine.legal import Status, legal_actions, legal_moves, status
from games.engine.position import (
    COLUMN_COUNT,
    Position,
    deal_position,
    initial_position,
    player_view,
)
from games.engine.resolve import resolve_move
from games.engine.transitions import apply, completed_suit, play, replay, undo
from games.engine.variants import SCORPION, VARIANTS, Variant, get_variant

__all__ = [
    "ACE",
    "COLUMN_COUNT",
    "DEAL",
    "DECK_SIZE",
    "KING",
    "RANKS",
    "SCORPION",
    "SUITS",
    "VARIANTS",
    "Action",
    "AutoStep",
    "Collection",
    "Deal",
    "DealCodeError",
    "EngineError",
    "Flip",
    "Hint",
    "IllegalMoveError",
    "Move",
    "Position",
    "Record",
    "SeedError",
    "Status",
    "StockEmptyError",
    "UnknownCardError",
    "UnknownVariantError",
    "Variant",
    "apply",
    "card_code",
    "completed_suit",
    "deal_position",
    "format_cards",
    "format_deal_code",
    "get_variant",
    "initial_position",
    "is_king",
    "legal_actions",
    "legal_moves",
    "parse_card",
    "parse_deal_code",
    "play",
    "player_view",
    "rank",
    "ranked_hints",
    "replay",
    "resolve_move",
    "status",
    "suit",
    "suit_code",
    "undo",
]
