"""Staff accounts are made by e-mail, like every other account."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

pytestmark = pytest.mark.django_db


def test_noinput_needs_only_email_and_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DJANGO_SUPERUSER_EMAIL", "boss@example.com")
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a long secret 42")
    monkeypatch.delenv("DJANGO_SUPERUSER_USERNAME", raising=False)

    call_command("createsuperuser", "--noinput", verbosity=0)

    user = get_user_model().objects.get(email="boss@example.com")
    assert user.is_superuser
    assert user.is_staff
    assert user.username  # generated, never typed
    assert user.check_password("a long secret 42")
    address = EmailAddress.objects.get(user=user)
    assert (address.email, address.verified, address.primary) == ("boss@example.com", True, True)


def test_two_superusers_get_distinct_usernames(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a long secret 42")
    call_command("createsuperuser", "--noinput", "--email", "ops@one.example", verbosity=0)
    call_command("createsuperuser", "--noinput", "--email", "ops@two.example", verbosity=0)
    usernames = set(get_user_model().objects.values_list("username", flat=True))
    assert len(usernames) == 2


def test_noinput_without_an_email_is_refused_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DJANGO_SUPERUSER_EMAIL", raising=False)
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a long secret 42")
    with pytest.raises(CommandError, match="email"):
        call_command("createsuperuser", "--noinput", verbosity=0)
    assert not get_user_model().objects.exists()


def test_an_explicit_username_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a long secret 42")
    call_command(
        "createsuperuser",
        "--noinput",
        "--email",
        "named@example.com",
        "--username",
        "named",
        verbosity=0,
    )
    assert get_user_model().objects.get(email="named@example.com").username == "named"
