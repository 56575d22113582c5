"""Scorpion's own terminal client (``scorpion login``, client_sdk/scorpion_client/cli.py) as
an OAuth app on every installation: the public client ``scorpion-cli``, which logs in by the
device flow and refreshes its tokens, allowed the four scopes the terminal client asks for and
nothing more. It has no owner (no player registered it: the device page says it is Scorpion's
own) and no redirect URI (it never uses the authorization code flow). The player still sees the
device page and allows it there: consent is not skipped.

Written against the historical model (no model methods): the list fields are stored one value
a line, as ``Client.set_scopes`` and ``Client.set_grant_types`` store them."""

from __future__ import annotations

from typing import Any

from django.db import migrations

TERMINAL_CLIENT_ID = "scorpion-cli"
TERMINAL_CLIENT_NAME = "Scorpion terminal client"
# What ``scorpion login`` asks for (scorpion_client.cli.SCOPES; a test keeps them equal).
TERMINAL_SCOPES = ("games:play", "games:read", "stats:read", "account:read")
TERMINAL_GRANT_TYPES = ("urn:ietf:params:oauth:grant-type:device_code", "refresh_token")


def create_terminal_app(apps: Any, schema_editor: Any) -> None:
    Client = apps.get_model("allauth_idp_oidc", "Client")
    # The secret column takes its default: an unguessable hash that no one knows the secret
    # of (a public app authenticates with nothing), as accounts.oauth.services stores it.
    Client.objects.get_or_create(
        id=TERMINAL_CLIENT_ID,
        defaults={
            "name": TERMINAL_CLIENT_NAME,
            "owner": None,
            "type": "public",
            "scopes": "\n".join(TERMINAL_SCOPES),
            "default_scopes": "",
            "grant_types": "\n".join(TERMINAL_GRANT_TYPES),
            "response_types": "",
            "redirect_uris": "",
            "cors_origins": "",
            "skip_consent": False,
        },
    )


def delete_terminal_app(apps: Any, schema_editor: Any) -> None:
    """Its tokens go with it (the foreign keys cascade)."""
    Client = apps.get_model("allauth_idp_oidc", "Client")
    Client.objects.filter(id=TERMINAL_CLIENT_ID, owner__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_profile"),
        ("allauth_idp_oidc", "0003_client_allow_uri_wildcards"),
    ]

    operations = [migrations.RunPython(create_terminal_app, delete_terminal_app)]
