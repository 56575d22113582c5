"""The terminal client's own OAuth app, ``scorpion-cli``: created by the migration accounts
0003 on every installation, as ``scorpion login`` needs it."""

from __future__ import annotations

import importlib

import pytest
from allauth.idp.oidc.models import Client
from django.apps import apps
from scorpion_client import cli

migration = importlib.import_module("accounts.migrations.0003_terminal_app")
# The social scopes it may also ask for (the challenge and friends commands).
social_scopes = importlib.import_module("social.migrations.0002_terminal_app_social_scopes")

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _as_migrated() -> None:
    """The database as the migrations leave it: a transactional test that ran before on the
    same pytest-xdist worker flushed every table, the migration's row included. The migration's
    own function makes it again (a no-op when it is there: it leaves an existing app alone),
    and the social migration's adds its scopes (a no-op when they are there)."""
    migration.create_terminal_app(apps, None)
    social_scopes.add_scopes(apps, None)


def test_the_migration_made_the_terminal_app_for_the_device_flow() -> None:
    app = Client.objects.get(id="scorpion-cli")
    assert app.id == cli.DEFAULT_CLIENT_ID
    assert app.name == "Scorpion terminal client"
    assert app.type == Client.Type.PUBLIC
    assert app.owner is None
    assert set(app.get_grant_types()) == {
        Client.GrantType.DEVICE_CODE,
        Client.GrantType.REFRESH_TOKEN,
    }
    # Exactly what `scorpion login` asks for: no OpenID, no e-mail.
    assert set(app.get_scopes()) == set(cli.SCOPES)
    assert app.get_redirect_uris() == []
    assert app.get_response_types() == []
    assert app.skip_consent is False  # the player allows it on the device page
    assert not app.check_secret("")  # a public app: no secret anyone knows


def test_the_migration_is_idempotent_and_reversible() -> None:
    app = Client.objects.get(id="scorpion-cli")
    app.name = "Renamed by staff"
    app.save(update_fields=["name"])
    migration.create_terminal_app(apps, None)
    assert Client.objects.filter(id="scorpion-cli").count() == 1
    assert Client.objects.get(id="scorpion-cli").name == "Renamed by staff"  # left alone

    social_scopes.remove_scopes(apps, None)
    assert "social:read" not in Client.objects.get(id="scorpion-cli").get_scopes()
    social_scopes.add_scopes(apps, None)
    social_scopes.add_scopes(apps, None)
    assert set(Client.objects.get(id="scorpion-cli").get_scopes()) == set(cli.SCOPES)
    migration.delete_terminal_app(apps, None)
    assert not Client.objects.filter(id="scorpion-cli").exists()
    migration.create_terminal_app(apps, None)
    assert Client.objects.get(id="scorpion-cli").type == Client.Type.PUBLIC
