"""The Scorpion family as the service sees it: which variants a game may be, and the deal and
starting state of a game in its variant (the engine's ``games.engine.variants`` registry).

Every place that builds a game's position from its deal code (services, selectors, the
analysis, the streams, the staff's replay) goes through ``deal_state`` with the game's
``variant``, so a Wasp deal code is never read as a Scorpion one. A position stored in
``Game.state`` carries its own variant (the engine's ``Position.to_dict``), so reads of the
projection need nothing more.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy

from games.engine import position as engine_position
from games.engine import variants as engine_variants
from games.engine.errors import UnknownVariantError
from games.engine.variants import OFFERED_VARIANTS, SCORPION, VARIANTS, Variant, get_variant
from games.history import GameState

DEFAULT_VARIANT = SCORPION.name
# Modes whose deals are certified ahead (the daily challenge, the winnable pool): Scorpion
# only. The daily is one deal for everyone, so it is one variant for everyone (docs/api.md).
CERTIFIED_VARIANTS = frozenset({SCORPION.name})
# Variants whose games in play get winning chances (every variant's finished games get the
# post-game analysis, with budgets of their own: games.analysis.analysis_budgets). A chance is
# the share of sampled deals the solver proves won within a small budget (20,000 positions),
# so it only means something where the solver decides nearly all of them: Scorpion, Wasp,
# Three Blind Mice (its deadlock proofs, games/engine/variant_solver.py) and Scorpion Tail,
# whose mid-game samples are decided far more often than its deals (docs/benchmarks.md, "Winning
# chances", 2026-12-01, load average 3-8: `python bench/hints.py --variant scorpion-tail
# --work-budget 500000 --samples 50,200`, 20 positions: 6.5% of sampled solves undecided, the
# top-ranked action kept the deal winnable in all 20; with `--positions 30 --start-seed 1000`, 4.2%
# undecided, 8 of 9 contested positions right against 5 for the heuristic hint; but each sample
# is dear, so an answer rests on a median of 12-18 samples, 2 on request). Double Scorpion
# leaves about 30% of its sampled solves undecided, on a median of 4 samples an answer (1 on
# request; docs/benchmarks.md, same section), and the chances' sampling reads only one-deck tables
# (games/engine/chances.py), so its games answer ``variant_not_analysed`` to a request for
# chances.
# Wasp II is Wasp with fewer face-down cards, so its deals are decided more easily still.
CHANCES_VARIANTS = frozenset(
    {SCORPION.name, "wasp", "wasp-ii", "scorpion-tail", "three-blind-mice"}
)

__all__ = [
    "CERTIFIED_VARIANTS",
    "CHANCES_VARIANTS",
    "DEFAULT_VARIANT",
    "UnknownVariantError",
    "Variant",
    "deal_code_for_seed",
    "deal_state",
    "new_game_variant",
    "normalise_deal_code",
    "offered_variant_choices",
    "offered_variant_names",
    "variant_choices",
    "variant_named",
    "variant_names",
    "variant_summaries",
    "variant_summary",
    "variants_for_browser",
]


def variant_names() -> list[str]:
    """Every variant a game may be in (those kept for the games begun in them included)."""
    return list(VARIANTS)


def offered_variant_names() -> list[str]:
    """The variants a new game may be in: what a refusal of an unknown name lists."""
    return list(OFFERED_VARIANTS)


def variant_choices() -> list[tuple[str, str]]:
    """(name, title) of every variant a game may be in (those kept for the games begun in them
    included), for the model's and the API's choices."""
    return [(variant.name, variant.title) for variant in VARIANTS.values()]


def offered_variant_choices() -> list[tuple[str, str]]:
    """(name, title) of the variants a new game may be in: the lobby's choices."""
    return [(variant.name, variant.title) for variant in OFFERED_VARIANTS.values()]


def variant_named(name: str) -> Variant:
    """The variant called ``name``; UnknownVariantError otherwise."""
    return get_variant(name)


def deal_code_for_seed(seed: int, variant: str) -> str:
    """The deal code a seed deals in ``variant`` (docs/deals.md): a one-deck variant's is the
    Scorpion code of the seed, laid out in the variant's way."""
    return engine_variants.deal_code_for_seed(seed, get_variant(variant))


def normalise_deal_code(code: str, variant: str) -> str:
    """A player's deal code, trimmed and upper-cased, checked against ``variant`` (raises
    DealCodeError naming what is wrong)."""
    normal = code.strip().upper()
    engine_position.deal_position(normal, get_variant(variant))
    return normal


def deal_state(code: str, variant: str) -> GameState:
    """The state a game of ``variant`` starts from: its deal as dealt, nothing played."""
    position = engine_position.deal_position(code, get_variant(variant))
    return GameState(position=position, line=(), redo=())


