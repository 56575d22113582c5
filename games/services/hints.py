"""Hints asked for (ranked inline), counted per game in Redis and flushed to the games in
batches."""

from __future__ import annotations

import logging
from uuid import UUID

import redis
from django.contrib.auth.models import User
from django.core.cache import caches
from django.db.models import F

from games import selectors
from games.models import (
    Game,
)
from infrastructure.cache import redis_client

logger = logging.getLogger(__name__)


def game_hints_request(*, owner: User, game_id: UUID) -> tuple[Game, selectors.HintsView]:
    """The hints a player asked for; asking is counted (``Game.hint_count``), since a win
    without hints is a "clean" win in the statistics.

    Counting must not cost a write of the game row per read. So only the game's first hint is
    written at once (an F() increment, outside the version's compare-and-set: a hint changes
    no position, and no command writes this column): that one decides whether a win can be
    clean, so it is in the database before the answer leaves. Later hints only change the
    number: with Redis they are counted there (one pipelined round trip) and added to the row
    in batches (``hint_counts_flush``, every minute, by the worker). Without Redis, or with
    Redis failing, every hint is written at once, as before.
    """
    game = selectors.game_get(owner=owner, game_id=game_id)
    hints = selectors.game_hints(game=game)
    if not game.is_finished and (game.hint_count == 0 or not _hint_pending(game.pk)):
        Game.objects.filter(pk=game.pk).update(hint_count=F("hint_count") + 1)
    return game, hints


# Redis keys (through the cache, so with its prefix) of hints counted but not yet written: one
# counter per game, and the set of games that have one. A day's TTL bounds what a lost flush
# could leave behind; the flush runs every minute.
_HINTS_PENDING = "hints:pending:{game}"


_HINTS_GAMES = "hints:games"


_HINTS_TTL = 86400


def _hint_pending(game_id: UUID) -> bool:
    """Count one hint of the game in Redis; False if there is no Redis or it failed."""
    cache = caches["default"]
    client = redis_client(cache)
    if client is None:
        return False
    counter = cache.make_and_validate_key(_HINTS_PENDING.format(game=game_id))
    try:
        with client.pipeline(transaction=False) as pipe:
            pipe.incr(counter)
            pipe.expire(counter, _HINTS_TTL)
            pipe.sadd(cache.make_and_validate_key(_HINTS_GAMES), str(game_id))
            pipe.execute()
    except redis.RedisError as exc:
        logger.warning("could not count a hint in Redis, writing it at once: %s", exc)
        return False
    return True


def hint_counts_flush(*, batch: int = 500) -> int:
    """Add the hints counted in Redis to their games' rows; returns how many hints.

    Each game's counter is taken with GETDEL (atomic: two flushes cannot both add it) and
    added with one UPDATE; if the UPDATE fails, the count goes back to Redis. Hints counted
    meanwhile start a new counter. A game deleted meanwhile takes its hints with it.
    """
    cache = caches["default"]
    client = redis_client(cache)
    if client is None:
        return 0
    games_key = cache.make_and_validate_key(_HINTS_GAMES)
    flushed = 0
    while True:
        game_ids = [member.decode() for member in client.spop(games_key, batch) or []]
        if not game_ids:
            return flushed
        for game_id in game_ids:
            counter = cache.make_and_validate_key(_HINTS_PENDING.format(game=game_id))
            count = int(client.getdel(counter) or 0)
            if not count:
                continue
            try:
                Game.objects.filter(pk=game_id).update(hint_count=F("hint_count") + count)
            except Exception:
                with client.pipeline(transaction=False) as pipe:
                    pipe.incrby(counter, count)
                    pipe.expire(counter, _HINTS_TTL)
                    pipe.sadd(games_key, game_id)
                    pipe.execute()
                raise
            flushed += count


def count_hint(game: Game) -> None:
    """One hint, counted as ``game_hints_request`` counts them."""
    if game.hint_count == 0 or not _hint_pending(game.pk):
        Game.objects.filter(pk=game.pk).update(hint_count=F("hint_count") + 1)
