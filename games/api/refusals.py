"""The engine's refusals in the request's language.

The engine imports no Django (docs/architecture.md), so its errors say in English what was
wrong, and say it again as data: a ``reason`` word and the cards and columns involved
(``EngineError.details``). In English the API answers the engine's own sentence; in another
language it words the refusal from that data here (or, for an error without a ``reason``, from
its ``code``), so that every ``detail`` a player reads is translated. ``code`` and ``details``
stay the same words in every language.
"""

from __future__ import annotations

from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy, pgettext

from games.engine.errors import EngineError

# reason -> the sentence, with the details' fields as %(name)s.
_REASONS: dict[str, Promise] = {
    "no_such_column": gettext_lazy("%(card)s cannot go to a column that does not exist"),
    "no_such_copy": gettext_lazy("copy is upper or lower"),
    "not_in_column": gettext_lazy("%(card)s is not face up in column %(column)s"),
    "collected": gettext_lazy("%(card)s has already been collected"),
    "not_face_up": gettext_lazy("%(card)s is not face up on the table"),
    "ambiguous": gettext_lazy("both copies of %(card)s can move: say which column to pick it from"),
    "no_lower_copy": gettext_lazy(
        "only one copy of %(card)s lies face up there: it has no lower copy"
    ),
    "upper_copy_only": gettext_lazy(
        "in this game only the upper of two copies of %(card)s in one column moves"
    ),
    "already_there": gettext_lazy("%(card)s is already in that column"),
    "not_a_king": gettext_lazy("only a King can go to an empty column, not %(card)s"),
    "already_at_bottom": gettext_lazy("%(card)s already lies at the bottom of its column"),
    "column_not_empty": gettext_lazy(
        "a King can only go to an empty column, and column %(to)s is not empty"
    ),
    "no_empty_column": gettext_lazy("there is no empty column for %(card)s"),
    "onto_not_exposed": gettext_lazy("%(card)s can only go on %(onto)s, which is not exposed"),
    "onto_own_column": gettext_lazy(
        "%(card)s can only go on %(onto)s, which lies above it in its own column"
    ),
    "wrong_column": gettext_lazy(
        "%(card)s can only go on the exposed %(onto)s, in column %(onto_column)s"
    ),
    "stock_empty": gettext_lazy("the stock has already been dealt"),
    "unknown_variant": gettext_lazy("no game of the Scorpion family has that name"),
}

# code -> the sentence for an error that carries no reason.
_CODES: dict[str, Promise] = {
    "game_finished": gettext_lazy("the game is over: it accepts no more commands"),
    "nothing_to_undo": gettext_lazy("there is nothing to undo: this is the deal as dealt"),
    "nothing_to_redo": gettext_lazy("there is nothing to redo"),
    "unknown_card": gettext_lazy("that is not a card: a card is a 2-character code such as 8H"),
    "illegal_move": gettext_lazy("that move is not allowed"),
    "validation_error": gettext_lazy(
        "that is not a seed, a deal code or a deal number this game can deal"
    ),
}


def engine_error_detail(exc: EngineError) -> str:
    """The problem's ``detail`` for an engine error, in the active language."""
    if (translation.get_language() or "en").split("-")[0] == "en":
        return str(exc)
    template = _REASONS.get(str(exc.details.get("reason", "")))
    if template is not None:
        try:
            return str(template) % _fields(exc.details)
        except (KeyError, TypeError, ValueError):
            pass  # a reason without the fields its sentence names: said by its code below
    return str(_CODES.get(exc.code, _CODES["illegal_move"]))


def _fields(details: dict[str, object]) -> dict[str, str]:
    """The details as words: a list of cards or columns joined ("9H or 9S")."""
    joiner = pgettext("between two alternatives", " or ")
    return {
        key: joiner.join(str(item) for item in value) if isinstance(value, list) else str(value)
        for key, value in details.items()
    }


__all__ = ["engine_error_detail"]
