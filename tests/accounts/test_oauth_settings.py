"""The provider's settings come from the environment and fail fast, as every setting does."""

from __future__ import annotations

import pytest

from tests.site.test_settings import DAILY_SECRET, STRONG_KEY, manage


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("OIDC_PRIVATE_KEY", "not a key"),
        ("OAUTH_ACCESS_TOKEN_SECONDS", "an hour"),
        ("OAUTH_ACCESS_TOKEN_SECONDS", "5"),
        ("OAUTH_REFRESH_TOKEN_SECONDS", "-1"),
        ("THROTTLE_APP", "plenty"),
    ],
)
def test_bad_values_stop_start_up_naming_the_variable(variable: str, value: str) -> None:
    result = manage("check", DEBUG="true", **{variable: value})
    assert result.returncode != 0
    assert variable in result.stderr


def test_the_published_development_key_is_refused_with_debug_off() -> None:
    from django.conf import settings

    result = manage(
        "check",
        DEBUG="false",
        SECRET_KEY=STRONG_KEY,
        DAILY_DEAL_SECRET=DAILY_SECRET,
        EMAIL_URL="consolemail://",
        ALLOWED_HOSTS="scorpion.example",
        OIDC_PRIVATE_KEY=settings.DEV_OIDC_PRIVATE_KEY.replace("\n", "\\n"),
    )
    assert result.returncode != 0
    assert "OIDC_PRIVATE_KEY is the published development key" in result.stderr


def test_a_real_key_in_one_line_is_read() -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    result = manage(
        "shell",
        "-c",
        "from django.conf import settings; print(settings.IDP_OIDC_PRIVATE_KEY.splitlines()[0])",
        DEBUG="false",
        SECRET_KEY=STRONG_KEY,
        DAILY_DEAL_SECRET=DAILY_SECRET,
        EMAIL_URL="consolemail://",
        ALLOWED_HOSTS="scorpion.example",
        OIDC_PRIVATE_KEY=pem.replace("\n", "\\n"),
    )
    assert result.returncode == 0, result.stderr
    assert "-----BEGIN PRIVATE KEY-----" in result.stdout
