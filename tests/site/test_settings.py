"""Settings come from the environment and fail fast on anything unsafe or unparsable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STRONG_KEY = "k" * 20 + "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
DAILY_SECRET = "daily-" + "0123456789abcdefghijklmnopqrstuvwxyz"


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        name: value
        for name, value in os.environ.items()
        # The test process's own settings variables must not leak into the one under test.
        if name
        not in {
            "DEBUG",
            "SECRET_KEY",
            "DAILY_DEAL_SECRET",
            "DJANGO_SETTINGS_MODULE",
            "ALLOWED_HOSTS",
            "EMAIL_URL",
        }
        and not name.startswith(("SECURE_", "SESSION_", "CSRF_"))
        # A secret given as a file (DATABASE_URL_FILE) replaces the variable CI may have set.
        and f"{name}_FILE" not in env
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
        DAILY_DEAL_SECRET=DAILY_SECRET,
        ALLOWED_HOSTS="scorpion.example",
        EMAIL_URL="smtp+tls://mailer:secret@smtp.example.com:587",
    )
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_refuses_to_start_without_a_secret_key_when_debug_is_off() -> None:
    result = manage("check", DEBUG="false", DAILY_DEAL_SECRET=DAILY_SECRET)
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_refuses_the_default_development_key_when_debug_is_off() -> None:
    from scorpion_site.settings import DEFAULT_SECRET_KEY

    result = manage(
        "check", DEBUG="false", SECRET_KEY=DEFAULT_SECRET_KEY, DAILY_DEAL_SECRET=DAILY_SECRET
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_refuses_to_start_without_a_daily_deal_secret_when_debug_is_off() -> None:
    # Before: the daily deal was a public hash of the date; now it needs a key, and a
    # deployment must set its own.
    result = manage("check", DEBUG="false", SECRET_KEY=STRONG_KEY)
    assert result.returncode != 0
    assert "DAILY_DEAL_SECRET" in result.stderr


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("too-short-a-key", "at least 32"),
        (STRONG_KEY, "differ from SECRET_KEY"),
        (" " + DAILY_SECRET, "whitespace"),
        (DAILY_SECRET + "\t", "whitespace"),
        ("", "at least 32"),
        ("schlüssel-" + "x" * 40, "ASCII"),
    ],
)
def test_refuses_a_weak_or_shared_daily_deal_secret(value: str, why: str) -> None:
    result = manage("check", DEBUG="false", SECRET_KEY=STRONG_KEY, DAILY_DEAL_SECRET=value)
    assert result.returncode != 0
    assert "DAILY_DEAL_SECRET" in result.stderr
    assert why in result.stderr


def test_refuses_the_development_daily_deal_secret_when_debug_is_off() -> None:
    from scorpion_site.settings import DEFAULT_DAILY_DEAL_SECRET

    result = manage(
        "check", DEBUG="false", SECRET_KEY=STRONG_KEY, DAILY_DEAL_SECRET=DEFAULT_DAILY_DEAL_SECRET
    )
    assert result.returncode != 0
    assert "development default" in result.stderr


def test_the_daily_deal_secret_is_never_the_secret_key_even_under_debug() -> None:
    result = manage("check", DEBUG="true", SECRET_KEY=STRONG_KEY, DAILY_DEAL_SECRET=STRONG_KEY)
    assert result.returncode != 0
    assert "differ from SECRET_KEY" in result.stderr


def test_debug_has_a_fixed_development_daily_deal_secret() -> None:
    result = manage(
        "shell",
        "-c",
        "from django.conf import settings; print(settings.DAILY_DEAL_SECRET)",
        DEBUG="true",
    )
    assert result.returncode == 0, result.stderr
    from scorpion_site.settings import DEFAULT_DAILY_DEAL_SECRET

    assert result.stdout.strip().splitlines()[-1] == DEFAULT_DAILY_DEAL_SECRET


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
        ("EMAIL_URL", "pigeon://loft"),
        ("EMAIL_URL", "smtp://host:port"),
        ("EMAIL_TIMEOUT", "forever"),
        ("LOG_LEVEL", "loud"),
        ("GUEST_IDLE_DAYS", "a month"),
        ("GUEST_IDLE_DAYS", "0"),
        ("THROTTLE_GUEST", "many"),
        ("STREAM_CREDENTIALS_SECONDS", "half a minute"),
        ("STREAM_CREDENTIALS_SECONDS", "0"),
        ("CHANCES_REQUEST_MS", "0.3"),
        ("CHANCES_REQUEST_MS", "-1"),
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


def test_docker_compose_requires_its_own_daily_deal_secret() -> None:
    import yaml

    spec = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    environment = spec["x-app"]["environment"]
    assert environment["DAILY_DEAL_SECRET"].startswith("${DAILY_DEAL_SECRET:?")
    assert environment["DAILY_DEAL_SECRET"] != environment["SECRET_KEY"]


def test_refuses_to_start_without_a_mail_server_when_debug_is_off() -> None:
    """The console backend would silently lose every verification and reset message."""
    result = manage(
        "check",
        DEBUG="false",
        SECRET_KEY=STRONG_KEY,
        DAILY_DEAL_SECRET=DAILY_SECRET,
        ALLOWED_HOSTS="x.example",
    )
    assert result.returncode != 0
    assert "EMAIL_URL" in result.stderr


def test_email_url_configures_the_smtp_backend() -> None:
    result = manage(
        "shell",
        "--verbosity=0",
        "-c",
        "from django.conf import settings as s; "
        "print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_HOST_USER, "
        "s.EMAIL_HOST_PASSWORD, s.EMAIL_USE_TLS, s.EMAIL_USE_SSL)",
        DEBUG="true",
        EMAIL_URL="smtp+tls://mailer:p%40ss@smtp.example.com:587",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "django.core.mail.backends.smtp.EmailBackend",
        "smtp.example.com",
        "587",
        "mailer",
        "p@ss",
        "True",
        "False",
    ]


def test_development_prints_mail_to_the_console() -> None:
    result = manage(
        "shell",
        "--verbosity=0",
        "-c",
        "from django.conf import settings; print(settings.EMAIL_BACKEND)",
        DEBUG="1",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "django.core.mail.backends.console.EmailBackend"


def test_each_log_record_is_printed_once_under_debug() -> None:
    result = manage(
        "shell",
        "--verbosity=0",
        "-c",
        "import logging; logging.getLogger('django.request').error('marker-%s', 'once')",
        DEBUG="true",
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("marker-once") == 1, result.stderr


def test_every_variable_the_settings_read_is_in_the_settings_table() -> None:
    """docs/settings.md's table is the operator's reference: nothing read goes unlisted."""
    import re

    source = (ROOT / "scorpion_site" / "settings.py").read_text()
    reader = r"""(?:env_\w+|os\.environ\.get|env\.\w+)\(\s*["']([A-Z][A-Z0-9_]+)["']"""
    names = set(re.findall(reader, source))
    assert {"DEBUG", "SECRET_KEY", "EMAIL_URL", "LOG_LEVEL"} <= names
    doc = (ROOT / "docs" / "settings.md").read_text()
    table = doc[doc.index("| variable | default | meaning |") :]
    table = table[: table.index("\n\n")]
    missing = sorted(name for name in names if f"`{name}`" not in table)
    assert not missing, f"settings read but not in docs/settings.md: {missing}"


# --- Named errors, and secrets from files (issue 26) ---

PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": STRONG_KEY,
    "DAILY_DEAL_SECRET": DAILY_SECRET,
    "ALLOWED_HOSTS": "scorpion.example",
    "EMAIL_URL": "consolemail://",
}


def print_setting(expression: str, **env: str) -> subprocess.CompletedProcess[str]:
    return manage(
        "shell",
        "--verbosity=0",
        "-c",
        f"from django.conf import settings as s; print({expression})",
        **env,
    )


@pytest.mark.parametrize(
    "url", ["garbage", "postgres//db.example/scorpion", "mongo://u:hunter2@db.example/x"]
)
def test_a_malformed_database_url_stops_start_up_naming_the_variable(url: str) -> None:
    result = manage("check", DEBUG="true", DATABASE_URL=url)
    assert result.returncode != 0
    assert "ImproperlyConfigured: DATABASE_URL is not a database URL" in result.stderr
    assert "KeyError" not in result.stderr
    assert "hunter2" not in result.stderr  # the password stays out of the logs


def test_a_malformed_replica_url_stops_start_up_naming_the_variable() -> None:
    result = manage(
        "check",
        DEBUG="true",
        DATABASE_URL="postgres://u@db.example/x",
        DATABASE_REPLICA_URL="postgres//u:hunter2@replica.example/x",
    )
    assert result.returncode != 0
    assert "ImproperlyConfigured: DATABASE_REPLICA_URL is not a database URL" in result.stderr
    assert "hunter2" not in result.stderr


def test_a_replica_needs_postgresql_on_both_sides(tmp_path: Path) -> None:
    result = manage(
        "check",
        DEBUG="true",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        DATABASE_REPLICA_URL="postgres://u@replica.example/x",
    )
    assert result.returncode != 0
    assert "DATABASE_REPLICA_URL needs PostgreSQL for both it and DATABASE_URL" in result.stderr


def test_a_replica_is_a_second_database_that_is_never_migrated_or_created_for_tests() -> None:
    replica = "postgres://reader@replica.example:5433/scorpion"
    env = {"DEBUG": "true", "DATABASE_URL": "postgres://u@db.example/scorpion"}
    env["DATABASE_REPLICA_URL"] = replica
    shown = print_setting(
        "(s.DATABASES['replica']['HOST'], s.DATABASES['replica']['PORT'],"
        " s.DATABASES['replica']['TEST']['MIRROR'], s.REPLICA_PIN_SECONDS)",
        **env,
    )
    assert shown.stdout.strip() == "('replica.example', 5433, 'default', 8)", shown.stderr
    assert "replica" not in print_setting("list(s.DATABASES)", DEBUG="true").stdout


def test_the_replica_url_may_come_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "replica_url"
    path.write_text("postgres://reader:s3cret@replica.example/scorpion\n")
    shown = print_setting(
        "s.DATABASES['replica']['PASSWORD']",
        DEBUG="true",
        DATABASE_URL="postgres://u@db.example/scorpion",
        DATABASE_REPLICA_URL_FILE=str(path),
    )
    assert shown.stdout.strip() == "s3cret", shown.stderr


def test_a_pin_shorter_than_the_lag_it_must_cover_stops_start_up() -> None:
    result = manage("check", DEBUG="true", REPLICA_MAX_LAG_SECONDS="5", REPLICA_PIN_SECONDS="6")
    assert result.returncode != 0
    assert "REPLICA_PIN_SECONDS=6 must be at least 7" in result.stderr


def test_behind_pgbouncer_there_are_no_server_side_cursors_or_prepared_statements(
    tmp_path: Path,
) -> None:
    env = {"DEBUG": "true", "DATABASE_URL": "postgres://u@pgbouncer:6432/scorpion"}
    env["DATABASE_POOLER"] = "pgbouncer"
    shown = print_setting(
        "(s.DATABASES['default']['DISABLE_SERVER_SIDE_CURSORS'],"
        " s.DATABASES['default']['OPTIONS']['prepare_threshold'])",
        **env,
    )
    assert shown.stdout.strip() == "(True, None)"
    unknown = manage("check", DEBUG="true", DATABASE_POOLER="pgpool")
    assert "DATABASE_POOLER='pgpool' is not a pooler this service knows" in unknown.stderr
    on_sqlite = manage(
        "check",
        DEBUG="true",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        DATABASE_POOLER="pgbouncer",
    )
    assert "DATABASE_POOLER=pgbouncer needs a PostgreSQL DATABASE_URL" in on_sqlite.stderr


def test_an_empty_allowed_hosts_with_debug_off_stops_start_up() -> None:
    for hosts in ("", " , "):
        result = manage("check", **{**PRODUCTION, "ALLOWED_HOSTS": hosts})
        assert result.returncode != 0
        assert "ImproperlyConfigured: ALLOWED_HOSTS must name the site's host" in result.stderr
    assert manage("check", **PRODUCTION).returncode == 0
    assert manage("check", DEBUG="true", ALLOWED_HOSTS="").returncode == 0


def test_each_secret_may_come_from_a_file_without_its_trailing_newline(tmp_path: Path) -> None:
    files = {
        "SECRET_KEY": STRONG_KEY + "\n",
        "DAILY_DEAL_SECRET": DAILY_SECRET + "\r\n",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'from-file.sqlite3'}\n",
        "REDIS_URL": "redis://:p%40ss@cache.example:6379/3\n",
        "EMAIL_URL": "smtp+tls://mailer:secret@smtp.example.com:587\n",
    }
    env = {name: value for name, value in PRODUCTION.items() if name not in files}
    for name, content in files.items():
        path = tmp_path / name.lower()
        path.write_text(content, newline="")
        env[f"{name}_FILE"] = str(path)
    result = print_setting(
        "repr(s.SECRET_KEY), repr(s.DAILY_DEAL_SECRET), s.DATABASES['default']['NAME'], "
        "s.REDIS_URL, s.EMAIL_HOST_PASSWORD",
        **env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        repr(STRONG_KEY),
        repr(DAILY_SECRET),
        str(tmp_path / "from-file.sqlite3"),
        "redis://:p%40ss@cache.example:6379/3",
        "secret",
    ]


def test_the_oidc_key_may_come_from_a_file(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    path = tmp_path / "oidc.pem"
    path.write_text(pem)
    result = print_setting(
        "s.IDP_OIDC_PRIVATE_KEY.splitlines()[1]",
        **PRODUCTION,
        OIDC_PRIVATE_KEY_FILE=str(path),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == pem.splitlines()[1]


def test_a_secret_and_its_file_both_set_stop_start_up(tmp_path: Path) -> None:
    path = tmp_path / "secret_key"
    path.write_text(STRONG_KEY)
    result = manage("check", **PRODUCTION, SECRET_KEY_FILE=str(path))
    assert result.returncode != 0
    assert "SECRET_KEY and SECRET_KEY_FILE are both set" in result.stderr


def test_a_secret_file_that_cannot_be_read_stops_start_up(tmp_path: Path) -> None:
    env = {name: value for name, value in PRODUCTION.items() if name != "DAILY_DEAL_SECRET"}
    missing = tmp_path / "nowhere"
    result = manage("check", **env, DAILY_DEAL_SECRET_FILE=str(missing))
    assert result.returncode != 0
    assert f"DAILY_DEAL_SECRET_FILE={str(missing)!r} cannot be read" in result.stderr