# How each variant differs from Scorpion, in a sentence (docs/rules.md has the rules).
_SUMMARIES = {
    "scorpion": gettext_lazy(
        "Seven columns of seven, three face down in each of the first four; a stock "
        "of three dealt once; any exposed King to an empty column."
    ),
    "wasp": gettext_lazy(
        "Scorpion where any card, with everything on it, may go to an empty column."
    ),
    "wasp-ii": gettext_lazy(
        "Wasp with three face-down cards in each of the first three columns only (Wasp "
        "as PySolFC dealt it up to 3.2.0)."
    ),
    "scorpion-tail": gettext_lazy(
        "Scorpion where a card goes on the next higher card of the other colour."
    ),
    "three-blind-mice": gettext_lazy(
        "Ten columns of five, three face down in each of the last three; no "
        "stock; a reserve of two face-up cards to play onto the columns."
    ),
    "double-scorpion": gettext_lazy(
        "Two decks: ten columns of ten, a stock of four dealt once onto the "
        "first four columns; eight runs to collect."
    ),
    "double-scorpion-3-2": gettext_lazy(
        "Double Scorpion as PySolFC dealt it up to 3.2.0: the four cards "
        "left dealt at the start, no stock; of two face-up copies in one column only the upper one "
        "moves. Kept for the games begun in it; new games are Double Scorpion."
    ),
}


# How each variant is played, in a few sentences: the help of the browser's play page.
_HOW_TO_PLAY = {
    "scorpion": gettext_lazy(
        "Build down in suit: a face-up card goes onto the card of the same suit one "
        "rank higher, taking every card on top of it along. Only a King (with whatever lies on it) "
        "goes into an empty column. A King to Ace run of one suit is collected. Deal the three "
        "stock cards once, when you like."
    ),
    "wasp": gettext_lazy(
        "Wasp: build down in suit, moving any face-up card with everything on it, as in "
        "Scorpion; but any card (not only a King) may go into an empty column. A King to Ace "
        "run of one suit is collected. Deal the three stock cards once."
    ),
    "wasp-ii": gettext_lazy(
        "Wasp II: Wasp, but only the first three columns start with face-down cards. "
        "Build down in suit, moving any face-up card with everything on it; any card may go into "
        "an empty column. A King to Ace run of one suit is collected. Deal the three stock cards "
        "once."
    ),
    "scorpion-tail": gettext_lazy(
        "Scorpion Tail: build down in alternating colours (a red 8 on a black 9), "
        "moving any face-up card with everything on it. Only a King goes into an empty column. A "
        "King to Ace run in alternating colours is collected. Deal the three stock cards once."
    ),
    "three-blind-mice": gettext_lazy(
        "Three Blind Mice: ten columns of five, the last three with three "
        "face-down cards; no stock, but two face-up reserve cards that you can play onto the "
        "columns. Build down in suit; only a King goes into an empty column; a King to Ace run of "
        "one suit is collected."
    ),
    "double-scorpion": gettext_lazy(
        "Double Scorpion: two decks in ten columns of ten, four face-down cards "
        "in each of the first five; deal the four stock cards onto the first four columns once, "
        "when you like. Build down in suit, moving any face-up card with everything on it (either "
        "copy of a card); only a King goes into an empty column. Collect all eight King to Ace "
        "runs."
    ),
    "double-scorpion-3-2": gettext_lazy(
        "Double Scorpion 3.2: two decks in ten columns, four "
        "face-down cards in each of the first five; no stock. Build down in suit, moving any "
        "face-up card with everything on it; only a King goes into an empty column. Collect all "
        "eight King to Ace runs."
    ),
}


# The variant a new game is in when a player asks for another game like one of a variant no
# longer offered: today's deal of the same game (docs/rules.md, "Double Scorpion 3.2").
_NEW_GAMES_IN = {"double-scorpion-3-2": "double-scorpion"}


def new_game_variant(variant: Variant) -> str:
    """The variant of "another game like this one" (the play page's New game): the game's own,
    or, for a variant no longer offered, the one its new games are in."""
    if variant.offered:
        return variant.name
    return _NEW_GAMES_IN.get(variant.name, DEFAULT_VARIANT)


def variant_summary(variant: Variant) -> dict[str, Any]:
    """What ``GET /api/v1/variants/`` says of one variant: its layout and rules in brief."""
    return {
        "name": variant.name,
        "title": variant.title,
        "decks": variant.decks,
        "columns": variant.column_count,
        "column_sizes": list(variant.column_sizes),
        "face_down": list(variant.hidden),
        "stock": variant.stock_size,
        "reserve": variant.reserve_size,
        "build": variant.build,
        "empty_column": variant.empty_column,
        "summary": str(_SUMMARIES.get(variant.name, variant.title)),
    }


def variant_summaries() -> list[dict[str, Any]]:
    """``GET /api/v1/variants/``: the variants a new game may be in, Scorpion first."""
    return [variant_summary(variant) for variant in OFFERED_VARIANTS.values()]


def variants_for_browser() -> dict[str, dict[str, Any]]:
    """What the browser's pages know of each variant (web/templates/web/base.html embeds it):
    the API's summary and the help text, by name. The scripts read the layout from here (the
    decks, the stock, the reserve), never from a list of names of their own. Every variant a
    game may be in: a game begun in one no longer offered is still shown by its layout, and
    ``offered`` tells the scripts it begins no new game (a finished one offers no challenge),
    ``new_game_variant`` which variant "New game" after one of its games deals."""
    return {
        variant.name: {
            **variant_summary(variant),
            "how_to_play": str(_HOW_TO_PLAY.get(variant.name, variant.title)),
            "offered": variant.offered,
            "new_game_variant": new_game_variant(variant),
        }
        for variant in VARIANTS.values()
    }
