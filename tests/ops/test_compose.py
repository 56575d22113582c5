"""docker-compose.yml and deploy/nginx/ hold together (no processes: these run everywhere).

The processes themselves run in test_process_commands.py; here, what the file promises: only
the proxy is published, the app is told it sits behind exactly one proxy, plain HTTP is served
without a redirect unless TLS=on, every template variable comes from the compose file, and the
health check answers whatever host name it is called by.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from infrastructure.queues import DEFAULT_QUEUE, HINTS_QUEUE, QUEUES
from tests.ops.compose import (
    NGINX_TEMPLATES,
    ROOT,
    compose,
    interpolate,
    operator_shell,
    required_variables,
    service,
    service_env,
    service_healthcheck,
    template_variables,
)
from tests.site.test_settings import manage

LOCAL_POSTGRES = "postgres://scorpion@127.0.0.1:5432/scorpion"

APP_SERVICES = ("migrate", "web", "stream", "worker", "worker-hints", "beat")
WORKERS = {"worker": DEFAULT_QUEUE, "worker-hints": HINTS_QUEUE}


def option(command: list[str], name: str) -> str:
    """The value of ``--name=value`` in a command line (given once, and only in that form)."""
    values = [part.split("=", 1)[1] for part in command if part.startswith(f"--{name}=")]
    assert len(values) == 1, (name, command)
    assert f"--{name}" not in command, (name, command)
    return values[0]


def test_every_image_pulled_from_a_registry_names_its_version() -> None:
    # The images built here are tagged by this file; the others come from a registry, where
    # ":latest" (or no tag) is whatever was published last: an upgrade nobody reviewed.
    pulled = {
        name: spec["image"]
        for name, spec in compose()["services"].items()
        if "build" not in spec and "image" in spec
    }
    assert set(pulled) == {"postgres", "pgbouncer", "redis"}
    for name, image in pulled.items():
        repository, _, tag = image.rpartition(":")
        assert repository, (name, image)  # a tag is given
        assert "/" not in tag, (name, image)  # (a registry's port is not a tag)
        assert tag != "latest", (name, image)


def test_only_the_proxy_is_published() -> None:
    published = {name for name, spec in compose()["services"].items() if spec.get("ports")}
    assert published == {"proxy"}
    ports = [interpolate(port, {}) for port in service("proxy")["ports"]]
    assert ports == ["80:80", "443:443"]  # by default; HTTP_PORT and HTTPS_PORT choose others
    assert service("proxy")["depends_on"]["web"] == {"condition": "service_healthy"}
    assert service("proxy")["depends_on"]["stream"] == {"condition": "service_healthy"}


def test_the_proxy_sends_the_stream_paths_to_the_stream_process_unbuffered() -> None:
    assert service("proxy")["environment"]["SCORPION_STREAM_UPSTREAM"] == "stream:8001"
    assert "8001" in service("stream")["command"]
    locations = (NGINX_TEMPLATES / "scorpion-locations.conf.template").read_text()
    block = locations.split("location ~ ^/api/v1/(?:games/[^/]+|me)/stream/$ {", 1)[1]
    block = block.split("}", 1)[0]
    for directive in ("proxy_pass http://scorpion_stream;", "proxy_buffering off;", "gzip off;"):
        assert directive in block


def test_the_app_sits_behind_exactly_one_proxy_and_trusts_its_scheme() -> None:
    for name in APP_SERVICES:
        env = service_env(name, operator_shell())
        assert env["NUM_PROXIES"] == "1", name
        assert env["BEHIND_TLS_PROXY"] == "true", name


def test_the_proxy_refuses_exactly_the_bodies_the_app_refuses() -> None:
    """nginx's client_max_body_size is the app's DATA_UPLOAD_MAX_MEMORY_SIZE, one value for
    both (a body between two limits reached an app that answered 413 before reading it)."""
    template = (NGINX_TEMPLATES / "nginx.conf.template").read_text()
    assert "client_max_body_size ${CLIENT_MAX_BODY_SIZE};" in template
    for shell in (operator_shell(), operator_shell(DATA_UPLOAD_MAX_MEMORY_SIZE="131072")):
        app = service_env("web", shell)["DATA_UPLOAD_MAX_MEMORY_SIZE"]
        assert service_env("proxy", shell)["CLIENT_MAX_BODY_SIZE"] == app
    assert service_env("web", operator_shell())["DATA_UPLOAD_MAX_MEMORY_SIZE"] == str(
        settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    )


def test_plain_http_is_served_without_a_redirect_unless_tls_is_on() -> None:
    plain = service_env("web", operator_shell())
    assert plain["SECURE_SSL_REDIRECT"] == "false"
    assert plain["SESSION_COOKIE_SECURE"] == plain["CSRF_COOKIE_SECURE"] == "off"
    assert service_env("proxy", operator_shell())["TLS"] == "off"
    secure = service_env("web", operator_shell(TLS="on"))
    assert secure["SECURE_SSL_REDIRECT"] == "false"  # nginx redirects to https itself
    assert secure["SESSION_COOKIE_SECURE"] == secure["CSRF_COOKIE_SECURE"] == "on"
    assert service_env("proxy", operator_shell(TLS="on"))["TLS"] == "on"
    for mode in ("on", "off"):
        assert (NGINX_TEMPLATES / f"scorpion-tls-{mode}.conf.template").exists()


def test_each_queue_has_a_worker_service_of_its_own() -> None:
    """worker takes the default queue only, worker-hints the hints queue only (the chances and
    the analyses, infrastructure/queues.py); both are the app image with the app environment,
    and each health check pings its own node, not any."""
    shell = operator_shell()
    for name, queue in WORKERS.items():
        spec = service(name)
        command = [str(part) for part in spec["command"]]
        assert command[:4] == ["celery", "-A", "scorpion_site", "worker"], command
        assert option(command, "queues") == queue
        node = option(command, "hostname")
        assert node == f"{node.split('@')[0]}@%h"
        check = service_healthcheck(name, shell)
        assert f"--destination {node.replace('%h', '$(hostname)')} " in check, check
        assert spec["build"] == service("web")["build"]
        assert spec["image"] == service("web")["image"]
        assert service_env(name, shell) == service_env("web", shell)
    nodes = {option(service(name)["command"], "hostname") for name in WORKERS}
    assert len(nodes) == len(WORKERS)
    assert set(WORKERS.values()) == set(QUEUES)


def test_make_worker_consumes_every_queue() -> None:
    """A developer runs one worker process: it must take the chances too."""
    makefile = (ROOT / "Makefile").read_text()
    target = makefile.split("\nworker:", 1)[1].split("\n\n", 1)[0]
    command = next(line for line in target.splitlines() if "celery -A scorpion_site worker" in line)
    assert set(option(command.split(), "queues").split(",")) == set(QUEUES)


def test_the_app_environment_is_accepted_by_the_settings() -> None:
    """The compose values parse (on/off booleans included) and pass Django's checks."""
    for tls in ("off", "on"):
        env = service_env("web", operator_shell(TLS=tls, ALLOWED_HOSTS="scorpion.example"))
        # The compose file's names a Docker host; the check opens no connection, but the
        # pooler setting (DATABASE_POOLER=pgbouncer) wants a PostgreSQL URL: a local one, so
        # that the test does not depend on the DATABASE_URL of whoever runs it (none, or CI's).
        env["DATABASE_URL"] = LOCAL_POSTGRES
        env.pop("REDIS_URL")
        result = manage("check", **env)
        assert result.returncode == 0, result.stderr


