"""What the live streams (Server-Sent Events) bring: a followed game's updates, and the
events of the player's feed."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorpion_client.models._fields import (
    _bool,
    _extra,
    _int,
    _mapping,
    _opt_date,
    _opt_datetime,
    _opt_float,
    _str,
)
from scorpion_client.models.games import Event, Game


@dataclass
class GameUpdate:
    """A command accepted on a followed game, here or on another device: the game after it
    (``game``, at ``version``) and what it did (``event``)."""

    version: int
    game: Game
    event: Event

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameUpdate:
        game = Game.from_json(data)
        return cls(version=game.version, game=game, event=Event.from_json(_mapping(data["event"])))


@dataclass
class GameResync:
    """The whole game as it is now: sent first to a client that gave no version, or to one too
    far behind to be sent every event. Replace what you had."""

    version: int
    game: Game

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameResync:
        game = Game.from_json(data)
        return cls(version=game.version, game=game)


GameStreamEvent = GameUpdate | GameResync
"""What ``game.stream()`` yields."""


@dataclass
class GameCreated:
    """One of the player's games was created (on any device)."""

    game: Game

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameCreated:
        return cls(game=Game.from_json(data))


@dataclass
class GameEnded:
    """One of the player's games was won or resigned."""

    game: Game

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameEnded:
        return cls(game=Game.from_json(data))


_DAILY_RESULT_KEYS = ("date", "game", "status", "moves", "elapsed_seconds", "solved", "attempts")


@dataclass
class DailyResult:
    """A daily-challenge game ended: how, and the player's standing on that day."""

    date: dt.date
    game: str
    status: str
    moves: int
    elapsed_seconds: float | None
    solved: bool
    attempts: int
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DailyResult:
        date = _opt_date(data["date"])
        assert date is not None
        return cls(
            date=date,
            game=_str(data["game"]),
            status=_str(data["status"]),
            moves=_int(data.get("moves", 0)),
            elapsed_seconds=_opt_float(data.get("elapsed_seconds")),
            solved=_bool(data.get("solved")),
            attempts=_int(data.get("attempts", 0)),
            extra=_extra(data, _DAILY_RESULT_KEYS),
        )


_CHALLENGE_RESULT_KEYS = (
    "challenge",
    "player",
    "is_me",
    "status",
    "won",
    "time",
    "moves",
    "undos",
    "finished_at",
)


@dataclass
class ChallengeResult:
    """Someone finished their game of one of your challenges (``challenge``: its id), as its
    board shows them: ``time`` in seconds (None unless won). An app's token hears it only
    with ``social:read`` (and ``games:read``)."""

    challenge: str
    player: str
    is_me: bool
    status: str
    won: bool
    time: float | None
    moves: int
    undos: int
    finished_at: dt.datetime
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ChallengeResult:
        finished_at = _opt_datetime(data["finished_at"])
        assert finished_at is not None
        return cls(
            challenge=_str(data["challenge"]),
            player=_str(data["player"]),
            is_me=_bool(data.get("is_me")),
            status=_str(data["status"]),
            won=_bool(data.get("won")),
            time=_opt_float(data.get("time")),
            moves=_int(data.get("moves", 0)),
            undos=_int(data.get("undos", 0)),
            finished_at=finished_at,
            extra=_extra(data, _CHALLENGE_RESULT_KEYS),
        )


_FRIEND_BEAT_TIME_KEYS = ("date", "friend", "time", "moves", "your_time", "your_moves")


@dataclass
class FriendBeatTime:
    """A friend's ranked daily win on ``date`` beat the time you had that day: theirs
    (``time`` seconds, ``moves``) and yours. An app's token hears it only with
    ``social:read`` (and ``games:read``)."""

    date: dt.date
    friend: str
    time: float
    moves: int
    your_time: float
    your_moves: int
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FriendBeatTime:
        date = _opt_date(data["date"])
        time, your_time = _opt_float(data["time"]), _opt_float(data["your_time"])
        assert date is not None
        assert time is not None
        assert your_time is not None
        return cls(
            date=date,
            friend=_str(data["friend"]),
            time=time,
            moves=_int(data.get("moves", 0)),
            your_time=your_time,
            your_moves=_int(data.get("your_moves", 0)),
            extra=_extra(data, _FRIEND_BEAT_TIME_KEYS),
        )


@dataclass
class FeedResync:
    """The feed missed too much to replay it: read your lists again."""


FeedEvent = GameCreated | GameEnded | DailyResult | ChallengeResult | FriendBeatTime | FeedResync
"""What ``client.me.stream()`` yields."""
