"""Statistics endpoints: the caller's figures and the daily leaderboard."""

from __future__ import annotations

import datetime
import re
from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from accounts import scopes
from games import selectors as game_selectors
from games.api.responses import LeaderboardHiddenSerializer
from games.api.serializers import (
    QueryIntegerField,
    QuerySerializer,
)
from games.models import GameStatus
from games.variants import variant_choices
from infrastructure.api import ApiView
from infrastructure.db_routing import reads_may_lag
from stats import selectors
from stats.selectors import LeaderboardEntry, seconds

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
MAX_PAGE = 10**6  # as the games list: far past any real page, far below the database's OFFSET
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# A day's leaderboard spans [day, next day): the last date Python can represent has no next
# day, so the dates taken are those up to the day before it.
LAST_DAY = datetime.date.max - datetime.timedelta(days=1)


def player(request: Request) -> User:
    user = request.user
    assert isinstance(user, User)
    return user


class FiguresSerializer(serializers.Serializer[Any]):
    played = serializers.IntegerField(
        help_text="Games that count: won + resigned + abandoned (left behind after a move)."
    )
    won = serializers.IntegerField()
    resigned = serializers.IntegerField()
    abandoned = serializers.IntegerField(
        help_text="Games left behind after at least one move (another game of the same kind "
        "started, or a restart): played and not won."
    )
    in_play = serializers.IntegerField(
        help_text="Games in play or stuck: not counted yet (they count once won, resigned or left)."
    )
    win_rate = serializers.FloatField(
        allow_null=True, help_text="won / played, 0 to 1; null before the first played game."
    )
    current_streak = serializers.IntegerField(
        help_text="Consecutive wins at the end of the finished games, in order of finishing."
    )
    best_streak = serializers.IntegerField()
    best_time = serializers.FloatField(
        allow_null=True, help_text="Seconds from the first move to the end of the fastest win."
    )
    fewest_moves = serializers.IntegerField(allow_null=True)
    average_win_time = serializers.FloatField(allow_null=True, help_text="Seconds.")
    clean_wins = serializers.IntegerField(help_text="Wins without an undo or a hint.")


class ModesSerializer(serializers.Serializer[Any]):
    random = FiguresSerializer()
    seeded = FiguresSerializer()
    daily = FiguresSerializer()
    winnable = FiguresSerializer()
    daily_practice = FiguresSerializer(
        help_text="Later attempts at a day's daily challenge (practice: they never rank)."
    )


class VariantFiguresSerializer(serializers.Serializer[Any]):
    """The player's record at one variant, every mode together (no streaks: those are kept
    overall and per mode)."""

    variant = serializers.ChoiceField(choices=variant_choices())
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    resigned = serializers.IntegerField()
    abandoned = serializers.IntegerField()
    in_play = serializers.IntegerField()
    win_rate = serializers.FloatField(allow_null=True, help_text="won / played, 0 to 1.")
    best_time = serializers.FloatField(allow_null=True, help_text="Seconds.")
    fewest_moves = serializers.IntegerField(allow_null=True)
    clean_wins = serializers.IntegerField()


class BandResultsSerializer(serializers.Serializer[Any]):
    played = serializers.IntegerField(help_text="Played games on deals of this band.")
    won = serializers.IntegerField()
    win_rate = serializers.FloatField(
        allow_null=True, help_text="won / played, 0 to 1; null before the first played game."
    )


class DifficultyResultsSerializer(serializers.Serializer[Any]):
    easy = BandResultsSerializer()
    medium = BandResultsSerializer()
    hard = BandResultsSerializer()


class StatsSerializer(FiguresSerializer):
    modes = ModesSerializer(
        help_text="The same figures per mode, every variant together; the daily challenge "
        "apart, its first attempts of each day (daily) apart from its practice attempts "
        "(daily_practice)."
    )
    variants = VariantFiguresSerializer(
        many=True,
        help_text="Per variant (GET /api/v1/variants/), every variant offered listed, Scorpion "
        "first; double-scorpion-3-2 (kept for the games begun in it) only to its players.",
    )
    difficulty = DifficultyResultsSerializer(
        help_text="Daily and winnable games by the difficulty band of their deal "
        "(docs/difficulty.md): played, won and the win rate."
    )


class LeaderboardEntrySerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField(help_text="Players equal in time, moves and finish share it.")
    player = serializers.CharField(help_text="A display name that reveals no e-mail address.")
    time = serializers.FloatField(help_text="Seconds from the first move to the winning one.")
    moves = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    is_me = serializers.BooleanField(help_text="This entry is the caller's.")


class MyRankSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    time = serializers.FloatField()
    moves = serializers.IntegerField()
    finished_at = serializers.DateTimeField()


class LeaderboardSerializer(serializers.Serializer[Any]):
    date = serializers.DateField()
    count = serializers.IntegerField(help_text="Players with a win that day.")
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = LeaderboardEntrySerializer(many=True)
    me = MyRankSerializer(allow_null=True, help_text="The caller's best win, wherever it ranks.")
    me_hidden = LeaderboardHiddenSerializer(
        allow_null=True,
        help_text="The caller's ranked win of the day, when staff hid it from the leaderboard "
        "(docs/fair-play.md): when, and the reason they gave; null otherwise.",
    )


class StatsView(ApiView):
    """The caller's statistics, overall and per mode (the daily challenge apart)."""

    oauth_scopes = {"GET": scopes.STATS_READ}

    @extend_schema(operation_id="stats_retrieve", responses={200: StatsSerializer})
    @reads_may_lag
    def get(self, request: Request) -> Response:
        return Response(selectors.stats_for(user=player(request)).to_dict())


class LeaderboardQuerySerializer(QuerySerializer):
    """The query of the leaderboard, as strict as the games list's."""

    page = QueryIntegerField(required=False, min_value=1, max_value=MAX_PAGE)
    page_size = QueryIntegerField(
        required=False, min_value=1, max_value=MAX_PAGE_SIZE, help_text="Default 20."
    )


def parse_day(raw: str) -> datetime.date:
    """A YYYY-MM-DD date from 0001-01-01 to LAST_DAY, else a 400 validation_error."""
    try:
        if _DATE.fullmatch(raw):
            day = datetime.date.fromisoformat(raw)
            if day <= LAST_DAY:
                return day
    except ValueError:
        pass
    raise serializers.ValidationError(
        # (No upper bound named: LAST_DAY only keeps "the day after" computable; a player's
        # future days get their own answer, "after today".)
        {"date": [gettext("a date as YYYY-MM-DD, e.g. 2025-01-31")]}
    )


def _entry(entry: LeaderboardEntry, me: User) -> dict[str, Any]:
    return {
        "rank": entry.rank,
        "player": entry.player,
        "time": seconds(entry.time),
        "moves": entry.moves,
        "finished_at": entry.finished_at.isoformat(),
        "is_me": entry.user_id == me.pk,
    }


def _page_link(request: Request, page: int) -> str:
    url = request.build_absolute_uri()
    if page == 1:
        return remove_query_param(url, "page")
    return replace_query_param(url, "page", page)