def test_every_template_variable_comes_from_the_compose_file() -> None:
    proxy = set(service("proxy")["environment"])
    assert template_variables() <= proxy
    # The image's entrypoint also replaces $NAME without braces for each variable it knows:
    # no nginx variable of the templates may share a name with one.
    for template in NGINX_TEMPLATES.glob("*.template"):
        bare = set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", template.read_text()))
        assert not bare & proxy, (template.name, bare & proxy)
    assert service("proxy")["environment"]["NGINX_ENVSUBST_OUTPUT_DIR"] == "/etc/nginx"


def test_the_opening_comment_names_files_that_exist() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    comment = text.split("\nx-app:", 1)[0]
    named = re.findall(r"\b((?:tests|deploy)/[\w/.-]+)", comment)
    assert "tests/ops/test_process_commands.py" in named
    for path in named:
        assert (ROOT / path.rstrip(".")).exists(), path


def test_the_proxy_image_gets_the_templates_and_the_static_files() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:\S+ AS app$", dockerfile, re.MULTILINE)
    assert re.search(r"^FROM nginx:\S+ AS proxy$", dockerfile, re.MULTILINE)
    assert "COPY deploy/nginx/ /etc/nginx/templates/" in dockerfile
    assert "COPY --from=app /app/staticfiles /srv/static" in dockerfile
    assert service("proxy")["environment"]["STATIC_ROOT"] == "/srv/static"
    assert dockerfile.rstrip().endswith("FROM app"), "docker build . must give the app image"
    assert service("web")["build"]["target"] == "app"
    assert service("proxy")["build"]["target"] == "proxy"


