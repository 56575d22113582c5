"""The achievements' titles and descriptions in the request's language (docs/web.md,
"Languages"): ``rules`` names them in English without Django; the API sends them through
here, and their ``code`` never changes."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy

from achievements import rules
from games.engine.variants import VARIANTS

_WORDS: dict[str, tuple[Promise, Promise]] = {
    rules.FIRST_WIN: (gettext_lazy("First win"), gettext_lazy("Win a game.")),
    rules.NO_UNDO_WIN: (gettext_lazy("No going back"), gettext_lazy("Win a game without an undo.")),
    rules.HARD_WIN: (
        gettext_lazy("Hard-won"),
        gettext_lazy("Win a deal of the hard difficulty band."),
    ),
    rules.DAILY_STREAK_7: (
        gettext_lazy("A week of dailies"),
        gettext_lazy("Win the daily challenge 7 days in a row."),
    ),
    rules.DAILY_STREAK_30: (
        gettext_lazy("A month of dailies"),
        gettext_lazy("Win the daily challenge 30 days in a row."),
    ),
    rules.WINS_100: (gettext_lazy("A hundred wins"), gettext_lazy("Win 100 games.")),
}


def title_and_description(kind: rules.Kind) -> tuple[str, str]:
    """The kind's words translated; the rule's English for a kind this table does not know."""
    if kind.code in _WORDS:
        title, description = _WORDS[kind.code]
        return str(title), str(description)
    variant = VARIANTS.get(kind.code.removeprefix(rules.VARIANT_PREFIX))
    if kind.code.startswith(rules.VARIANT_PREFIX) and variant is not None:
        # The variant's title is the game's name, the same in every language.
        return (
            gettext("%(variant)s won") % {"variant": variant.title},
            gettext("Win a game of %(variant)s.") % {"variant": variant.title},
        )
    return kind.title, kind.description
