"""Test data kept with the tests.

``deals.json``: deal codes (docs/rules.md format) decided by an exhaustive full-knowledge
search. ``won``: each with a winning line of API commands (``to`` is the 0-based column);
``lost``: proven unwinnable, with ``nodes_to_prove``, how many distinct positions the search
visited to prove it. Read it through ``DEALS``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DEALS_FILE = Path(__file__).with_name("deals.json")
DEALS: dict[str, Any] = json.loads(DEALS_FILE.read_text())
