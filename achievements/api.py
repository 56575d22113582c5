"""Endpoints of achievements and the daily calendar: the caller's own, read with the
statistics' scope."""

from __future__ import annotations

import re
from typing import Any

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import scopes
from achievements import dailies, selectors, words
from infrastructure.api import ApiView
from stats.api import player
from stats.selectors import seconds

_MONTH = re.compile(r"([0-9]{4})-([0-9]{2})")


class AchievementSerializer(serializers.Serializer[Any]):
    code = serializers.CharField(
        help_text="first_win, no_undo_win, hard_win, daily_streak_7, daily_streak_30, "
        'wins_100, or win_<variant> (docs/api.md, "Achievements").'
    )
    title = serializers.CharField()
    description = serializers.CharField()
    earned = serializers.BooleanField()
    earned_at = serializers.DateTimeField(
        allow_null=True, help_text="When the game that earned it finished; null: not earned."
    )
    game = serializers.UUIDField(allow_null=True, help_text="The game that earned it.")


class BadgeSerializer(serializers.Serializer[Any]):
    month = serializers.CharField(help_text="YYYY-MM: every day of it won (late wins count).")
    earned_at = serializers.DateTimeField(help_text="When the win that completed it finished.")
    game = serializers.UUIDField(help_text="The win that completed the month.")


class AchievementsSerializer(serializers.Serializer[Any]):
    achievements = AchievementSerializer(
        many=True, help_text="Every achievement: the earned ones first, oldest first."
    )
    badges = BadgeSerializer(many=True, help_text="Monthly badges of the daily calendar.")


def _badge(badge: dailies.Badge) -> dict[str, Any]:
    return {
        "month": badge.month,
        "earned_at": badge.earned_at.isoformat(),
        "game": str(badge.game_id),
    }


def _achievement(held: selectors.Held) -> dict[str, Any]:
    title, description = words.title_and_description(held.kind)
    return {
        "code": held.kind.code,
        "title": title,
        "description": description,
        "earned": held.earned_at is not None,
        "earned_at": None if held.earned_at is None else held.earned_at.isoformat(),
        "game": None if held.game_id is None else str(held.game_id),
    }


class AchievementsView(ApiView):
    """The caller's achievements, earned and not yet, and their monthly badges."""

    oauth_scopes = {"GET": scopes.STATS_READ}

    @extend_schema(operation_id="achievements_list", responses={200: AchievementsSerializer})
    def get(self, request: Request) -> Response:
        me = player(request)
        return Response(
            {
                "achievements": [_achievement(held) for held in selectors.achievements_of(user=me)],
                "badges": [_badge(badge) for badge in dailies.badges_of(user=me)],
            }
        )


class CalendarDaySerializer(serializers.Serializer[Any]):
    date = serializers.DateField()
    playable = serializers.BooleanField(
        help_text="Can be started now: today's daily, or a past day's played late (365 days)."
    )
    played = serializers.BooleanField(help_text="A game of that day's daily counts as played.")
    in_play = serializers.BooleanField(help_text="A game of that day's daily is still on.")
    won = serializers.BooleanField(help_text="Won, on the day or late.")
    won_on_the_day = serializers.BooleanField(
        help_text="Won by a game begun on that UTC day (not of a known deal): a streak day."
    )
    late = serializers.BooleanField(
        help_text="Won, but not on the day: only by games begun after it, or of a known deal."
    )
    time = serializers.FloatField(allow_null=True, help_text="Seconds: the fastest win.")
    moves = serializers.IntegerField(allow_null=True, help_text="The fastest win's moves.")
    rank = serializers.IntegerField(
        allow_null=True, help_text="The ranked win's rank on that day's leaderboard."
    )
    game = serializers.UUIDField(
        allow_null=True, help_text="The fastest win, else the latest game of the day."
    )


class StreaksSerializer(serializers.Serializer[Any]):
    current = serializers.IntegerField(
        help_text="Streak days in a row up to today (or yesterday, while today's is open)."
    )
    best = serializers.IntegerField()


class CalendarSerializer(serializers.Serializer[Any]):
    month = serializers.CharField(help_text="YYYY-MM")
    days = CalendarDaySerializer(many=True)
    streaks = StreaksSerializer()
    badge = BadgeSerializer(allow_null=True, help_text="The month's badge, if earned.")


def parse_month(raw: str) -> tuple[int, int]:
    """A YYYY-MM month from 0001-01 to 9999-11, else a 400 validation_error."""
    match = _MONTH.fullmatch(raw)
    if match is not None:
        year, month = int(match[1]), int(match[2])
        if year >= 1 and 1 <= month <= 12 and (year, month) < (9999, 12):
            return year, month
    raise serializers.ValidationError({"month": ["a month as YYYY-MM, e.g. 2025-01"]})


class CalendarView(ApiView):
    """A month of the caller's daily challenges: each day's result, their streaks, the
    month's badge. Never a deal: a day says how the caller did, not what was dealt."""

    oauth_scopes = {"GET": scopes.STATS_READ}

    @extend_schema(
        operation_id="daily_calendar",
        parameters=[
            OpenApiParameter(
                "month", OpenApiTypes.STR, OpenApiParameter.PATH, description="YYYY-MM (UTC)"
            )
        ],
        responses={
            200: CalendarSerializer,
            400: OpenApiResponse(description="validation_error: not a month as YYYY-MM"),
        },
    )
    def get(self, request: Request, month: str) -> Response:
        year, number = parse_month(month)
        view = dailies.calendar_month(
            user=player(request), year=year, month=number, today=timezone.now().date()
        )
        return Response(
            {
                "month": view.month,
                "days": [
                    {
                        "date": day.date.isoformat(),
                        "playable": day.playable,
                        "played": day.played,
                        "in_play": day.in_play,
                        "won": day.won,
                        "won_on_the_day": day.won_on_the_day,
                        "late": day.late,
                        "time": seconds(day.time),
                        "moves": day.moves,
                        "rank": day.rank,
                        "game": None if day.game_id is None else str(day.game_id),
                    }
                    for day in view.days
                ],
                "streaks": {"current": view.streaks.current, "best": view.streaks.best},
                "badge": None if view.badge is None else _badge(view.badge),
            }
        )
