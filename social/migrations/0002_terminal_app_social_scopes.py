"""The terminal client (``scorpion-cli``, accounts migration 0003) may also ask for the social
scopes: its ``challenge`` and ``friends`` commands (client_sdk/scorpion_client/cli.py)."""

from __future__ import annotations

from typing import Any

from django.db import migrations

TERMINAL_CLIENT_ID = "scorpion-cli"
SOCIAL_SCOPES = ("social:read", "social:write")


def add_scopes(apps: Any, schema_editor: Any) -> None:
    Client = apps.get_model("allauth_idp_oidc", "Client")
    for client in Client.objects.filter(id=TERMINAL_CLIENT_ID, owner__isnull=True):
        scopes = [line for line in client.scopes.splitlines() if line]
        client.scopes = "\n".join([*scopes, *(s for s in SOCIAL_SCOPES if s not in scopes)])
        client.save(update_fields=["scopes"])


def remove_scopes(apps: Any, schema_editor: Any) -> None:
    Client = apps.get_model("allauth_idp_oidc", "Client")
    for client in Client.objects.filter(id=TERMINAL_CLIENT_ID, owner__isnull=True):
        kept = [line for line in client.scopes.splitlines() if line and line not in SOCIAL_SCOPES]
        client.scopes = "\n".join(kept)
        client.save(update_fields=["scopes"])


class Migration(migrations.Migration):
    dependencies = [
        ("social", "0001_initial"),
        ("accounts", "0003_terminal_app"),
    ]

    operations = [migrations.RunPython(add_scopes, remove_scopes)]
