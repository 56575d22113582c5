"""Every (method, path template) the SDK calls, declared once.

The SDK builds each request from one of these constants, so ``ENDPOINTS`` is exactly what the
SDK can reach; a test compares it with the server's OpenAPI schema, so the two cannot drift
apart unnoticed. Path parameters are named as in the server's schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

__all__ = ["ENDPOINTS", "Endpoint"]

ENDPOINTS: list[Endpoint] = []


@dataclass(frozen=True)
class Endpoint:
    method: str
    template: str
    # True for the API of record (in the OpenAPI schema); False for allauth's endpoints.
    api: bool = True

    def path(self, **params: Any) -> str:
        return self.template.format(
            **{name: quote(str(value), safe="") for name, value in params.items()}
        )


def _endpoint(method: str, template: str, *, api: bool = True) -> Endpoint:
    endpoint = Endpoint(method, template, api)
    ENDPOINTS.append(endpoint)
    return endpoint


# Accounts: allauth headless, the "app" client (not in the API's OpenAPI schema).
AUTH_SIGNUP = _endpoint("POST", "/_allauth/app/v1/auth/signup", api=False)
AUTH_LOGIN = _endpoint("POST", "/_allauth/app/v1/auth/login", api=False)
AUTH_LOGOUT = _endpoint("DELETE", "/_allauth/app/v1/auth/session", api=False)

# OAuth 2 (allauth's provider, allauth.idp.oidc): for third-party apps; not in the API's schema.
OAUTH_AUTHORIZE = _endpoint("GET", "/identity/o/authorize", api=False)  # the browser's page
OAUTH_DEVICE_CODE = _endpoint("POST", "/identity/o/api/device/code", api=False)
OAUTH_TOKEN = _endpoint("POST", "/identity/o/api/token", api=False)
OAUTH_REVOKE = _endpoint("POST", "/identity/o/api/revoke", api=False)

# Games.
GAMES_LIST = _endpoint("GET", "/api/v1/games/")
GAMES_CREATE = _endpoint("POST", "/api/v1/games/")
GAME_GET = _endpoint("GET", "/api/v1/games/{game_id}/")
GAME_COMMAND = _endpoint("POST", "/api/v1/games/{game_id}/commands/")
GAME_HINTS = _endpoint("GET", "/api/v1/games/{game_id}/hints/")
GAME_ANALYSIS = _endpoint("GET", "/api/v1/games/{game_id}/analysis/")
GAME_CHANCES = _endpoint("GET", "/api/v1/games/{game_id}/chances/")
GAME_CHANCES_PREPARE = _endpoint("POST", "/api/v1/games/{game_id}/chances/")
GAME_EVENTS = _endpoint("GET", "/api/v1/games/{game_id}/events/")
GAME_EVENTS_EXPORT = _endpoint("GET", "/api/v1/games/{game_id}/events/export/")
GAME_STATES = _endpoint("GET", "/api/v1/games/{game_id}/states/")
GAME_STATE = _endpoint("GET", "/api/v1/games/{game_id}/states/{version}/")
GAME_RESTART = _endpoint("POST", "/api/v1/games/{game_id}/restart/")
GAME_RESULT = _endpoint("GET", "/api/v1/games/{game_id}/result/")

# Live streams (Server-Sent Events): in the OpenAPI schema as text/event-stream.
GAME_STREAM = _endpoint("GET", "/api/v1/games/{game_id}/stream/")
ME_STREAM = _endpoint("GET", "/api/v1/me/stream/")

# Daily challenge and statistics.
DAILY = _endpoint("GET", "/api/v1/daily/")
DAILY_LEADERBOARD = _endpoint("GET", "/api/v1/daily/{date}/leaderboard/")
STATS = _endpoint("GET", "/api/v1/stats/")
ACHIEVEMENTS = _endpoint("GET", "/api/v1/achievements/")
CALENDAR = _endpoint("GET", "/api/v1/calendar/{month}/")
VARIANTS = _endpoint("GET", "/api/v1/variants/")

# The caller's account and data.
ME = _endpoint("GET", "/api/v1/me/")
ME_UPDATE = _endpoint("PATCH", "/api/v1/me/")
ME_APPS = _endpoint("GET", "/api/v1/me/apps/")
ME_APP_REVOKE = _endpoint("DELETE", "/api/v1/me/apps/{client_id}/")
ME_TOKENS = _endpoint("GET", "/api/v1/me/tokens/")
ME_TOKEN_CREATE = _endpoint("POST", "/api/v1/me/tokens/")
ME_TOKEN_REVOKE = _endpoint("DELETE", "/api/v1/me/tokens/{token_id}/")
ME_EXPORT = _endpoint("GET", "/api/v1/me/export/")
ME_DELETE_DATA = _endpoint("DELETE", "/api/v1/me/data/")
ME_DELETE = _endpoint("DELETE", "/api/v1/me/")

# Playing together: challenges, friends, invites, blocks (docs/api.md "Playing together").
CHALLENGES = _endpoint("GET", "/api/v1/challenges/")
CHALLENGE_CREATE = _endpoint("POST", "/api/v1/challenges/")
CHALLENGE = _endpoint("GET", "/api/v1/challenges/{challenge_id}/")
CHALLENGE_PLAY = _endpoint("POST", "/api/v1/challenges/{challenge_id}/play/")
CHALLENGE_CLOSE = _endpoint("POST", "/api/v1/challenges/{challenge_id}/close/")
FRIENDS = _endpoint("GET", "/api/v1/friends/")
FRIEND_REQUEST = _endpoint("POST", "/api/v1/friends/")
FRIEND_ACCEPT = _endpoint("POST", "/api/v1/friends/{friendship_id}/accept/")
FRIEND_REMOVE = _endpoint("DELETE", "/api/v1/friends/{friendship_id}/")
INVITE_CREATE = _endpoint("POST", "/api/v1/invites/")
INVITE_REVOKE = _endpoint("DELETE", "/api/v1/invites/{invite_id}/")
BLOCK_CREATE = _endpoint("POST", "/api/v1/blocks/")
BLOCK_REMOVE = _endpoint("DELETE", "/api/v1/blocks/{block_id}/")
FRIENDS_LEADERBOARD = _endpoint("GET", "/api/v1/daily/{date}/leaderboard/friends/")
