"""Pages of the browser client for playing together (docs/web.md): a challenge, the friends
page and an invite link. HTML shells as every page: the data comes from the API."""

from __future__ import annotations

from uuid import UUID

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import ensure_csrf_cookie

from web.views import _page


@ensure_csrf_cookie
def challenge(request: HttpRequest, challenge_id: UUID) -> HttpResponse:
    """Anyone signed in (a guest too) may open a challenge's link; a visitor signs in or plays
    as a guest first, and comes back here."""
    return _page(request, "web/challenge.html", challenge_id=str(challenge_id), page="friends")


@ensure_csrf_cookie
def friends(request: HttpRequest) -> HttpResponse:
    return _page(request, "web/friends.html", page="friends", invite_id="")


@ensure_csrf_cookie
def invite(request: HttpRequest, invite_id: UUID) -> HttpResponse:
    """The friends page, asking whether to accept the invite (never accepted by just opening
    the link: a preview by a chat app must not make friends)."""
    return _page(request, "web/friends.html", page="friends", invite_id=str(invite_id))