# --- the health check and the host check ---


@pytest.fixture
def real_domain(settings: Any, db: None) -> None:
    settings.ALLOWED_HOSTS = ["scorpion.example"]


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "172.18.0.5:8000", "localhost"])
def test_healthz_answers_any_host_name(real_domain: None, host: str) -> None:
    """Orchestrators call it by address: a 400 there restarts a healthy container forever."""
    response = Client().get("/healthz/", HTTP_HOST=host)
    assert response.status_code == 200
    assert response.json()["database"]["ok"] is True


def test_everything_else_keeps_the_host_check(real_domain: None) -> None:
    assert Client().get("/", HTTP_HOST="127.0.0.1:8000").status_code == 400
    assert Client().get("/healthz/x", HTTP_HOST="127.0.0.1:8000").status_code == 400
    assert Client().get("/", HTTP_HOST="scorpion.example").status_code == 200


def documented_settings() -> set[str]:
    table = (ROOT / "docs" / "settings.md").read_text()
    names: set[str] = set()
    for row in table.splitlines():
        if row.startswith("| `"):
            names.update(re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split("|")[1]))
    return names


def test_every_documented_setting_is_reachable_through_the_env_file() -> None:
    """The app services read .env (env_file), and .env.example names every setting of
    docs/settings.md: set there, or said to be fixed by the compose file itself."""
    app = compose()["x-app"]
    assert app["env_file"] == [{"path": ".env", "required": False}]
    example = (ROOT / ".env.example").read_text()
    names = documented_settings()
    assert {"SECRET_KEY", "THROTTLE_ANON", "STREAM_MAX_PER_USER"} <= names
    missing = sorted(name for name in names if not re.search(rf"\b{name}\b", example))
    assert not missing, f"settings not in .env.example: {missing}"
    # What the file fixes itself is said to be fixed, so nobody sets it in .env in vain.
    fixed = example[example.index("Fixed by docker-compose.yml") :]
    hard_coded = {
        name
        for name, value in app["environment"].items()
        if "${" not in str(value) and name in names
    }
    assert hard_coded, "the compose file fixes some settings (NUM_PROXIES, DEBUG, ...)"
    assert all(name in fixed for name in hard_coded), hard_coded


def test_make_env_writes_the_secrets_compose_requires_and_never_overwrites(
    tmp_path: Path,
) -> None:
    target = tmp_path / ".env"
    script = [sys.executable, str(ROOT / "deploy" / "make_env.py"), str(target)]
    subprocess.run(script, check=True, capture_output=True)
    values = dict(
        line.split("=", 1)
        for line in target.read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert required_variables() <= set(values), "docker compose up would stop at once"
    assert len(values["SECRET_KEY"]) >= 50
    assert len(values["DAILY_DEAL_SECRET"]) >= 32
    assert values["SECRET_KEY"] != values["DAILY_DEAL_SECRET"]
    assert target.stat().st_mode & 0o077 == 0  # secrets: the owner's alone
    # The settings accept what it wrote, with the compose environment around it.
    env = {**values, **service_env("web", {**values, "ALLOWED_HOSTS": "scorpion.example"})}
    env["DATABASE_URL"] = LOCAL_POSTGRES  # as above: a PostgreSQL URL, no connection made
    env.pop("REDIS_URL")
    check = manage("check", **env)
    assert check.returncode == 0, check.stderr
    before = target.read_text()
    again = subprocess.run(script, capture_output=True, text=True, check=True)
    assert "left as it is" in again.stderr
    assert target.read_text() == before


def test_the_published_ports_can_be_chosen() -> None:
    ports = compose()["services"]["proxy"]["ports"]
    assert [interpolate(port, {}) for port in ports] == ["80:80", "443:443"]
    chosen = {"HTTP_PORT": "8080", "HTTPS_PORT": "8443"}
    assert [interpolate(port, chosen) for port in ports] == ["8080:80", "8443:443"]


def test_the_deployment_doc_runs_management_commands_in_the_web_container() -> None:
    doc = (ROOT / "docs" / "deployment.md").read_text()
    assert "make env" in doc
    assert "docker compose exec web python manage.py createsuperuser" in doc
