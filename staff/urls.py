from django.urls import URLPattern, path

from staff import views

app_name = "staff"

urlpatterns: list[URLPattern] = [
    path("dashboard/", views.dashboard, name="dashboard"),
    path("games/<uuid:game_id>/replay/", views.game_replay, name="replay"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("pool/top-up/", views.pool_top_up, name="pool-top-up"),
]
