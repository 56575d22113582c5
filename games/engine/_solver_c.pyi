# The compiled search of games/engine/_solver_c.c (solver.py's ``_compiled_search`` calls it).
from collections.abc import Sequence

class Table:
    """Keys of positions proven lost, shared by the searches of a ``SharedSearch``."""

    def __init__(self) -> None: ...
    def __len__(self) -> int: ...

def search(
    columns: Sequence[Sequence[int]],
    hidden: Sequence[int],
    stock: Sequence[int],
    collected: int,
    node_budget: int,
    time_budget: float,
    table: Table | None,
    first_card: int,
    first_to: int,
    /,
) -> tuple[int, list[tuple[int, int]], int]: ...
