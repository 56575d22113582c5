from django.urls import URLPattern, path

from staff import fair_play, views

app_name = "staff"

urlpatterns: list[URLPattern] = [
    path("dashboard/", views.dashboard, name="dashboard"),
    path("games/<uuid:game_id>/replay/", views.game_replay, name="replay"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("pool/top-up/", views.pool_top_up, name="pool-top-up"),
    path("fair-play/", fair_play.fair_play, name="fair-play"),
    path("games/<uuid:game_id>/hide/", fair_play.result_hide, name="result-hide"),
    path("games/<uuid:game_id>/restore/", fair_play.result_restore, name="result-restore"),
]
