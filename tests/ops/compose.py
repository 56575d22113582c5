"""docker-compose.yml and deploy/nginx/, read the way Docker Compose and the nginx image do.

There is no Docker engine on the development machines, so the tests run the compose file's
process commands natively; these helpers take the commands and environments from the file
itself (with compose's variable interpolation), and render the nginx templates as the official
image's entrypoint does, so that the tests cannot drift from what `docker compose up` runs.
"""

from __future__ import annotations

import re
import secrets
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
NGINX_TEMPLATES = ROOT / "deploy" / "nginx"

_INTERPOLATION = re.compile(
    r"\$\$|\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}"
)
_TEMPLATE_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def compose() -> dict[str, Any]:
    spec: dict[str, Any] = yaml.safe_load(COMPOSE_FILE.read_text())
    return spec


def service(name: str) -> dict[str, Any]:
    spec: dict[str, Any] = compose()["services"][name]
    return spec


def interpolate(value: str, shell: Mapping[str, str]) -> str:
    """Compose's interpolation: ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``,
    ``${VAR:?error}`` and ``${VAR?error}``; ``$$`` is a plain ``$`` (for the shell)."""

    def one(match: re.Match[str]) -> str:
        if match[0] == "$$":
            return "$"
        name, op, arg = match["name"], match["op"], match["arg"]
        value = shell.get(name)
        usable = bool(value) if op in (":-", ":?") else value is not None
        if usable or op is None:
            return value or ""
        if op.endswith("-"):
            return str(arg)
        raise ValueError(f"compose: {name} is required: {arg}")

    return _INTERPOLATION.sub(one, value)


def required_variables() -> set[str]:
    """The variables compose refuses to start without (``${NAME:?...}``)."""
    return set(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?\?", COMPOSE_FILE.read_text()))


def operator_shell(**chosen: str) -> dict[str, str]:
    """What an operator exports before ``docker compose up``: the given values, and a random
    one for every other variable the file requires (secrets)."""
    shell = {name: secrets.token_urlsafe(48) for name in required_variables()}
    # Mail is a URL, not a secret: printed to the log, as a trial run would have it.
    shell["EMAIL_URL"] = "consolemail://"
    shell.update(chosen)
    return shell


def service_env(name: str, shell: Mapping[str, str]) -> dict[str, str]:
    environment = service(name).get("environment", {})
    return {key: interpolate(str(value), shell) for key, value in environment.items()}


def service_healthcheck(name: str, shell: Mapping[str, str]) -> str:
    """A service's ``CMD-SHELL`` health check, as compose hands it to the container's shell."""
    test = service(name)["healthcheck"]["test"]
    assert test[0] == "CMD-SHELL", test
    return interpolate(str(test[1]), shell)


def template_variables() -> set[str]:
    return {
        name
        for template in NGINX_TEMPLATES.glob("*.template")
        for name in _TEMPLATE_VARIABLE.findall(template.read_text())
    }


def mime_types() -> Path:
    """The mime.types that came with nginx (the config includes it from its own folder)."""
    candidates = [Path("/etc/nginx/mime.types")]
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if Path(nginx).exists():
        version = subprocess.run([nginx, "-V"], capture_output=True, text=True, check=False)
        found = re.search(r"--conf-path=(\S+)", version.stderr)
        if found:
            candidates.insert(0, Path(found[1]).parent / "mime.types")
    for candidate in candidates:
        if candidate.exists():
            return candidate
    raise FileNotFoundError("mime.types of nginx")


def render_nginx(target: Path, variables: Mapping[str, str]) -> Path:
    """What the nginx image's entrypoint does with NGINX_ENVSUBST_OUTPUT_DIR: every
    ``*.template`` of deploy/nginx/ written without its suffix, ``${NAME}`` replaced."""
    target.mkdir(parents=True, exist_ok=True)
    for template in NGINX_TEMPLATES.glob("*.template"):
        text = template.read_text()
        missing = set(_TEMPLATE_VARIABLE.findall(text)) - set(variables)
        assert not missing, f"{template.name} needs {sorted(missing)}"
        rendered = _TEMPLATE_VARIABLE.sub(lambda match: variables[match[1]], text)
        (target / template.name.removesuffix(".template")).write_text(rendered)
    shutil.copy(mime_types(), target / "mime.types")
    return target / "nginx.conf"
