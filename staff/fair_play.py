"""The staff's fair-play page (docs/fair-play.md): the flagged ranked results with their
signals and a link to each game's replay, and the forms that hide a result from the
leaderboards, or bring it back, with a reason (the player is shown it; the audit log keeps it).

Thin views: the list from ``fairplay.selectors``, the decisions from ``games.services``. Staff
only (``staff_member_required`` sends others to the admin's log-in; an app's bearer token
reaches no page: accounts/app_tokens.py); hiding and restoring need the games' change
permission.
"""

from __future__ import annotations

from uuid import UUID

from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from fairplay import selectors
from fairplay import signals as fair_signals
from games import services as games_services
from games.models import Game
from infrastructure.db_routing import reads_may_lag

SIGNAL_WORDS = {
    fair_signals.FAST_MOVES: (
        f"median time between commands under {fair_signals.FAST_MEDIAN_SECONDS} s"
    ),
    fair_signals.REGULAR_TIMING: (
        f"times between commands too regular (variation under {fair_signals.REGULAR_CV})"
    ),
    fair_signals.SOLVER_LINE: (
        f"winning line follows the solver's for {fair_signals.SOLVER_LINE_SHARE:.0%} or more"
    ),
    fair_signals.SHARED_ADDRESS: (
        f"{fair_signals.SHARED_ADDRESS_ACCOUNTS} or more accounts won this daily from one address"
    ),
    fair_signals.BOT_APP: "played through a bot app",
}


def review_words(*, game: Game) -> list[str] | None:
    """The signals of the game's fair-play review in words, for its replay page; None when it
    has no review (not a won ranked daily)."""
    review = selectors.review_of(game_id=game.pk)
    if review is None:
        return None
    return [SIGNAL_WORDS.get(code, code) for code in review.signals]


@staff_member_required
@reads_may_lag
def fair_play(request: HttpRequest) -> HttpResponse:
    if not request.user.has_perm("games.view_game"):
        raise PermissionDenied
    rows = [
        {
            "review": review,
            "game": review.game,
            "signals": [SIGNAL_WORDS.get(code, code) for code in review.signals],
        }
        for review in selectors.flagged_reviews()
    ]
    context = {
        **admin.site.each_context(request),
        "title": "Fair play: flagged ranked results",
        "rows": rows,
        "can_decide": request.user.has_perm("games.change_game"),
        "opts": Game._meta,
    }
    return render(request, "staff/fair_play.html", context)


def _decide(request: HttpRequest, game_id: UUID, *, hide: bool) -> HttpResponse:
    if not request.user.has_perm("games.change_game"):
        raise PermissionDenied
    reason = request.POST.get("reason", "")
    decide = (
        games_services.leaderboard_result_hide
        if hide
        else games_services.leaderboard_result_restore
    )
    actor = request.user.pk
    assert actor is not None  # staff_member_required: a signed-in staff member
    try:
        decide(game_id=game_id, by=actor, reason=reason)
    except games_services.ReasonRequiredError:
        messages.error(request, "Give a reason: the player is shown it and the audit log keeps it.")
    else:
        done = "hidden from" if hide else "restored to"
        messages.success(request, f"The result of game {game_id} is {done} the leaderboards.")
    return HttpResponseRedirect(reverse("staff:fair-play"))


@require_POST
@staff_member_required
def result_hide(request: HttpRequest, game_id: UUID) -> HttpResponse:
    return _decide(request, game_id, hide=True)


@require_POST
@staff_member_required
def result_restore(request: HttpRequest, game_id: UUID) -> HttpResponse:
    return _decide(request, game_id, hide=False)
