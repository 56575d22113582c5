"""The scopes a third-party app can be granted, and what each API view needs of them.

A view of the API declares, per HTTP method, the scopes that let an app's access token in:

    oauth_scopes = {"GET": GAMES_READ, "POST": GAMES_PLAY}

A token needs one of the listed scopes (any one suffices). ``FIRST_PARTY`` (no scope at all)
keeps a method to the player's own sessions: the browser's cookie and the ``X-Session-Token``
of the first-party apps, which always have full access. A view or method that declares
nothing is closed to every token (the permission fails closed, and a test over the OpenAPI
schema checks that every operation declares its scopes).

No Django import here: the declarations are read by the permission, the OpenAPI extension,
the consent page and the documentation alike. The scopes' descriptions are English here (the
OpenAPI schema and the docs say them so); the pages a player reads translate them with
``gettext`` (``gettext_noop`` below puts them in the catalogue).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

Scopes = tuple[str, ...]


def gettext_noop(message: str) -> str:
    """The message unchanged: marks it for makemessages (which knows this name), to be
    translated where a page shows it."""
    return message


GAMES_READ_SCOPE = "games:read"
GAMES_PLAY_SCOPE = "games:play"
STATS_READ_SCOPE = "stats:read"
ACCOUNT_READ_SCOPE = "account:read"
SOCIAL_READ_SCOPE = "social:read"
SOCIAL_WRITE_SCOPE = "social:write"

# What the consent page, the OpenAPI schema and docs/third-party.md say each scope allows.
API_SCOPES: dict[str, str] = {
    GAMES_PLAY_SCOPE: gettext_noop("Start games, play moves and ask for hints in your name"),
    GAMES_READ_SCOPE: gettext_noop("See your games, their full history and your daily challenge"),
    STATS_READ_SCOPE: gettext_noop("See your statistics and the daily leaderboards"),
    ACCOUNT_READ_SCOPE: gettext_noop("See your account: e-mail address and the date you joined"),
    SOCIAL_READ_SCOPE: gettext_noop(
        "See your friends, your challenges and their boards, and the friends' board"
    ),
    SOCIAL_WRITE_SCOPE: gettext_noop(
        "Make and close challenges, ask, accept, remove and block friends, invite"
    ),
}
OPENID_SCOPES: dict[str, str] = {
    "openid": gettext_noop("Know who you are on Scorpion (a player number, nothing else)"),
    "profile": gettext_noop("See your profile (your user name)"),
    "email": gettext_noop("See your e-mail address"),
}
ALL_SCOPES: dict[str, str] = {**API_SCOPES, **OPENID_SCOPES}

# The declarations views use: a token needs any one of the scopes listed.
GAMES_READ: Scopes = (GAMES_READ_SCOPE,)
GAMES_PLAY: Scopes = (GAMES_PLAY_SCOPE,)
# The table of a game being played is part of playing it: either scope shows it.
GAMES_READ_OR_PLAY: Scopes = (GAMES_READ_SCOPE, GAMES_PLAY_SCOPE)
STATS_READ: Scopes = (STATS_READ_SCOPE,)
ACCOUNT_READ: Scopes = (ACCOUNT_READ_SCOPE,)
SOCIAL_READ: Scopes = (SOCIAL_READ_SCOPE,)
SOCIAL_WRITE: Scopes = (SOCIAL_WRITE_SCOPE,)
FIRST_PARTY: Scopes = ()

# The player's feed (``GET /api/v1/me/stream/``, opened with games:read) also tells of other
# players: their results on the player's challenges, their daily wins. An app's token hears
# those events only with the scope that reads the same results elsewhere (docs/api.md).
FEED_EVENT_SCOPES: dict[str, Scopes] = {
    "challenge_result": SOCIAL_READ,
    "friend_beat_time": SOCIAL_READ,
}


def declared_scopes(view: object, method: str) -> Scopes | None:
    """The scopes (any one of them) that let a token call ``method`` on ``view``: ``()`` when
    only the player's own sessions may, ``None`` when the view declares nothing for it."""
    declared: Mapping[str, Scopes] | None = getattr(view, "oauth_scopes", None)
    if declared is None:
        return None
    method = method.upper()
    return declared.get("GET" if method == "HEAD" else method)


def is_granted(needed: Scopes, granted: Collection[str]) -> bool:
    """Whether a token with the ``granted`` scopes may do what needs one of ``needed``."""
    return any(scope in granted for scope in needed)
