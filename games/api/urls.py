from django.urls import path

from games.api import views

urlpatterns = [
    path("games/", views.GameListView.as_view(), name="games"),
    path("games/<uuid:game_id>/", views.GameDetailView.as_view(), name="game"),
    path("games/<uuid:game_id>/commands/", views.GameCommandView.as_view(), name="game-commands"),
    path("games/<uuid:game_id>/hints/", views.GameHintsView.as_view(), name="game-hints"),
    path("games/<uuid:game_id>/chances/", views.GameChancesView.as_view(), name="game-chances"),
    path("games/<uuid:game_id>/analysis/", views.GameAnalysisView.as_view(), name="game-analysis"),
    path("games/<uuid:game_id>/events/", views.GameEventsView.as_view(), name="game-events"),
    path(
        "games/<uuid:game_id>/events/export/",
        views.GameEventsExportView.as_view(),
        name="game-events-export",
    ),
    path("games/<uuid:game_id>/states/", views.GameStatesView.as_view(), name="game-states"),
    path(
        "games/<uuid:game_id>/states/<int:version>/",
        views.GameStateView.as_view(),
        name="game-state",
    ),
    path("games/<uuid:game_id>/restart/", views.GameRestartView.as_view(), name="game-restart"),
    path("daily/", views.DailyView.as_view(), name="daily"),
    path("variants/", views.VariantsView.as_view(), name="variants"),
]
