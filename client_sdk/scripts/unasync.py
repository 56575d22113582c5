"""Write the synchronous client (``_sync.py``) from the asynchronous one (``_async.py``), as
httpcore does: the async code is the source, and plain text substitutions make the sync
code (``await`` dropped, ``async for`` -> ``for``, ``AsyncScorpion`` -> ``Scorpion``,
``asyncio.Lock`` -> ``threading.Lock``, ...). Lines marked ``# unasync: remove`` exist only in
the async client.

    python client_sdk/scripts/unasync.py           # rewrite _sync.py
    python client_sdk/scripts/unasync.py --check   # exit 1 if _sync.py is not up to date
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "scorpion_client"
SOURCE = PACKAGE / "_async.py"
TARGET = PACKAGE / "_sync.py"

HEADER = (
    "# Generated from _async.py by client_sdk/scripts/unasync.py: do not edit, edit _async.py\n"
    "# and run `make unasync` (`make test` checks that the two agree).\n"
)

# (pattern, replacement), applied in order, each to the whole text.
SUBS: list[tuple[str, str]] = [
    (
        r"The asynchronous client, on ``httpx.AsyncClient``\.",
        "The synchronous client, on ``httpx.Client``.",
    ),
    (
        r"This file is the source of ``_sync.py``.*?two differ\.\n",
        "This file is generated from ``_async.py`` by ``scripts/unasync.py``.\n",
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


def main(argv: list[str]) -> int:
    expected = unasync(SOURCE.read_text(encoding="utf-8"))
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != expected:
            print(f"{TARGET} is out of date: run make unasync", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(expected, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
