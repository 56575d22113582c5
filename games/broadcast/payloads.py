"""What streams carry, rendered by the serialisers of every other answer.

A game stream carries, per accepted command, the same JSON as the command's answer: the
player's view of the game after it (``game_representation``) plus ``event``
(``event_representation``); its SSE ``id`` is the version. Hidden information, and any rule
about what a player may see (the deal code, the stock), is therefore the one of every other
answer: nothing here decides what is shown.

A player's feed carries ``game_created``, ``game_finished`` and ``daily_result``; its SSE ids
are microsecond timestamps of the change (``daily_result`` one microsecond after its game's
``game_finished``), so a reconnecting feed is replayed from the games themselves.
"""

from __future__ import annotations

import copy
import datetime
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.db.models import Q
from django.utils import timezone

from games import history, selectors
from games.broadcast.hub import Message
from games.history import GameState
from games.models import FINISHED_STATUSES, Game, GameEvent, GameMode
from games.presentation import event_representation, game_representation
from infrastructure.wiring import wired_functions

COMMAND = "command"
RESYNC = "resync"
END = "end"
GAME_CREATED = "game_created"
GAME_FINISHED = "game_finished"
DAILY_RESULT = "daily_result"
FEED_RESYNC = "resync"


def dumps(body: Any) -> str:
    """Compact JSON on one line (an SSE ``data`` field must not contain a newline)."""
    return json.dumps(body, separators=(",", ":"))


# --- A game's stream ---


def command_message(game: Game, state: GameState, event: GameEvent) -> Message:
    """The event of an accepted command, as the command's answer carries it."""
    body = game_representation(game, state, version=event.seq)
    body["event"] = event_representation(event)
    return Message(str(event.seq), COMMAND, dumps(body), final=state.status in FINISHED_STATUSES)


# Past any version a game can reach (2**31 - 1, docs/api.md): a game stream that gets it takes
# it for a lost publish and repairs itself from the log, where a deleted game is no more, so it
# ends with "gone" (the same path a reconnection to a deleted game takes).
GONE_VERSION = 2**31


def gone_message() -> Message:
    return Message(str(GONE_VERSION), END, dumps({"status": "gone"}), final=True)


def resync_message(game: Game) -> Message:
    """The whole game as it is now: the client replaces what it has."""
    return Message(str(game.version), RESYNC, dumps(game_representation(game)), final=False)


def end_frame(status: str) -> bytes:
    return f"event: {END}\ndata: {dumps({'status': status})}\n\n".encode()


def _as_of(game: Game, event: GameEvent) -> Game:
    """The game's own fields as they were right after ``event`` (for replayed events, whose
    answer was given then): its time, whether it had started or finished."""
    then = copy.copy(game)
    then.updated_at = event.created_at
    if game.started_at is not None and game.started_at > event.created_at:
        then.started_at = None
    if event.seq != game.version:
        then.finished_at = None
    return then


def _replayed_message(game: Game, state: GameState, event: GameEvent) -> Message:
    then = _as_of(game, event)
    message = command_message(then, state, event)
    if then.started_at is None or then.finished_at is not None:
        return message
    # The answer given at the time counted the game's time up to that moment, not to now.
    body = json.loads(message.data)
    body["elapsed_seconds"] = max(0.0, (event.created_at - then.started_at).total_seconds())
    return Message(message.id, message.event, dumps(body), final=message.final)


@dataclass(frozen=True, slots=True)
class Backlog:
    """What a game stream sends to bring a client from its version to the game's."""

    messages: list[Message]
    version: int  # the version the client has after them
    status: str
    gone: bool = False  # the game no longer exists (the player deleted their data)

    @property
    def final(self) -> bool:
        return self.status in FINISHED_STATUSES


def game_backlog(*, game: Game, after: int | None, max_replay: int) -> Backlog:
    """Every event after version ``after``, from the log, each with the game as it stood
    then; or, for a client without a version, too far behind, or ahead of the log (a version
    of another game), one ``resync`` with the whole game."""
    if after is None or after > game.version or game.version - after > max_replay:
        return Backlog([resync_message(game)], game.version, game.status)
    if after == game.version:
        return Backlog([], game.version, game.status)
    state = selectors.game_state_at(game=game, version=after)
    messages = []
    for event in selectors.game_events(game=game, after=after):
        state = history.fold_event(state, event.type, event.payload)
        messages.append(_replayed_message(game, state, event))
    return Backlog(messages, game.version, game.status)


