"""The repository stands on its own: no file reads or names a folder outside it, and no file
names a path of the machine it was written on, so a clone anywhere runs and reads the same."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Made, not installed or written by hand: never part of a clone.
SKIPPED_DIRS = {".git", ".venv", "node_modules", "staticfiles", "artifacts", "build", "dist"}
TEXT_SUFFIXES = {".py", ".md", ".js", ".html", ".css", ".toml", ".yml", ".yaml", ".json", ".txt"}
TEXT_NAMES = {"Makefile", "Dockerfile", "run"}
# Spelled in two parts so that this file does not find itself.
FORBIDDEN = ("../" + "shared", "/" + "work/", str(ROOT) + "/")


def project_text_files() -> list[Path]:
    files = []
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if any(part in SKIPPED_DIRS or part.endswith("_cache") for part in parts):
            continue
        if any(part.startswith(".") and part not in {".ci"} for part in parts):
            continue
        if any(part.endswith(".egg-info") for part in parts):
            continue
        if path.is_file() and (path.suffix in TEXT_SUFFIXES or path.name in TEXT_NAMES):
            files.append(path)
    return files


def test_no_file_refers_outside_the_repository() -> None:
    files = project_text_files()
    assert ROOT / "docs" / "rules.md" in files
    assert ROOT / "tests" / "data" / "deals.json" in files
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if any(word in line for word in FORBIDDEN)
    ]
    assert found == []
