"""Staff's decision to hide a result from the leaderboards, and to undo it (docs/fair-play.md).

The flag lives on the game (``Game.leaderboard_hidden_at`` and its reason), where every board's
query sees it (``stats.selectors.ranking_games`` leaves hidden games out), so the fair-play
app above can ask for it without any board importing that app. Nothing is deleted: the game,
its statistics and its replay stay; the player is shown the reason on the game. Each decision
is one entry of the staff audit log (``infrastructure.audit``), in the same transaction.
"""

from __future__ import annotations

from uuid import UUID

from django.db import transaction
from django.http import Http404
from django.utils import timezone

from games.models import Game
from infrastructure.audit import staff_action_record

HIDE_ACTION = "hid the result from the leaderboard"
RESTORE_ACTION = "restored the result to the leaderboard"


class ReasonRequiredError(ValueError):
    """Staff gave no reason: the player is shown it, and the audit log keeps it."""


def _locked_game(game_id: UUID) -> Game:
    # The row lock orders two staff members acting on one result at once: each audit entry
    # then describes a change that really happened, in the order it happened.
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None:
        raise Http404("no such game")
    return game


def leaderboard_result_hide(*, game_id: UUID, by: int, reason: str) -> Game:
    """Hide the game's result from every leaderboard, with the reason its player is shown.
    Hiding a hidden result again replaces the reason (and is logged again)."""
    reason = reason.strip()
    if not reason:
        raise ReasonRequiredError("a reason is required")
    with transaction.atomic():
        game = _locked_game(game_id)
        now = timezone.now()
        # An UPDATE of these columns only: a command racing on the game changes other columns
        # under its own compare-and-set, and neither overwrites the other.
        Game.objects.filter(pk=game.pk).update(
            leaderboard_hidden_at=now, leaderboard_hidden_reason=reason
        )
        game.leaderboard_hidden_at, game.leaderboard_hidden_reason = now, reason
        staff_action_record(actor_id=by, target=game, action=HIDE_ACTION, reason=reason)
    return game


def leaderboard_result_restore(*, game_id: UUID, by: int, reason: str) -> Game:
    """Bring a hidden result back to the leaderboards (nothing happens, and nothing is
    logged, if it was not hidden)."""
    reason = reason.strip()
    if not reason:
        raise ReasonRequiredError("a reason is required")
    with transaction.atomic():
        game = _locked_game(game_id)
        if game.leaderboard_hidden_at is None:
            return game
        Game.objects.filter(pk=game.pk).update(
            leaderboard_hidden_at=None, leaderboard_hidden_reason=""
        )
        game.leaderboard_hidden_at, game.leaderboard_hidden_reason = None, ""
        staff_action_record(actor_id=by, target=game, action=RESTORE_ACTION, reason=reason)
    return game
