"""What the feed stream (``GET /api/v1/me/stream/``) tells players of their friends and
challenges: ``challenge_result`` to a challenge's creator when someone finishes it, and
``friend_beat_time`` to a player whose daily win a friend has just beaten.

Called through ``settings.GAME_FINISHED_HOOKS`` in the transaction that ends a game;
published once it commits. A feed that reconnects gets the notices it missed too
(``feed_backlog``, one of ``settings.FEED_BACKLOG_SOURCES``): each is rebuilt from the game
that caused it, with the same id as when it was live (the game's finish time, offset 2), so a
notice published while the stream read its backlog is sent once. A lost publish is caught up
the same way at the next reconnect. Never about, or to, a player blocked either way.
"""

from __future__ import annotations

import datetime
import logging
from functools import partial
from typing import Any
from uuid import UUID

from django.db import transaction

from games.broadcast.hub import Message, get_hub, user_channel
from games.broadcast.payloads import BacklogTooLongError, dumps, feed_id
from games.models import Game, GameMode, GameStatus
from social import selectors
from social.models import ChallengeAttempt
from social.services.challenges import challenge_game_finished
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
        challenge_game_finished(game=game)
        transaction.on_commit(partial(_publish_safely, _challenge_messages, game.pk))


def _publish_safely(build: Any, game_id: UUID) -> None:
    try:
        hub = get_hub()
        for user_id, message in build(game_id):
            hub.publish(user_channel(user_id), message)
    except Exception:
        logger.exception("publishing the social notices of game %s failed", game_id)


def _notice_id(game: Game) -> str:
    # The finished game's moment, after its own feed messages (its finish, its daily result:
    # offsets 0 and 1): the same id live and rebuilt, so a stream sends a notice once.
    assert game.finished_at is not None
    return str(feed_id(game.finished_at, 2))


def feed_backlog(
    *, owner_id: int, since: datetime.datetime, after: int, max_replay: int
) -> list[Message]:
    """The notices to ``owner_id`` whose id is after ``after``, rebuilt from the games that
    finished since ``since``: results of the player's challenges, and friends' ranked daily
    wins that beat the player's time (only a time the player had when the friend won). More
    than ``max_replay`` such games (a client far behind, or a forged ``Last-Event-ID``) are not
    read one by one: the feed says resync."""
    challenge_games = list(
        ChallengeAttempt.objects.filter(
            challenge__creator_id=owner_id, game__finished_at__gte=since
        ).values_list("game_id", flat=True)[: max_replay + 1]
    )
    friend_wins = list(
        Game.objects.filter(
            owner_id__in=selectors.friend_ids(user_id=owner_id),
            mode=GameMode.DAILY,
            ranked=True,
            status=GameStatus.WON,
            finished_at__gte=since,
        ).values_list("pk", flat=True)[: max_replay + 1]
    )
    if len(challenge_games) + len(friend_wins) > max_replay:
        raise BacklogTooLongError
    built = [m for game_id in challenge_games for m in _challenge_messages(game_id)]
    built += [m for game_id in friend_wins for m in _friend_beat_messages(game_id)]
    return [message for user, message in built if user == owner_id and int(message.id) > after]


def _challenge_messages(game_id: UUID) -> list[tuple[int, Message]]:
    attempt = (
        ChallengeAttempt.objects.select_related("challenge", "game").filter(game_id=game_id).first()
    )
    if attempt is None:
        return []
    creator_id = attempt.challenge.creator_id
    if attempt.deal_seen or selectors.blocked_between(creator_id, attempt.player_id):
        return []
    entry = selectors.attempt_entry(attempt)
    if entry is None:  # a bot's game, or an account deactivated: on no board
        return []
    body = {"challenge": str(attempt.challenge_id), **entry.to_dict(viewer_id=creator_id)}
    return [(creator_id, Message(_notice_id(attempt.game), CHALLENGE_RESULT, dumps(body)))]


def _friend_beat_messages(game_id: UUID) -> list[tuple[int, Message]]:
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.daily_date is None:
        return []
    wins = daily_wins(day=game.daily_date).annotate(time=win_time_expression())
    mine = wins.filter(pk=game.pk).values("time", "moves", "finished_at").first()
    if mine is None:  # not a counted win (a bot's, a late one): it beats nobody
        return []
    friends = selectors.friend_ids(user_id=game.owner_id)
    # Only a time the friend already had: a win of theirs after this one was never beaten by it.
    beaten = wins.filter(
        owner_id__in=friends, time__gt=mine["time"], finished_at__lt=game.finished_at
    ).values("owner_id", "time", "moves")
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
        messages.append((row["owner_id"], Message(_notice_id(game), FRIEND_BEAT_TIME, dumps(body))))
    return messages
