"""Reads of games: lookups scoped to their owner, the log, and positions rebuilt from it."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from uuid import UUID

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import Http404

from games import history
from games.engine.cards import parse_deal_code
from games.engine.hints import Hint, ranked_hints
from games.engine.position import Position
from games.history import GameState
from games.models import DailyDeal, Game, GameAnalysis, GameEvent, GameMode, GameStatus


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


@dataclass(frozen=True, slots=True)
class HintsView:
    hints: list[Hint]
    can_deal: bool


def game_hints(*, game: Game) -> HintsView:
    """Every legal choice, best first, judged only on what the player can see (the engine's
    ``ranked_hints``): nothing here may depend on a face-down card or the stock's order, so
    no solver verdict either. Computed on each request (a fraction of a millisecond), so
    hints never wait on a worker and are never stale. A finished game has none."""
    if game.is_finished:
        return HintsView([], can_deal=False)
    position = game_state(game=game).position
    return HintsView(ranked_hints(position), can_deal=bool(position.stock))


@dataclass(frozen=True, slots=True)
class DailySummary:
    date: datetime.date
    game: Game | None
    ranked_game: Game | None
    solved: bool
    attempts: int
    deal_ready: bool


def daily_summary(*, owner: User, day: datetime.date) -> DailySummary:
    """The player's standing on a day's challenge: their latest attempt, their ranked (first)
    attempt, and whether any attempt was won."""
    attempts = Game.objects.filter(owner=owner, mode=GameMode.DAILY, daily_date=day)
    latest = attempts.order_by("-created_at", "-pk").first()
    return DailySummary(
        date=day,
        game=latest,
        ranked_game=attempts.filter(ranked=True).first(),
        solved=attempts.filter(status=GameStatus.WON).exists(),
        attempts=attempts.count(),
        deal_ready=DailyDeal.objects.filter(date=day).exists(),
    )


@dataclass(frozen=True, slots=True)
class AnalysisView:
    analysis: GameAnalysis
    # The full position the winning line starts from (None without a line).
    line_start: Position | None
    losing_event: GameEvent | None


def game_analysis_view(*, game: Game, analysis: GameAnalysis) -> AnalysisView:
    """What the analysis answer shows besides the stored row: the position its line starts
    from and the event that lost the game."""
    line_start = None
    if analysis.line_version is not None and analysis.line:
        line_start = game_state_at(game=game, version=analysis.line_version).position
    losing_event = None
    if analysis.outcome == "slipped" and analysis.last_winnable_version is not None:
        losing_event = game.events.filter(seq=analysis.last_winnable_version + 1).first()
    return AnalysisView(analysis, line_start, losing_event)
