from django.urls import path

from web import views

urlpatterns = [
    path("play/<uuid:game_id>/", views.play, name="web-play"),
    path("daily/", views.daily, name="web-daily"),
    path("stats/", views.stats, name="web-stats"),
    path("history/", views.history, name="web-history"),
    path("history/<uuid:game_id>/", views.replay, name="web-replay"),
]
