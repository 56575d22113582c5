"""Where the provider's pages send a player who is not signed in.

The consent page, the device page and the apps pages send players to the home page's log-in
form (the web client's, in the site's style), which comes back to them with ``?next=``.
``settings.LOGIN_URL`` stays allauth's ``/accounts/login/``: the admin's log-in goes there
(``secure_admin_login`` in scorpion_site/urls.py), and staff are not players of the web client.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

PLAYER_LOGIN_URL = "/"

View = Callable[..., HttpResponse]


def player_login_required(view: View) -> View:
    """``login_required``, to the home page's log-in form."""
    return login_required(view, login_url=PLAYER_LOGIN_URL)


def to_player_login(request: HttpRequest) -> HttpResponseRedirect:
    """The redirect to the home page's log-in form, coming back to this request's page."""
    return redirect_to_login(request.get_full_path(), PLAYER_LOGIN_URL)
