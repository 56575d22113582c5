from django.urls import path

from achievements import api

urlpatterns = [
    path("achievements/", api.AchievementsView.as_view(), name="achievements"),
    path("calendar/<str:month>/", api.CalendarView.as_view(), name="daily-calendar"),
]
