"""Reads of games: lookups scoped to their owner, the log, and positions rebuilt from it."""

from __future__ import annotations

from uuid import UUID

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import Http404

from games import history
from games.engine.cards import parse_deal_code
from games.engine.hints import Hint, ranked_hints
from games.history import GameState
from games.models import Game, GameEvent


def game_get(*, owner: User, game_id: UUID) -> Game:
    """The owner's game. Another player's game is indistinguishable from a missing one."""
    game = Game.objects.filter(pk=game_id, owner=owner).first()
    if game is None:
        raise Http404("no such game")
    return game


def game_list(*, owner: User, status: str | None = None, mode: str | None = None) -> QuerySet[Game]:
    games = Game.objects.filter(owner=owner)
    if status:
        games = games.filter(status=status)
    if mode:
        games = games.filter(mode=mode)
    return games.order_by("-created_at", "-pk")


def game_events(*, game: Game) -> QuerySet[GameEvent]:
    return game.events.order_by("seq")


def game_state(*, game: Game) -> GameState:
    """The state now, from the stored projection."""
    return GameState.from_dict(game.state)


def game_state_at(*, game: Game, version: int) -> GameState:
    """The state after the first ``version`` events, folded from the deal and the log alone."""
    if not 0 <= version <= game.version:
        raise Http404(f"the game has versions 0 to {game.version}")
    events = game.events.filter(seq__lte=version).order_by("seq").values_list("type", "payload")
    return history.fold(parse_deal_code(game.deal_code), events)


def game_hints(*, game: Game) -> list[Hint]:
    """Every legal choice, best first, judged on what the player can see."""
    state = game_state(game=game)
    if state.status in ("won", "resigned"):
        return []
    return ranked_hints(state.position)
