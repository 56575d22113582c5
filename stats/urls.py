from django.urls import path

from stats import api

urlpatterns = [
    path("stats/", api.StatsView.as_view(), name="stats"),
    path("games/<uuid:game_id>/result/", api.GameResultView.as_view(), name="game-result"),
    path(
        "daily/<str:date>/leaderboard/",
        api.DailyLeaderboardView.as_view(),
        name="daily-leaderboard",
    ),
]