class DailyLeaderboardView(ApiView):
    """A UTC day's daily-challenge leaderboard: each player's ranked win (their first attempt
    of the day) on that day's deal, fastest first (time, then moves, then who finished
    first), with the caller's own rank. A future day is a 400 except to staff."""

    oauth_scopes = {"GET": scopes.STATS_READ}

    @extend_schema(
        operation_id="daily_leaderboard",
        parameters=[
            OpenApiParameter(
                "date", OpenApiTypes.DATE, OpenApiParameter.PATH, description="UTC day"
            ),
            LeaderboardQuerySerializer,
        ],
        responses={
            200: LeaderboardSerializer,
            400: OpenApiResponse(
                description="validation_error: a bad date, page or page_size, or a day after "
                "today (UTC) asked by a player"
            ),
            404: OpenApiResponse(description="not_found: a page past the end"),
        },
    )
    @reads_may_lag
    def get(self, request: Request, date: str) -> Response:
        day = parse_day(date)
        query = LeaderboardQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        page: int = query.validated_data.get("page", 1)
        page_size: int = query.validated_data.get("page_size", DEFAULT_PAGE_SIZE)
        me = player(request)
        if not selectors.day_visible(day=day, user=me):
            # Said from the dates alone, the same for every future day: a player cannot tell
            # whether a future day has a deal, let alone learn anything about it.
            today = timezone.now().date()
            raise serializers.ValidationError(
                {
                    "date": [
                        gettext(
                            "%(day)s is after today (%(today)s, UTC): a day's leaderboard opens "
                            "on that day"
                        )
                        % {"day": day.isoformat(), "today": today.isoformat()}
                    ]
                }
            )
        board = selectors.daily_leaderboard(day=day, page=page, page_size=page_size, user=me)
        if page > 1 and not board.entries:
            raise Http404(
                gettext("no page %(page)d: the day has %(count)d players with a win")
                % {"page": page, "count": board.count}
            )
        own = board.me
        return Response(
            {
                "date": day.isoformat(),
                "count": board.count,
                "next": _page_link(request, page + 1) if board.has_next else None,
                "previous": _page_link(request, page - 1) if board.has_previous else None,
                "results": [_entry(entry, me) for entry in board.entries],
                "me": None
                if own is None
                else {
                    "rank": own.rank,
                    "time": seconds(own.time),
                    "moves": own.moves,
                    "finished_at": own.finished_at.isoformat(),
                },
                "me_hidden": None
                if board.my_hidden is None
                else {"at": board.my_hidden[0].isoformat(), "reason": board.my_hidden[1]},
            }
        )


class GameResultSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    moves = serializers.IntegerField()
    time = serializers.FloatField(
        allow_null=True, help_text="Seconds from the first move to the win; null unless won."
    )
    best_time = serializers.BooleanField(
        help_text="A win faster than every earlier win of its kind (its statistics row)."
    )
    fewest_moves = serializers.BooleanField(
        help_text="A win in fewer moves than every earlier win of its kind."
    )
    previous_best_time = serializers.FloatField(
        allow_null=True, help_text="Seconds: the fastest earlier win of its kind, if any."
    )
    previous_fewest_moves = serializers.IntegerField(allow_null=True)
    first_win = serializers.BooleanField(help_text="The player's first win of its kind.")
    current_streak = serializers.IntegerField(help_text="The player's streak now (all kinds).")
    best_streak = serializers.IntegerField()
    daily_rank = serializers.IntegerField(
        allow_null=True, help_text="A ranked daily win: its rank that day so far."
    )
    daily_count = serializers.IntegerField(
        allow_null=True, help_text="A ranked daily game: the players with a win that day so far."
    )
    next_daily_at = serializers.DateTimeField(help_text="When the next daily challenge opens.")


class GameResultView(ApiView):
    """What one of the caller's games meant: personal bests, streak, daily rank."""

    # Statistics about one game: either the stats scope or reading games would show as much.
    oauth_scopes = {"GET": scopes.STATS_READ}

    @extend_schema(
        operation_id="game_result",
        description=(
            "For the win moment of a client: whether the game (a win) beat the caller's "
            "earlier wins of the same kind on time or moves, the streak now, for a ranked "
            "daily game its rank that day, and when the next daily challenge opens. Any "
            "game of the caller's may be asked about; a game not won has no bests."
        ),
        responses={
            200: GameResultSerializer,
            404: OpenApiResponse(description="not_found: no such game of the caller's"),
        },
    )
    @reads_may_lag
    def get(self, request: Request, game_id: UUID) -> Response:
        game = game_selectors.game_get(owner=player(request), game_id=game_id)
        result = selectors.game_result(game=game)
        return Response(
            {
                "id": str(game.id),
                "status": game.status,
                "moves": game.moves,
                "time": seconds(result.time),
                "best_time": result.best_time,
                "fewest_moves": result.fewest_moves,
                "previous_best_time": seconds(result.previous_best_time),
                "previous_fewest_moves": result.previous_fewest_moves,
                "first_win": result.won and result.earlier_wins == 0,
                "current_streak": result.current_streak,
                "best_streak": result.best_streak,
                "daily_rank": result.daily_rank,
                "daily_count": result.daily_count,
                "next_daily_at": selectors.next_daily_at(timezone.now()).isoformat(),
            }
        )