def game_catch_up(*, game_id: UUID, owner_id: int, after: int, max_replay: int) -> Backlog:
    """A stream's repair: what it missed after ``after``, read from the log."""
    game = Game.objects.filter(pk=game_id, owner_id=owner_id).first()
    if game is None:
        return Backlog([], after, "", gone=True)
    return game_backlog(game=game, after=after, max_replay=max_replay)


# --- A player's feed ---


def feed_id(moment: datetime.datetime, offset: int = 0) -> int:
    return int(moment.timestamp() * 1_000_000) + offset


def game_created_message(game: Game) -> Message:
    return Message(str(feed_id(game.created_at)), GAME_CREATED, dumps(game_representation(game)))


def game_finished_message(game: Game) -> Message:
    assert game.finished_at is not None
    return Message(str(feed_id(game.finished_at)), GAME_FINISHED, dumps(game_representation(game)))


def daily_result_message(game: Game) -> Message:
    """The player's standing on the day of a daily game that just ended."""
    assert game.finished_at is not None
    assert game.daily_date is not None
    owner = User(pk=game.owner_id)
    summary = selectors.daily_summary(owner=owner, day=game.daily_date)
    body = {
        "date": game.daily_date.isoformat(),
        "game": str(game.pk),
        "status": game.status,
        "moves": game.moves,
        "elapsed_seconds": game_representation(game)["elapsed_seconds"],
        "solved": summary.solved,
        "attempts": summary.attempts,
    }
    return Message(str(feed_id(game.finished_at, 1)), DAILY_RESULT, dumps(body))


def feed_messages_for(game: Game) -> list[Message]:
    """What the feed says about a game that just ended (nothing while it is on)."""
    if game.status not in FINISHED_STATUSES or game.finished_at is None:
        return []
    messages = [game_finished_message(game)]
    if game.mode == GameMode.DAILY:
        messages.append(daily_result_message(game))
    return messages


@dataclass(frozen=True, slots=True)
class FeedBacklog:
    messages: list[Message]
    cursor: int  # the id to resume from after them


def feed_now() -> int:
    return feed_id(timezone.now())


def feed_resync_message() -> Message:
    """Re-read your lists: what they showed is gone (the player deleted their games)."""
    return Message(str(feed_now()), FEED_RESYNC, "{}")


class BacklogTooLongError(Exception):
    """A backlog source found more than ``max_replay`` things to replay: the feed says resync,
    as for the player's own games."""


def feed_backlog_sources() -> tuple[Callable[..., list[Message]], ...]:
    """What else the feed replays to a reconnecting player (``settings.FEED_BACKLOG_SOURCES``,
    dotted paths: the friends' and challenges' notices of the social layer, above the games,
    which import none of it). Each takes ``owner_id``, ``since``, ``after`` and ``max_replay``,
    and raises ``BacklogTooLongError`` rather than read more than ``max_replay`` games."""
    return wired_functions("FEED_BACKLOG_SOURCES")


def feed_backlog(
    *,
    owner_id: int,
    after: int | None,
    max_replay: int,
    withheld: frozenset[str] = frozenset(),
) -> FeedBacklog:
    """What the feed said after ``after`` (a feed id), rebuilt from the player's games; too
    much of it is one ``resync`` (re-read your lists). Never the ``withheld`` events (those an
    app's token lacks the scope for: ``accounts.app_tokens.feed_events_withheld``)."""
    now = feed_now()
    if after is None or after >= now:
        return FeedBacklog([], now)
    since = datetime.datetime.fromtimestamp(after / 1_000_000, tz=datetime.UTC)
    games = list(
        Game.objects.filter(owner_id=owner_id)
        .filter(Q(created_at__gte=since) | Q(finished_at__gte=since))
        .order_by("created_at")[: max_replay + 1]
    )
    messages = [game_created_message(game) for game in games if feed_id(game.created_at) > after]
    for game in games:
        messages += [m for m in feed_messages_for(game) if int(m.id) > after]
    too_long = len(games) > max_replay
    try:
        for source in feed_backlog_sources():
            messages += source(owner_id=owner_id, since=since, after=after, max_replay=max_replay)
    except BacklogTooLongError:
        too_long = True
    messages = [message for message in messages if message.event not in withheld]
    if too_long or len(messages) > max_replay:
        return FeedBacklog([Message(str(now), FEED_RESYNC, "{}")], now)
    messages.sort(key=lambda message: int(message.id))
    return FeedBacklog(messages, max([now, *(int(m.id) for m in messages)]))
