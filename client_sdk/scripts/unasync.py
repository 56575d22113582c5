"""Write the synchronous client from the asynchronous one, as httpcore does: each module
``_async*.py`` (the client, ``_async.py``, and its resources, ``_async_games.py``, ...) is the
source of a ``_sync*.py`` twin, and plain text substitutions make the sync code (``await``
dropped, ``async for`` -> ``for``, ``AsyncScorpion`` -> ``Scorpion``, ``_async_games`` ->
``_sync_games``, ``asyncio.Lock`` -> ``threading.Lock``, ...). Lines marked
``# unasync: remove`` exist only in the async client.

    python client_sdk/scripts/unasync.py           # rewrite every _sync*.py
    python client_sdk/scripts/unasync.py --check   # exit 1 if any is not up to date
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "scorpion_client"
# The client; the pairs are every _async*.py and its _sync*.py (``pairs()``).
SOURCE = PACKAGE / "_async.py"
TARGET = PACKAGE / "_sync.py"

HEADER = (
    "# Generated from its _async twin by client_sdk/scripts/unasync.py: do not edit, edit that\n"
    "# one and run `make unasync` (`make test` checks that the two agree).\n"
)

# (pattern, replacement), applied in order, each to the whole text.
SUBS: list[tuple[str, str]] = [
    (
        r"The asynchronous client, on ``httpx.AsyncClient``\.",
        "The synchronous client, on ``httpx.Client``.",
    ),
    # The modules' names: scorpion_client._async_games -> scorpion_client._sync_games, ...
    (r"\b_async(_\w+)?\b", r"_sync\1"),
    # Each module says it is the source of its twin (after the names' rule above, which
    # would turn the ``_async`` of this replacement into ``_sync``).
    (
        r"This (?:file|module) is the source of ``_sync(\w*)\.py``.*?\.\n",
        r"This file is generated from ``_async\1.py`` by ``scripts/unasync.py``.\n",
    ),
    (r"^import asyncio$", "import threading\nimport time"),
    (r"\basyncio\.sleep\b", "time.sleep"),
    (r"\basyncio\.Lock\b", "threading.Lock"),
    (r"\bAsyncIterator\b", "Iterator"),
    (r"\bhttpx\.AsyncBaseTransport\b", "httpx.BaseTransport"),
    (r"\bhttpx\.AsyncClient\b", "httpx.Client"),
    (r"\bAsync([A-Z]\w*)\b", r"\1"),
    (r"\basync def\b", "def"),
    (r"\basync for\b", "for"),
    (r"\basync with\b", "with"),
    (r"\bawait ", ""),
    (r"\b__aenter__\b", "__enter__"),
    (r"\b__aexit__\b", "__exit__"),
    (r"\baclose\b", "close"),
    (r"\baread\b", "read"),
    (r"\baiter_lines\b", "iter_lines"),
    (r"\bStopAsyncIteration\b", "StopIteration"),
    (r"``async for``", "``for``"),
]

REMOVE = "# unasync: remove"


def unasync(text: str) -> str:
    lines = [line for line in text.splitlines(keepends=True) if REMOVE not in line]
    result = "".join(lines)
    for pattern, replacement in SUBS:
        result = re.sub(pattern, replacement, result, flags=re.MULTILINE | re.DOTALL)
    # The header goes after the module docstring, before the first import.
    marker = "\nfrom __future__ import annotations\n"
    return result.replace(marker, "\n" + HEADER + marker, 1)


def pairs() -> list[tuple[Path, Path]]:
    """Each asynchronous module and the synchronous one written from it."""
    return [
        (source, source.with_name("_sync" + source.name.removeprefix("_async")))
        for source in sorted(PACKAGE.glob("_async*.py"))
    ]


def main(argv: list[str]) -> int:
    expected = {target: unasync(source.read_text(encoding="utf-8")) for source, target in pairs()}
    if "--check" in argv:
        stale = [
            target
            for target, text in expected.items()
            if not target.exists() or target.read_text(encoding="utf-8") != text
        ]
        # A sync module whose async source is gone would still be imported: it must go too.
        orphans = sorted(set(PACKAGE.glob("_sync*.py")) - set(expected))
        for target in stale:
            print(f"{target} is out of date: run make unasync", file=sys.stderr)
        for orphan in orphans:
            print(f"{orphan} has no _async source: remove it", file=sys.stderr)
        return 1 if stale or orphans else 0
    for target, text in expected.items():
        target.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
