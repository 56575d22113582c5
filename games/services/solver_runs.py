"""The per-player limit on solver runs (THROTTLE_SOLVER): what every request that starts solver
work counts against."""

from __future__ import annotations

import math
import time
from typing import cast

from django.conf import settings
from django.contrib.auth.models import User
from django.utils.translation import gettext

from infrastructure import throttles


class SolverLimitError(Exception):
    """The player has started as many solver runs as ``THROTTLE_SOLVER`` allows for now
    (the API's 429 ``throttled``); ``wait`` is the seconds until they may start another."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        super().__init__(
            gettext(
                "you have asked for as much solver work (winning chances, analyses, deals "
                "certified on the spot) as is allowed for now; retry in %(wait)d seconds"
            )
            % {"wait": math.ceil(wait)}
        )


def solver_run_take(*, owner: User) -> None:
    """Count one solver run started by the player's request, or SolverLimitError.

    Each run (chances computed or queued, an analysis computed in the request, deals certified
    on the spot) costs up to seconds of CPU or of a worker's time, and a player can make new
    work at will (a move and an undo make a new version; a resigned game wants an analysis),
    so the request throttles alone would let one account keep cores busy. Only work that
    starts is counted: what is stored or already queued is served whatever the count."""
    wait = solver_run_count(owner_id=owner.pk)
    if wait is not None:
        raise SolverLimitError(wait)


def solver_run_count(*, owner_id: int) -> float | None:
    """Count one solver run of the player: None if within the limit, else the seconds left."""
    rates = cast(dict[str, str], settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    return throttles.take(f"solver:{owner_id}", rates["solver"], now=time.time())
