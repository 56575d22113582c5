"""The project's compiled parts: Scorpion's search (games/engine/_solver_c.c) and the other
variants' search (games/engine/_variant_c.c).

Everything else is in pyproject.toml. The extensions are optional: where no C compiler is at
hand the build goes on without them, and games/engine/solver.py and variant_solver.py search
in Python instead (the same positions, about 50 times slower); `make run` and `make test`
work either way.
"""

import os

from setuptools import Extension, setup

# The Docker image's wheel stage sets it: an image without the compiled searches would be ~40
# times slower at certifying deals, analysing games and estimating chances, so there a failed
# build fails the image instead of going on without it.
REQUIRED = os.environ.get("SCORPION_REQUIRE_COMPILED_SOLVER", "") == "1"
# What both include: the clock and the checked reading of card lists.
COMMON = "games/engine/_search_common.h"

setup(
    ext_modules=[
        Extension(
            "games.engine._solver_c",
            sources=["games/engine/_solver_c.c"],
            depends=[COMMON],
            optional=not REQUIRED,
        ),
        Extension(
            "games.engine._variant_c",
            sources=["games/engine/_variant_c.c"],
            depends=[COMMON],
            optional=not REQUIRED,
        ),
    ]
)
