"""The services' hooks: called on commit, once the event is durable, never before.

A failure here never fails the request: the command is committed, and the log is the truth
that every stream repairs itself from.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from games.broadcast import payloads
from games.broadcast.hub import game_channel, get_hub, user_channel

if TYPE_CHECKING:
    from uuid import UUID

    from games.history import GameState
    from games.models import Game, GameEvent

logger = logging.getLogger(__name__)


def game_event_committed(game: Game, state: GameState, event: GameEvent) -> None:
    """A command was committed: its game's streams get it; the player's feed hears when the
    game ends (and, for a daily game, the day's standing)."""
    try:
        hub = get_hub()
        hub.publish(game_channel(game.pk), payloads.command_message(game, state, event))
        for message in payloads.feed_messages_for(game):
            hub.publish(user_channel(game.owner_id), message)
    except Exception:
        logger.exception("publishing event %s of game %s failed", event.seq, game.pk)


def game_created_committed(game: Game) -> None:
    try:
        get_hub().publish(user_channel(game.owner_id), payloads.game_created_message(game))
    except Exception:
        logger.exception("publishing the creation of game %s failed", game.pk)


def games_deleted_committed(owner_id: int, game_ids: list[UUID]) -> None:
    """The player deleted their games: the streams still open on them end ("gone": another
    device showing one of them says so, instead of a table that refuses every move), and the
    player's feed tells the lists to read themselves again."""
    try:
        hub = get_hub()
        for game_id in game_ids:
            hub.publish(game_channel(game_id), payloads.gone_message())
        hub.publish(user_channel(owner_id), payloads.feed_resync_message())
    except Exception:
        logger.exception("publishing the deletion of %s games failed", len(game_ids))
