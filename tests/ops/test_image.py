"""The Docker image's inputs: the wheel carries the templates and static files, the build
context leaves out what is local or secret, and the dependencies are a cached layer of their
own. No Docker engine here: the wheel is built with pip and installed into a directory, and
the service's templates and static files are found from that directory alone.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.ops.compose import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text()
PIP = (sys.executable, "-m", "pip")
PACKAGES = ("scorpion_site", "games", "accounts", "stats", "web")


def package_data_in_the_tree() -> set[str]:
    """Every template and static file of the packages, as paths inside the wheel."""
    found = set()
    for package in PACKAGES:
        for folder in ("templates", "static"):
            for path in (ROOT / package / folder).rglob("*"):
                if path.is_file() and "__pycache__" not in path.parts:
                    found.add(path.relative_to(ROOT).as_posix())
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # No build isolation: the build backend (setuptools, a dev dependency) comes from this
    # environment, so the test needs no network.
    subprocess.run(
        [*PIP, "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        cwd=out,
    )
    (built,) = out.glob("scorpion-*.whl")
    return built


def test_the_wheel_carries_every_template_and_static_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = package_data_in_the_tree()
    assert "scorpion_site/templates/home.html" in expected
    assert "web/static/web/js/replay.js" in expected
    assert expected - names == set()
    # Code, not the source tree: no tests, benchmarks or local files.
    assert not [name for name in names if name.startswith(("tests/", "bench/", "wip/"))]


def test_the_installed_wheel_serves_its_pages_without_the_source_tree(
    wheel: Path, tmp_path: Path
) -> None:
    target = tmp_path / "site-packages"
    subprocess.run(
        [*PIP, "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    script = """
import django, json, scorpion_site
from django.conf import settings
from django.contrib.staticfiles import finders
from django.template.loader import get_template
django.setup()
print(json.dumps({
    "package": scorpion_site.__file__,
    "templates": [get_template(name).origin.name for name in
                  ("home.html", "web/play.html", "staff/dashboard.html")],
    "static": [finders.find(path) for path in ("web/js/replay.js", "staff/staff.css")],
}))
"""
    environment = {
        **os.environ,
        "PYTHONPATH": str(target),
        "DJANGO_SETTINGS_MODULE": "scorpion_site.settings",
        "DEBUG": "true",
        "DATABASE_URL": "sqlite:///:memory:",
    }
    environment.pop("REDIS_URL", None)
    found = subprocess.run(
        [sys.executable, "-c", script],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,  # not the repository: nothing may come from the source tree
        env=environment,
    )
    answer = json.loads(found.stdout.strip().splitlines()[-1])
    assert answer["package"].startswith(str(target))
    for path in [*answer["templates"], *answer["static"]]:
        assert path is not None
        assert path.startswith(str(target)), path


def dockerignore() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def ignored(path: str) -> bool:
    return any(
        fnmatch.fnmatch(path, pattern) or path.startswith(pattern.rstrip("/") + "/")
        for pattern in dockerignore()
    )


@pytest.mark.parametrize(
    "path",
    [
        ".git/config",
        ".venv/bin/python",
        "deploy/certs/privkey.pem",
        "db.sqlite3",
        "artifacts/report.txt",
        "wip/perf/0001.patch",
        ".mypy_cache/3.11/x.json",
        ".pytest_cache/v/cache",
        ".ruff_cache/x",
        ".hypothesis/examples/x",
        "staticfiles/web/js/play.js",
        ".env",
    ],
)
def test_the_build_context_leaves_out_local_and_secret_files(path: str) -> None:
    assert ignored(path)


@pytest.mark.parametrize(
    "path",
    [
        "pyproject.toml",
        "README.md",  # the wheel's long description
        "manage.py",
        "games/services.py",
        "scorpion_site/templates/home.html",
        "web/static/web/js/play.js",
        "deploy/nginx/nginx.conf.template",
    ],
)
def test_the_build_context_keeps_what_the_image_needs(path: str) -> None:
    assert not ignored(path)


def test_the_dependencies_are_installed_in_a_layer_before_the_code() -> None:
    app = DOCKERFILE.split("AS app", 1)[1].split("\nFROM ", 1)[0]
    steps = [line for line in app.splitlines() if re.match(r"^(COPY|RUN)\b", line)]
    # Only pyproject.toml is copied before the dependencies are installed: a change of code
    # leaves that layer (and its download) cached.
    assert steps[0] == "COPY pyproject.toml ./"
    assert steps[1].startswith("RUN ")
    dependencies = app.split(steps[1], 1)[1].split("\nCOPY", 1)[0]
    assert "pip install --no-cache-dir -r requirements.txt" in dependencies
    # The project is installed from its wheel, without dependencies, after them.
    install = app.index("--no-deps /tmp/wheels/*.whl")
    assert app.index("-r requirements.txt") < install
    assert "COPY . ." not in app  # the source tree stays out of the image
    assert re.search(r"^FROM python:\S+ AS wheel$", DOCKERFILE, re.MULTILINE)
    assert "pip wheel" in DOCKERFILE.split("AS wheel", 1)[1].split("\nFROM ", 1)[0]
