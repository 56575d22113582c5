"""The developer's form for an app: a name, redirect URIs, and (once) public or confidential,
and whether a person plays through it or it plays by itself (a bot)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy

from accounts.models import AppKind

MAX_REDIRECT_URIS = 10
MAX_REDIRECT_URI_LENGTH = 500
_PRIVATE_SCHEME = re.compile(r"^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$")
LOOPBACK_HOSTS = {"127.0.0.1", "::1"}


def validate_redirect_uri(uri: str) -> None:
    """What an app may be sent back to (RFC 8252 and the OAuth security BCP): an https URL;
    plain http only on the loopback address (127.0.0.1 or [::1], any port: native apps);
    or an app's private-use scheme in reverse domain form (``com.example.app:/callback``).
    Never a fragment or a wildcard."""
    if len(uri) > MAX_REDIRECT_URI_LENGTH:
        raise ValidationError(
            gettext("%(uri)s…: longer than %(most)d characters.")
            % {"uri": uri[:40], "most": MAX_REDIRECT_URI_LENGTH}
        )
    if any(char.isspace() for char in uri) or "*" in uri:
        raise ValidationError(gettext("%(uri)s: no spaces or wildcards.") % {"uri": uri})
    try:
        parts = urlsplit(uri)
        hostname = parts.hostname
    except ValueError:
        raise ValidationError(gettext("%(uri)s: not a URL.") % {"uri": uri}) from None
    if "#" in uri:
        raise ValidationError(
            gettext("%(uri)s: a redirect URI cannot have a fragment (#...).") % {"uri": uri}
        )
    scheme = parts.scheme.lower()
    if scheme == "https":
        if not hostname:
            raise ValidationError(gettext("%(uri)s: an https URL needs a host.") % {"uri": uri})
    elif scheme == "http":
        if hostname not in LOOPBACK_HOSTS:
            raise ValidationError(
                gettext(
                    "%(uri)s: plain http only for the loopback address "
                    "(http://127.0.0.1:PORT/... or http://[::1]:PORT/...); use https."
                )
                % {"uri": uri}
            )
    elif not _PRIVATE_SCHEME.match(scheme):
        raise ValidationError(
            gettext(
                "%(uri)s: use https, the loopback address, or your app's own scheme in reverse "
                "domain form (com.example.app:/callback)."
            )
            % {"uri": uri}
        )


class AppForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        label=gettext_lazy("Name"),
        help_text=gettext_lazy("Shown to players when your app asks for their permission."),
    )
    redirect_uris = forms.CharField(
        label=gettext_lazy("Redirect URIs"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false", "autocomplete": "off"}),
        help_text=gettext_lazy(
            "One per line: where players are sent back with the authorization code. "
            "Not needed by an app that only uses the device flow."
        ),
    )

    def __init__(self, *args: Any, public: bool | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.public = public

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"].strip()
        if not name:
            raise ValidationError(gettext("Give your app a name."))
        return name

    def clean_redirect_uris(self) -> list[str]:
        lines = [line.strip() for line in self.cleaned_data["redirect_uris"].splitlines()]
        uris = list(dict.fromkeys(line for line in lines if line))
        if len(uris) > MAX_REDIRECT_URIS:
            raise ValidationError(
                gettext("At most %(most)d redirect URIs.") % {"most": MAX_REDIRECT_URIS}
            )
        errors = []
        for uri in uris:
            try:
                validate_redirect_uri(uri)
            except ValidationError as error:
                errors.extend(error.messages)
        if errors:
            raise ValidationError(errors)
        return uris

    def is_public(self) -> bool:
        return bool(self.public)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.is_public() and "redirect_uris" in cleaned and not cleaned["redirect_uris"]:
            self.add_error(
                "redirect_uris",
                gettext("A confidential app signs players in by redirect: give one."),
            )
        return cleaned


class NewAppForm(AppForm):
    kind = forms.ChoiceField(
        label=gettext_lazy("Kind of app"),
        choices=[
            (
                "public",
                gettext_lazy(
                    "Public: runs on the player's machine (terminal client, bot, desktop or "
                    "mobile app) and keeps no secret; uses PKCE or the device flow"
                ),
            ),
            (
                "confidential",
                gettext_lazy("Confidential: runs on your server and keeps a client secret"),
            ),
        ],
        widget=forms.RadioSelect,
        initial="public",
    )
    app_kind = forms.ChoiceField(
        label=gettext_lazy("Who plays"),
        choices=[
            (
                AppKind.CLIENT.value,
                gettext_lazy(
                    "A person: players play through your app (a game client, a terminal client, "
                    "an app that shows their games); their results may rank on the leaderboards"
                ),
            ),
            (
                AppKind.BOT.value,
                gettext_lazy(
                    "Your app: it chooses moves by itself (a bot, a solver, an engine); its games "
                    "count in the player's statistics but never rank on a leaderboard"
                ),
            ),
        ],
        widget=forms.RadioSelect,
        help_text=gettext_lazy("Staff may change it if your app plays otherwise than declared."),
    )
    field_order = ["name", "kind", "app_kind", "redirect_uris"]

    def is_public(self) -> bool:
        return self.cleaned_data.get("kind") == "public"
