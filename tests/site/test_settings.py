"""Settings come from the environment and fail fast on anything unsafe or unparsable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STRONG_KEY = "k" * 20 + "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        name: value
        for name, value in os.environ.items()
        # The test process's own settings variables must not leak into the one under test.
        if name not in {"DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "ALLOWED_HOSTS"}
        and not name.startswith(("SECURE_", "SESSION_", "CSRF_"))
    }
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_deploy_check_is_clean_with_debug_off_and_a_real_key() -> None:
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="false",
        SECRET_KEY=STRONG_KEY,
        ALLOWED_HOSTS="scorpion.example",
    )
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_refuses_to_start_without_a_secret_key_when_debug_is_off() -> None:
    result = manage("check", DEBUG="false")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_refuses_the_default_development_key_when_debug_is_off() -> None:
    from scorpion_site.settings import DEFAULT_SECRET_KEY

    result = manage("check", DEBUG="false", SECRET_KEY=DEFAULT_SECRET_KEY)
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("DEBUG", "maybe"),
        ("CONN_MAX_AGE", "soon"),
        ("REDIS_URL", "localhost:6379"),
        ("ACCOUNT_EMAIL_VERIFICATION", "sometimes"),
        ("SECURE_HSTS_SECONDS", "-5"),
        ("THROTTLE_USER", "lots"),
        ("NUM_PROXIES", "one"),
    ],
)
def test_unparsable_values_stop_start_up_naming_the_variable(variable: str, value: str) -> None:
    env = {"DEBUG": "true", variable: value}
    result = manage("check", **env)
    assert result.returncode != 0
    assert variable in result.stderr


def test_debug_runs_on_the_embedded_default_without_any_variable() -> None:
    result = manage("check", DEBUG="true")
    assert result.returncode == 0, result.stderr
