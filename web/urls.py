from django.urls import path

from web import pwa, social_views, views

urlpatterns = [
    path("jsi18n/<str:language>/", views.LanguageCatalog.as_view(), name="javascript-catalog"),
    # At the root: a service worker controls only the paths below its own URL (web/pwa.py).
    path("sw.js", pwa.service_worker, name="web-service-worker"),
    path("manifest.webmanifest", pwa.manifest, name="web-manifest"),
    path("offline/", pwa.offline, name="web-offline"),
    path("play/<uuid:game_id>/", views.play, name="web-play"),
    path("daily/", views.daily, name="web-daily"),
    path("daily/calendar/", views.daily_calendar, name="web-daily-calendar"),
    path("stats/", views.stats, name="web-stats"),
    path("history/", views.history, name="web-history"),
    path("history/<uuid:game_id>/", views.replay, name="web-replay"),
    path("account/", views.account, name="web-account"),
    path("challenges/<uuid:challenge_id>/", social_views.challenge, name="web-challenge"),
    path("friends/", social_views.friends, name="web-friends"),
    path("friends/invite/<uuid:invite_id>/", social_views.invite, name="web-invite"),
    path("account/password/reset/", views.password_reset, name="web-password-reset"),
    path(
        "account/password/reset/<str:key>/",
        views.password_reset,
        name="web-password-reset-key",
    ),
    path("account/verify-email/<str:key>/", views.verify_email, name="web-verify-email"),
    # allauth's stock pages that a player could reach (old links, the "Forgot password" of
    # the admin's log-in) lead to the client's own pages; /accounts/login/ stays (the admin's).
    path("accounts/confirm-email/<str:key>/", views.to_verify_email),
    path("accounts/password/reset/", views.to_client_page, {"to": "/account/password/reset/"}),
    path("accounts/signup/", views.to_client_page, {"to": "/account/"}),
    path("accounts/email/", views.to_client_page, {"to": "/account/"}),
    path("accounts/password/change/", views.to_client_page, {"to": "/account/"}),
]
