"""What every page of the browser client's templates may use."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.http import HttpRequest
from django.utils import translation

from games.variants import variants_for_browser


@cache
def _variants(language: str) -> dict[str, dict[str, Any]]:
    # The registry is fixed for the process's life: built once per language (its help texts).
    return variants_for_browser()


def variants(request: HttpRequest) -> dict[str, Any]:
    """``browser_variants``: the games of the family, for base.html's embedded JSON."""
    return {"browser_variants": _variants(translation.get_language() or "en")}
