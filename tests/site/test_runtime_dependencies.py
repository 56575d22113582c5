"""`make run` and the image install only the project's runtime dependencies (pyproject's
`dependencies`), never the development tools: every third-party module the service imports
when it starts must come from them. (django-allauth's OIDC provider imports `requests`
without asking for it; with only the dev install, where something else brings it, nothing
showed it until a fresh `make run` failed at start-up.)"""

from __future__ import annotations

import importlib.metadata as metadata
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
# The project's own packages, as pyproject.toml lists them for the wheel (one list to keep).
OUR_PACKAGES = {
    pattern.rstrip("*")
    for pattern in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"
    ]["find"]["include"]
}
# Imported when present, done without otherwise (each behind try/except ImportError), so not
# needed at run time: the development install happens to bring them.
OPTIONAL = {
    "_distutils_hack": "setuptools' .pth file, loaded by the interpreter itself",
    "greenlet": "celery.utils.threads and celery.bootsteps, for gevent/eventlet pools",
    "pygments": "rest_framework.compat, to highlight the browsable API's code",
}

# What a process of the service imports when it starts: the web app (URLs, hence every view and
# the admin), the stream app, and the Celery app with its tasks.
STARTUP = """
import json, os, sys
import django
django.setup()
import scorpion_site.urls, scorpion_site.asgi, scorpion_site.wsgi, scorpion_site.celery
from django.contrib import admin
admin.autodiscover()
from scorpion_site.celery import app
app.loader.import_default_modules()
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def runtime_distributions() -> set[str]:
    """The distributions pyproject's `dependencies` bring, transitively, extras included."""
    seen: set[str] = set()
    todo = [
        Requirement(line)
        for line in metadata.distribution("scorpion").requires or []
        if "extra ==" not in line
    ]
    while todo:
        requirement = todo.pop()
        name = requirement.name.lower().replace("_", "-")
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # a platform's optional dependency that is not installed here
        key = f"{name}[{','.join(sorted(requirement.extras))}]"
        if key in seen:
            continue
        seen.add(key)
        for line in distribution.requires or []:
            dependency = Requirement(line)
            if dependency.marker is None or any(
                dependency.marker.evaluate({"extra": extra}) for extra in {*requirement.extras, ""}
            ):
                todo.append(Requirement(str(dependency).split(";")[0]))
    return {key.split("[")[0] for key in seen}


def test_every_module_the_service_imports_is_a_runtime_dependency() -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"))
    }
    env.update(DJANGO_SETTINGS_MODULE="scorpion_site.settings", DEBUG="true")
    started = subprocess.run(
        [sys.executable, "-c", STARTUP],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert started.returncode == 0, started.stderr[-2000:]
    imported = set(json.loads(started.stdout.strip().splitlines()[-1]))
    owners = metadata.packages_distributions()
    allowed = runtime_distributions()
    missing = {
        module: owners[module]
        for module in sorted(imported - set(sys.stdlib_module_names) - OUR_PACKAGES - set(OPTIONAL))
        if module in owners
        and not any(dist.lower().replace("_", "-") in allowed for dist in owners[module])
    }
    assert not missing, f"imported at start-up but not a runtime dependency: {missing}"
