"""OpenAPI description of the API's authentication (drf-spectacular extensions): the
first-party session token, and the OAuth 2 access tokens of third-party apps with the
scopes each operation needs."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension

from accounts.scopes import ALL_SCOPES, declared_scopes

AUTHORIZE_URL = "/identity/o/authorize"
TOKEN_URL = "/identity/o/api/token"


class SessionTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.SessionTokenAuthentication"
    name = "sessionToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-Session-Token",
            "description": "meta.session_token from POST /_allauth/app/v1/auth/login or signup",
        }


class OAuth2Scheme(OpenApiAuthenticationExtension):
    """Each operation lists the scopes of which its access token needs one (one security
    requirement per scope: OpenAPI's "or"); an operation kept to the player's own sessions
    does not list this scheme at all."""

    target_class = "accounts.authentication.BearerTokenAuthentication"
    name = "oauth2"

    def get_security_requirement(self, auto_schema: Any) -> list[dict[str, list[str]]]:
        needed = declared_scopes(auto_schema.view, auto_schema.method) or ()
        return [{self.name: [scope]} for scope in needed]

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "oauth2",
            "description": (
                "Access tokens of third-party apps (docs/third-party.md), sent as "
                "`Authorization: Bearer <token>`. Authorization code with PKCE (S256) for "
                "apps with a browser; the device authorization grant (RFC 8628) for "
                "terminals and bots: POST /identity/o/api/device/code. Refresh tokens rotate "
                "at each use; POST /identity/o/api/revoke revokes (RFC 7009). OpenID Connect "
                "discovery: /.well-known/openid-configuration."
            ),
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": AUTHORIZE_URL,
                    "tokenUrl": TOKEN_URL,
                    "refreshUrl": TOKEN_URL,
                    "scopes": dict(ALL_SCOPES),
                }
            },
        }
