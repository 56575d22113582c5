"""Routes of accounts.oauth: our wrappers of allauth's provider views, at allauth's own paths
(tests/accounts/test_idp_routes.py checks that allauth's names lead here), and our pages."""

from django.urls import path

from accounts.oauth import idp, pages

urlpatterns = [
    path("identity/o/authorize", idp.AuthorizationView.as_view()),
    path("identity/o/device", idp.device_authorization),
    path("identity/o/api/token", idp.TokenView.as_view()),
    path("identity/o/api/device/code", idp.DeviceCodeView.as_view()),
    path("identity/o/api/userinfo", idp.UserInfoView.as_view()),
    path("account/apps/", pages.authorised_apps, name="account-apps"),
    path("account/apps/<str:client_id>/revoke/", pages.revoke_app, name="account-app-revoke"),
    path("account/tokens/new/", pages.personal_token_new, name="account-token-new"),
    path(
        "account/tokens/<int:token_id>/revoke/",
        pages.personal_token_revoke,
        name="account-token-revoke",
    ),
    path("developers/apps/", pages.developer_apps, name="developer-apps"),
    path("developers/apps/new/", pages.developer_app_new, name="developer-app-new"),
    path("developers/apps/<str:client_id>/", pages.developer_app, name="developer-app"),
    path(
        "developers/apps/<str:client_id>/secret/",
        pages.developer_app_secret,
        name="developer-app-secret",
    ),
    path(
        "developers/apps/<str:client_id>/delete/",
        pages.developer_app_delete,
        name="developer-app-delete",
    ),
]
