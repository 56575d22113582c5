from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularSwaggerSplitView,
)

from accounts.api import (
    CLIENT_ID_PATTERN,
    GuestView,
    MeAppsView,
    MeAppView,
    MeTokensView,
    MeTokenView,
)
from games.streams.gate import GameStreamView, MeStreamView
from infrastructure import api_views, health
from players.api import MeDataView, MeExportView, MeView
from web import views as web_views

# The admin's log-in is allauth's: the same form, rate limits (per address, and failed log-ins
# per account) and lock-out as every other log-in, instead of Django's unlimited admin form.
# Staff sign in with their e-mail address and come back to the admin page they asked for.
admin.site.login = secure_admin_login(admin.site.login)  # type: ignore[method-assign]

handler404 = "infrastructure.problems.api_not_found"
handler500 = "infrastructure.problems.api_server_error"

api_v1: list[URLPattern | URLResolver] = [
    path("", include("games.api.urls")),
    path("guest/", GuestView.as_view(), name="guest"),
    path("me/", MeView.as_view(), name="me"),
    path("me/export/", MeExportView.as_view(), name="me-export"),
    path("me/data/", MeDataView.as_view(), name="me-data"),
    # Served by the ASGI stream server (games/streams/app.py); elsewhere they answer 503.
    path("games/<uuid:game_id>/stream/", GameStreamView.as_view(), name="game-stream"),
    path("me/stream/", MeStreamView.as_view(), name="me-stream"),
    path("me/apps/", MeAppsView.as_view(), name="me-apps"),
    re_path(rf"^me/apps/(?P<client_id>{CLIENT_ID_PATTERN})/$", MeAppView.as_view(), name="me-app"),
    path("me/tokens/", MeTokensView.as_view(), name="me-tokens"),
    path("me/tokens/<int:token_id>/", MeTokenView.as_view(), name="me-token"),
    path("", include("stats.urls")),
    path("", include("social.api.urls")),
    path("", include("achievements.urls")),
]

urlpatterns = [
    path("", web_views.home, name="home"),
    path("", include("web.urls")),
    path("healthz/", health.healthz, name="healthz"),
    path("healthz/workers/", health.healthz_workers, name="healthz-workers"),
    path("admin/", admin.site.urls),
    path("staff/", include("staff.urls")),
    path("accounts/", include("allauth.urls")),
    # allauth serves its phone-number endpoints whatever the configuration, and without a
    # phone adapter they fail with a 500; this service keeps no phone numbers: no such paths.
    re_path(r"^_allauth/[a-z]+/v1/(?:account|auth)/phone(?:/.*)?$", api_views.no_such_endpoint),
    path("_allauth/", include("allauth.headless.urls")),
    # Our pages for third-party apps, and our wrappers of some of allauth's provider views
    # (same paths, so they come first); then the rest of allauth's OAuth 2 / OIDC provider.
    path("", include("accounts.oauth.urls")),
    path("", include("allauth.idp.urls")),
    path("api/v1/", include(api_v1)),
    path("api/problems/<slug:code>/", api_views.problem_type, name="problem-type"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI from the project (drf-spectacular-sidecar), with no inline script or style:
    # the split view serves its set-up script as a file (?script). The same page for everyone,
    # so it reads no credentials: its template's auth context processor asks DRF for the user,
    # and a failing credential (a dead session token, a cookie's write without CSRF) raised
    # inside the rendering of the error page, a 500 (tests/api/test_api_docs.py).
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="schema", template_name="api_docs/swagger_ui.html", authentication_classes=[]
        ),
        name="api-docs",
    ),
    # Last: every other path under /api/ is a 404 problem, DEBUG or not (no_such_endpoint).
    re_path(r"^api/", api_views.no_such_endpoint),
]
