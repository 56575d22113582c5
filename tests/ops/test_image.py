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
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.ops.compose import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text()
PIP = (sys.executable, "-m", "pip")
PACKAGES = (
    "scorpion_site",
    "infrastructure",
    "games",
    "accounts",
    "stats",
    "players",
    "social",
    "achievements",
    "staff",
    "web",
)


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
    assert "web/templates/home.html" in expected
    assert "staff/templates/staff/dashboard.html" in expected
    assert "web/static/web/js/replay.js" in expected
    assert expected - names == set()
    # The compiled searches (setup.py), built for this machine's Python.
    assert [name for name in names if re.fullmatch(r"games/engine/_solver_c\..+\.so", name)]
    assert [name for name in names if re.fullmatch(r"games/engine/_variant_c\..+\.so", name)]
    # Every package's code.
    for package in PACKAGES:
        assert f"{package}/__init__.py" in names, package
    # Code, not the source tree: no tests, benchmarks or local files.
    assert not [name for name in names if name.startswith(("tests/", "bench/", "wip/"))]


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed into a directory of its own, with the image's manage.py beside."""
    root = tmp_path_factory.mktemp("image")
    subprocess.run(
        [*PIP, "install", "--quiet", "--no-deps", "--target", str(root / "site"), str(wheel)],
        check=True,
        capture_output=True,
    )
    (root / "app").mkdir()
    shutil.copy(ROOT / "manage.py", root / "app" / "manage.py")
    return root


def bare_environment(installed: Path, **settings: str) -> dict[str, str]:
    """Nothing of this test run's environment: the installed wheel, and ``settings``."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(installed / "site"),
        "DJANGO_SETTINGS_MODULE": "scorpion_site.settings",
        **settings,
    }


def test_the_installed_wheel_serves_its_pages_without_the_source_tree(installed: Path) -> None:
    script = """
import django, json, scorpion_site
from games.engine.solver import compiled
from django.contrib.staticfiles import finders
from django.template.loader import get_template
django.setup()
print(json.dumps({
    "package": scorpion_site.__file__,
    "solver": compiled(),
    "templates": [get_template(name).origin.name for name in
                  ("home.html", "web/play.html", "staff/dashboard.html")],
    "static": [finders.find(path) for path in ("web/js/replay.js", "staff/staff.css")],
}))
"""
    found = subprocess.run(
        [sys.executable, "-c", script],
        check=True,
        capture_output=True,
        text=True,
        cwd=installed / "app",  # not the repository: nothing may come from the source tree
        env=bare_environment(installed, DEBUG="true", DATABASE_URL="sqlite:///:memory:"),
    )
    answer = json.loads(found.stdout.strip().splitlines()[-1])
    site = str(installed / "site")
    assert answer["package"].startswith(site)
    assert answer["solver"] is True
    for path in [*answer["templates"], *answer["static"]]:
        assert path is not None
        assert path.startswith(site), path


def instructions(stage: str) -> list[str]:
    """A Dockerfile stage's instructions, each on one line (continuations joined)."""
    joined = re.sub(r"\\\n\s*", " ", stage)
    return [line.strip() for line in joined.splitlines() if line.strip()]


def test_the_images_collectstatic_step_runs_as_written(installed: Path) -> None:
    """The Dockerfile's build-time collectstatic, with exactly the variables its RUN line
    sets (DEBUG off requires some settings: a missing one fails the build)."""
    app = DOCKERFILE.split("AS app", 1)[1].split("\nFROM ", 1)[0]
    (step,) = [
        instruction.removeprefix("RUN ")
        for instruction in instructions(app)
        if instruction.startswith("RUN ") and "collectstatic" in instruction
    ]
    words = shlex.split(step)
    command = words.index("python")
    assignments = dict(word.split("=", 1) for word in words[:command])
    assert assignments["DEBUG"] == "false"
    static_root = installed / "app" / "staticfiles"
    collected = subprocess.run(
        [sys.executable, *words[command + 1 :]],
        capture_output=True,
        text=True,
        cwd=installed / "app",
        env=bare_environment(installed, STATIC_ROOT=str(static_root), **assignments),
        check=False,
    )
    assert collected.returncode == 0, collected.stderr[-2000:]
    manifest = json.loads((static_root / "staticfiles.json").read_text())
    assert "web/js/replay.js" in manifest["paths"]
    assert "staff/staff.css" in manifest["paths"]


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
        "archive/games/6e/6e495f3a-e63f-46b3-948c-75ba73fd41af.jsonl.gz",
        "artifacts/report.txt",
        "wip/perf/0001.patch",
        ".mypy_cache/3.11/x.json",
        ".pytest_cache/v/cache",
        ".ruff_cache/x",
        ".hypothesis/examples/x",
        "staticfiles/web/js/play.js",
        "games/engine/_solver_c.cpython-311-x86_64-linux-gnu.so",
        ".env",
    ],
)
def test_the_build_context_leaves_out_local_and_secret_files(path: str) -> None:
    assert ignored(path)


@pytest.mark.parametrize(
    "path",
    [
        "pyproject.toml",
        "setup.py",  # the compiled solvers
        "games/engine/_solver_c.c",
        "games/engine/_search_common.h",
        "games/engine/_variant_c.c",
        "README.md",  # the wheel's long description
        "manage.py",
        "games/services/commands.py",
        "web/templates/home.html",
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
