"""A game as its clients see it: the one rendering of games, events, hints, analyses and
winning chances, shared by the REST API (games.api.views) and the live streams
(games.broadcast.payloads), so that a stream's event and the API's answer cannot differ. The
API's serializers describe these shapes for the OpenAPI schema; this module builds them.
Nothing here writes or asks the services."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from games.analysis import line_steps
from games.engine.actions import Move
from games.engine.cards import card_code
from games.engine.difficulty import Measures
from games.engine.position import player_view
from games.history import OVER, GameState
from games.models import DailyDeal, Game, GameChances, GameEvent, WinnableDeal
from games.selectors import AnalysisView, HintsView


def chances_representation(chances: GameChances) -> dict[str, Any]:
    return {
        "status": "ready",
        "game": str(chances.game_id),
        "version": chances.version,
        "samples": chances.samples,
        "node_budget": chances.node_budget,
        "actions": chances.actions,
    }


# Fields of an engine record that describe what the player saw happen; nothing else leaves.
_PUBLIC_RECORD_FIELDS = ("card", "from", "to", "count", "dealt", "flipped", "collected")


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    return {name: record[name] for name in _PUBLIC_RECORD_FIELDS if name in record}


def event_representation(event: GameEvent) -> dict[str, Any]:
    body: dict[str, Any] = {"seq": event.seq, "type": event.type}
    payload = event.payload
    if event.type in ("move", "deal"):
        body.update(public_record(payload))
    elif event.type == "undo":
        body["undone"] = public_record(payload["undone"])
    elif event.type == "redo":
        body["redone"] = public_record(payload["redone"])
    body["created_at"] = event.created_at.isoformat()
    return body


def hints_representation(game: Game, hints: HintsView) -> dict[str, Any]:
    """The hints answer: built from the engine's ranking and the stock's size only."""
    return {
        "version": game.version,
        "moves": [
            {
                "card": card_code(hint.action.card),
                "from": source,
                "to": hint.action.to,
                **({"copy": copy} if copy else {}),
                "reason": hint.reason,
                "details": list(hint.details),
            }
            for hint, source, copy in zip(
                hints.hints, hints.sources, hints.copies or [None] * len(hints.hints), strict=True
            )
            if isinstance(hint.action, Move)
        ],
        "deal": hints.can_deal,
    }


def played_by_app(game: Game) -> dict[str, Any] | None:
    """The app behind the game (``Game.app``, ``Game.app_kind``), or None for first-party
    play. Reads the app (one query by primary key) unless it is cached on the game."""
    if not game.app_kind:
        return None
    app = game.app if game.app_id is not None else None
    return {
        "id": app.pk if app else None,
        "name": app.name if app else None,
        "kind": game.app_kind,
    }


def leaderboard_hidden(game: Game) -> dict[str, str] | None:
    """Staff's decision to hide the game's result from the leaderboards, as its player is
    shown it (docs/fair-play.md), or None."""
    if game.leaderboard_hidden_at is None:
        return None
    return {
        "at": game.leaderboard_hidden_at.isoformat(),
        "reason": game.leaderboard_hidden_reason,
    }


def game_representation(
    game: Game, state: GameState | None = None, *, version: int | None = None
) -> dict[str, Any]:
    """The game as its player may see it: never a face-down card or the stock's order.

    Without ``state``, the game as stored now, read straight from the projection's JSON (what
    ``player_view`` of the parsed position gives, without parsing 52 cards to print them
    again: a test holds the two together)."""
    if state is None:
        stored = game.state
        position = stored["position"]
        view: dict[str, Any] = {
            "columns": [
                {"hidden": column["hidden"], "cards": column["cards"][column["hidden"] :]}
                for column in position["columns"]
            ],
            "stock": len(position["stock"]),
            "collected": list(position["collected"]),
            "reserve": list(position.get("reserve", ())),
        }
        status, moves = game.status, game.moves
        line, redo = stored["line"], stored["redo"]
    else:
        view = player_view(state.position)
        status, moves, line, redo = state.status, state.moves, state.line, state.redo
    reveal = game.reveals_deal
    elapsed: float | None = None
    if game.started_at is not None:
        end = game.finished_at or timezone.now()
        elapsed = max(0.0, (end - game.started_at).total_seconds())
    return {
        "id": str(game.id),
        "mode": game.mode,
        "variant": game.variant,
        "status": status,
        "version": game.version if version is None else version,
        "columns": view["columns"],
        "stock": view["stock"],
        "collected": view["collected"],
        "reserve": view.get("reserve", []),
        "moves": moves,
        "can_undo": bool(line) and status not in OVER,
        "can_redo": bool(redo) and status not in OVER,
        "seed": game.seed if reveal else None,
        "code": game.deal_code if reveal else None,
        "pysol_number": game.pysol_number,
        "daily_date": game.daily_date.isoformat() if game.daily_date else None,
        "difficulty": game.difficulty or None,
        "ranked": game.ranked,
        "restarted_from": str(game.restarted_from_id) if game.restarted_from_id else None,
        "played_by_app": played_by_app(game),
        "known_deal": game.known_deal,
        "leaderboard_hidden": leaderboard_hidden(game),
        "created_at": game.created_at.isoformat(),
        "updated_at": game.updated_at.isoformat(),
        "started_at": game.started_at.isoformat() if game.started_at else None,
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "elapsed_seconds": elapsed,
    }


def analysis_representation(view: AnalysisView) -> dict[str, Any]:
    """The analysis of a finished game whose deal is revealed (``Game.reveals_deal``): only
    then may a table drawn from the solver's line be shown; the steps are ``player_view``
    tables like every other."""
    analysis = view.analysis
    steps = line_steps(view.line_start, analysis.line) if view.line_start is not None else []
    return {
        "status": "ready",
        "game": str(analysis.game_id),
        "version": analysis.version,
        "deal": analysis.deal_verdict,
        "outcome": analysis.outcome,
        "last_winnable_version": analysis.last_winnable_version,
        "losing_event": (
            event_representation(view.losing_event) if view.losing_event is not None else None
        ),
        "line_version": analysis.line_version,
        "line": steps,
        "solver_nodes": analysis.solver_nodes,
        "node_budget": analysis.node_budget,
        "created_at": analysis.created_at.isoformat(),
        "difficulty": _deal_difficulty(view.deal),
    }


def _deal_difficulty(deal: DailyDeal | WinnableDeal | None) -> dict[str, Any] | None:
    if deal is None or not deal.difficulty_band or deal.difficulty_score is None:
        return None
    return {
        "band": deal.difficulty_band,
        "score": deal.difficulty_score,
        "model_score": deal.difficulty_model_score,
        "games": deal.difficulty_games,
        "measures": Measures.from_dict(deal.difficulty_measures).to_dict(),
    }
