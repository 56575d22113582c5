"""What the feed stream (``GET /api/v1/me/stream/``) tells players of their friends and
challenges: ``challenge_result`` to a challenge's creator when someone finishes it, and
``friend_beat_time`` to a player whose daily win a friend has just beaten.

Called through ``settings.GAME_FINISHED_HOOKS`` in the transaction that ends a game;
published once it commits (a lost publish loses a notice, never a result: the boards are
read from the games). Notices are live only: a reconnecting feed replays the player's own
games, not these (docs/api.md). Never about, or to, a player blocked either way.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from games.broadcast.hub import Message, get_hub, user_channel
from games.broadcast.payloads import dumps, feed_id
from games.models import Game, GameMode, GameStatus
from social import selectors
from social.models import ChallengeAttempt
from stats.selectors import daily_wins, seconds, win_time_expression

logger = logging.getLogger(__name__)

CHALLENGE_RESULT = "challenge_result"
FRIEND_BEAT_TIME = "friend_beat_time"


def game_finished(*, game: Game) -> None:
    """The hook: a game ended. Only a ranked daily win or a challenge's game (a seeded game of
    a known deal) may concern anyone else; every other game costs nothing here."""
    if game.mode == GameMode.DAILY and game.ranked and game.status == GameStatus.WON:
        transaction.on_commit(partial(_publish_safely, _friend_beat_messages, game.pk))
    elif game.mode == GameMode.SEEDED and game.known_deal:
        transaction.on_commit(partial(_publish_safely, _challenge_messages, game.pk))


def _publish_safely(build: Any, game_id: UUID) -> None:
    try:
        hub = get_hub()
        for user_id, message in build(game_id):
            hub.publish(user_channel(user_id), message)
    except Exception:
        logger.exception("publishing the social notices of game %s failed", game_id)


def _moment_id() -> str:
    # After the game's own feed messages (its finish, its daily result: offsets 0 and 1).
    return str(feed_id(timezone.now(), 2))


def _challenge_messages(game_id: UUID) -> list[tuple[int, Message]]:
    attempt = (
        ChallengeAttempt.objects.select_related("challenge", "game").filter(game_id=game_id).first()
    )
    if attempt is None:
        return []
    creator_id = attempt.challenge.creator_id
    if selectors.blocked_between(creator_id, attempt.player_id):
        return []
    entry = selectors.attempt_entry(attempt)
    if entry is None:  # a bot's game, or an account deactivated: on no board
        return []
    body = {"challenge": str(attempt.challenge_id), **entry.to_dict(viewer_id=creator_id)}
    return [(creator_id, Message(_moment_id(), CHALLENGE_RESULT, dumps(body)))]


def _friend_beat_messages(game_id: UUID) -> list[tuple[int, Message]]:
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.daily_date is None:
        return []
    wins = daily_wins(day=game.daily_date).annotate(time=win_time_expression())
    mine = wins.filter(pk=game.pk).values("time", "moves", "finished_at").first()
    if mine is None:  # not a counted win (a bot's, a late one): it beats nobody
        return []
    friends = selectors.friend_ids(user_id=game.owner_id)
    beaten = wins.filter(owner_id__in=friends, time__gt=mine["time"]).values(
        "owner_id", "time", "moves"
    )
    name = selectors.player_names([game.owner_id])[game.owner_id]
    messages = []
    for row in beaten:
        body = {
            "date": game.daily_date.isoformat(),
            "friend": name,
            "time": seconds(mine["time"]),
            "moves": mine["moves"],
            "your_time": seconds(row["time"]),
            "your_moves": row["moves"],
        }
        messages.append((row["owner_id"], Message(_moment_id(), FRIEND_BEAT_TIME, dumps(body))))
    return messages
