# The compiled search of games/engine/_variant_c.c (variant_solver.py's ``_compiled_search``
# calls it).
from collections.abc import Sequence

def search(
    columns: Sequence[Sequence[int]],
    hidden: Sequence[int],
    stock: Sequence[int],
    reserve: Sequence[int],
    collected: int,
    decks: int,
    alternate: bool,
    empty_any: bool,
    node_budget: int,
    time_budget: float,
    probe_nodes: int,
    probe_noise: int,
    turn: int,
    use_dead: bool,
    either_copy: bool,
    /,
) -> tuple[int, list[tuple[int, int, int]], int]: ...
def dead(
    columns: Sequence[Sequence[int]],
    hidden: Sequence[int],
    stock: Sequence[int],
    reserve: Sequence[int],
    collected: int,
    decks: int,
    alternate: bool,
    /,
) -> bool: ...
