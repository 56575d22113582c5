from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts.api import MeDataView, MeExportView, MeView
from scorpion_site import health, views

handler404 = "games.api.problems.api_not_found"
handler500 = "games.api.problems.api_server_error"

api_v1: list[URLPattern | URLResolver] = [
    path("", include("games.api.urls")),
    path("me/", MeView.as_view(), name="me"),
    path("me/export/", MeExportView.as_view(), name="me-export"),
    path("me/data/", MeDataView.as_view(), name="me-data"),
    path("", include("stats.urls")),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("", include("web.urls")),
    path("healthz/", health.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("staff/", include("scorpion_site.staff.urls")),
    path("accounts/", include("allauth.urls")),
    # allauth serves its phone-number endpoints whatever the configuration, and without a
    # phone adapter they fail with a 500; this service keeps no phone numbers: no such paths.
    re_path(r"^_allauth/[a-z]+/v1/(?:account|auth)/phone(?:/.*)?$", views.no_such_endpoint),
    path("_allauth/", include("allauth.headless.urls")),
    path("api/v1/", include(api_v1)),
    path("api/problems/<slug:code>/", views.problem_type, name="problem-type"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
]
