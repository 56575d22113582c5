"""The compiled search (games/engine/_solver_c.c) is the Python search of games/engine/solver.py,
position for position: the same verdict, the same winning line and the same number of positions
visited, on whole deals, mid-game positions, budgets that run out, and the searches of a
``SharedSearch`` that share what they prove lost."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import solver
from games.engine.deals import deal_code_for_seed
from games.engine.legal import legal_actions, status
from games.engine.position import Position, deal_position
from games.engine.solver import SharedSearch, Solution, compiled, solve
from games.engine.transitions import apply
from tests.data import DEALS
from tests.engine.random_play import Game, games
from tests.engine.test_solver import HARD_SEED, play_line
from tests.engine.threads import rounds_beside
from tests.long import sized

pytestmark = pytest.mark.skipif(
    not compiled() and os.environ.get("CI", "").lower() not in {"1", "true", "yes"},
    reason="built without a C compiler: the Python search alone (solver.py)",
)


@contextlib.contextmanager
def python_search() -> object:
    """The Python search, as where the extension could not be built."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solver, "_solver_c", None)
        yield


def solved_in_python(
    target: str | Position, node_budget: int = solver.DEFAULT_NODE_BUDGET
) -> Solution:
    with python_search():
        return solve(target, node_budget=node_budget)


def same(compiled_solution: Solution, python_solution: Solution) -> bool:
    return (compiled_solution.verdict, compiled_solution.line, compiled_solution.nodes) == (
        python_solution.verdict,
        python_solution.line,
        python_solution.nodes,
    )


def test_the_compiled_search_is_built_in_ci() -> None:
    # make test builds it (setup.py); a fresh machine without a compiler falls back to Python,
    # but CI's machine has one, so a build that silently failed is caught here.
    assert compiled()


# Seeds 0-59 in every run, 0-399 with SCORPION_LONG_DIFFERENTIAL=1 (tests/long.py): 7 and 52
# won, about a tenth either way.
WHOLE_DEAL_SEEDS = sized(60, 400)


def test_whole_deals_get_the_same_verdict_line_and_positions() -> None:
    verdicts = {"won": 0, "lost": 0}
    for seed in range(WHOLE_DEAL_SEEDS):
        code = deal_code_for_seed(seed)
        fast = solve(code)
        assert same(fast, solved_in_python(code)), seed
        verdicts[fast.verdict] += 1
        if fast.won:
            assert status(play_line(deal_position(code), fast.line)) == "won"

    assert verdicts["won"] >= WHOLE_DEAL_SEEDS // 10  # 40 of 400
    assert verdicts["lost"] >= WHOLE_DEAL_SEEDS * 3 // 4  # 300 of 400


@pytest.mark.parametrize("deal", DEALS["won"][:6], ids=lambda deal: deal["code"][:12])
def test_known_won_deals_get_the_same_line(deal: dict[str, str]) -> None:
    assert same(solve(deal["code"]), solved_in_python(deal["code"]))


@pytest.mark.parametrize("budget", [1, 2, 255, 256, 257, 3_000])
def test_a_budget_runs_out_at_the_same_position(budget: int) -> None:
    code = deal_code_for_seed(HARD_SEED)
    fast = solve(code, node_budget=budget)

    assert fast.verdict == "unknown"
    assert fast.line == []
    assert same(fast, solved_in_python(code, budget))


@settings(max_examples=sized(40, 150), deadline=None)
@given(games(), st.data(), st.sampled_from([30, 500, 20_000]))
def test_mid_game_positions_get_the_same_verdict_line_and_positions(
    game: Game, data: st.DataObject, budget: int
) -> None:
    position = game.positions[data.draw(st.integers(0, len(game.positions) - 1))]
    fast = solve(position, node_budget=budget)

    assert same(fast, solved_in_python(position, budget))
    if fast.won:
        assert status(play_line(position, fast.line)) == "won"


def _shared_solutions(position: Position, budget: int) -> list[Solution]:
    shared = SharedSearch(position)
    solutions = [shared.solve(node_budget=budget)]
    solutions += [shared.solve(action, node_budget=budget) for action in legal_actions(position)]
    # Again, with what every search proved lost in the table: the unfinished paths were
    # dropped from it, so the verdicts stand.
    solutions += [shared.solve(action, node_budget=budget) for action in legal_actions(position)]
    return solutions


@settings(max_examples=sized(20, 60), deadline=None)
@given(games(), st.data(), st.sampled_from([20, 300, 3_000]))
def test_shared_searches_get_the_same_verdicts_lines_and_positions(
    game: Game, data: st.DataObject, budget: int
) -> None:
    position = game.positions[data.draw(st.integers(0, len(game.positions) - 1))]
    fast = _shared_solutions(position, budget)
    with python_search():
        slow = _shared_solutions(position, budget)

    assert [(s.verdict, s.line, s.nodes) for s in fast] == [
        (s.verdict, s.line, s.nodes) for s in slow
    ]


def test_shared_searches_of_a_deal_start_agree_with_python() -> None:
    for seed in (HARD_SEED, 374, 5, 6):
        position = deal_position(deal_code_for_seed(seed))
        fast = _shared_solutions(position, 2_000)
        with python_search():
            slow = _shared_solutions(position, 2_000)
        assert [(s.verdict, s.line, s.nodes) for s in fast] == [
            (s.verdict, s.line, s.nodes) for s in slow
        ], seed


def test_a_time_budget_stops_the_compiled_search() -> None:
    # The clock is read every 256 positions, as in Python: a search that needs more is stopped.
    solution = solve(deal_code_for_seed(HARD_SEED), time_budget=0.0)

    assert solution.verdict == "unknown"
    assert 256 <= solution.nodes < 1_000


def test_a_shared_search_keeps_no_unfinished_position_after_a_time_budget() -> None:
    code = DEALS["won"][0]["code"]
    position = deal_position(code)
    shared = SharedSearch(position)
    first = shared.solve().actions()[0]

    assert shared.solve(first, time_budget=0.0).verdict in {"won", "unknown"}
    assert shared.solve(first).won


def test_the_compiled_search_refuses_a_position_that_could_overrun_it() -> None:
    # solver._read_position checks positions first; the extension checks again what could
    # make it read or write past a buffer.
    from games.engine import _solver_c

    position = deal_position(deal_code_for_seed(1))
    columns = [list(column) for column in position.columns]
    hidden, stock = list(position.hidden), list(position.stock)
    columns[0][0] = 52
    with pytest.raises(ValueError, match="card"):
        _solver_c.search(columns, hidden, stock, 0, 10, -1.0, None, -1, -1)
    columns[0][0] = position.columns[1][0]  # a card twice
    with pytest.raises(ValueError, match="each card once"):
        _solver_c.search(columns, hidden, stock, 0, 10, -1.0, None, -1, -1)
    columns[0][0] = position.columns[0][0]
    with pytest.raises(ValueError, match="face up"):
        _solver_c.search(columns, [7, 3, 3, 3, 0, 0, 0], stock, 0, 10, -1.0, None, -1, -1)
    with pytest.raises(ValueError, match="7 columns"):
        _solver_c.search(columns[:6], hidden, stock, 0, 10, -1.0, None, -1, -1)
    with pytest.raises(TypeError, match="table"):
        _solver_c.search(columns, hidden, stock, 0, 10, -1.0, object(), -1, -1)  # type: ignore[arg-type]
    dealt_card = stock[0]
    with pytest.raises(ValueError, match="first"):
        _solver_c.search(columns, hidden, stock, 0, 10, -1.0, None, dealt_card, 0)
    with pytest.raises(ValueError, match="first"):
        _solver_c.search(columns, hidden, stock, 0, 10, -1.0, None, columns[4][-1], 9)
    with pytest.raises(ValueError, match="first"):
        _solver_c.search(columns, hidden, stock, 0, 10, -1.0, None, columns[0][0], 1)  # face down
    with pytest.raises(ValueError, match="first"):
        _solver_c.search(
            [*columns[:6], [*columns[6], *stock]], hidden, [], 0, 10, -1.0, None, -2, -1
        )
    # And the position itself is still searched as before.
    assert _solver_c.search(columns, hidden, stock, 0, 10, -1.0, None, -1, -1)[2] >= 1


def test_the_position_after_an_action_is_searched_from_the_root() -> None:
    # SharedSearch makes the action inside the search; the verdict is the one of the position
    # after it, solved alone.
    position = deal_position(deal_code_for_seed(374))
    for action in legal_actions(position):
        alone = solve(apply(position, action)[0], node_budget=5_000)
        inside = SharedSearch(position).solve(action, node_budget=5_000)
        if alone.verdict != "unknown":
            assert (inside.verdict, inside.line) == (alone.verdict, alone.line)


# --- Choosing the search (SCORPION_SOLVER) ------------------------------------------------------


def test_scorpion_solver_python_chooses_the_python_search() -> None:
    assert solver._load_compiled("python") is None


def test_scorpion_solver_compiled_or_empty_chooses_the_compiled_search() -> None:
    from games.engine import _solver_c

    assert solver._load_compiled("compiled") is _solver_c
    assert solver._load_compiled("") is _solver_c


def test_scorpion_solver_compiled_fails_where_it_was_not_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # None in sys.modules makes the import fail, as where the extension was never built.
    monkeypatch.setitem(sys.modules, "games.engine._solver_c", None)

    assert solver._load_compiled("") is None
    with pytest.raises(solver.ImproperlyConfiguredSolver, match="was not built"):
        solver._load_compiled("compiled")


def test_scorpion_solver_refuses_an_unknown_choice() -> None:
    with pytest.raises(solver.ImproperlyConfiguredSolver, match="not 'fast'"):
        solver._load_compiled("fast")


def test_scorpion_solver_is_read_at_start() -> None:
    def chosen(value: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", "from games.engine import solver; print(solver.compiled())"],
            capture_output=True,
            text=True,
            env={**os.environ, "SCORPION_SOLVER": value},
            check=False,
        )

    assert chosen("python").stdout.strip() == "False"
    assert chosen("compiled").stdout.strip() == "True"
    refused = chosen("quick")
    assert refused.returncode != 0
    assert "SCORPION_SOLVER" in refused.stderr


@pytest.mark.parametrize(
    "variant", ["scorpion", "wasp", "scorpion-tail", "three-blind-mice", "double-scorpion"]
)
def test_a_request_analyses_a_game_with_the_workers_budgets(variant: str) -> None:
    # Compiled, the full budgets take about 2 s at most (the variants' about 1 s): a request's
    # analysis is the worker's, and the variants get ten times the Python search's positions.
    from games import analysis

    assert analysis.inline_analysis_budgets(variant) == analysis.analysis_budgets(variant)
    if variant != "scorpion":
        assert analysis.analysis_budgets(variant) == (250_000, 1_000_000)


def test_the_compiled_search_lets_other_threads_run() -> None:
    # It releases the GIL: a web or worker process's other threads go on while it searches.
    # Counted in work, not seconds: this thread's loop went round once or more per position
    # searched beside it (1 to 3.5 times, quiet or loaded), and about once per hundred
    # positions beside a build that holds the GIL (measured as 8,000 rounds a second beside it
    # against 760,000 beside this one; the other thread only gets the GIL between the holder's
    # rare checks), so the threshold, one round per ten positions, leaves a wide margin.
    solution, rounds = rounds_beside(solve, deal_code_for_seed(7908))

    assert solution.nodes > 1_000_000  # a search long enough to tell
    assert rounds > solution.nodes // 10


def test_a_request_computes_the_workers_chances_when_the_searches_are_compiled() -> None:
    # Under a second at most in every variant (docs/benchmarks.md, "Winning chances, compiled"):
    # without a worker, a request gives the worker's very answer, not one resting on fewer samples.
    from games.services import chances as chances_services
    from games.variants import CHANCES_VARIANTS

    assert chances_services.INLINE_CHANCE_SAMPLES == chances_services.CHANCE_SAMPLES
    worker_budgets = dict.fromkeys(CHANCES_VARIANTS, chances_services.CHANCE_WORK_BUDGET)
    assert worker_budgets == chances_services.INLINE_CHANCE_WORK_BUDGETS


# --- A table shared by threads, and the path's capacity ---


def _root_of_seed(seed: int) -> tuple[object, ...]:
    return solver._read_position(deal_code_for_seed(seed))


def test_a_table_in_use_refuses_a_second_search_at_once() -> None:
    """The search grows and frees its table without the GIL: a second search on the same table
    from another thread would write into freed memory, so it is refused, not run."""
    import threading

    from games.engine import _solver_c

    slowest = 7908  # the slowest deal of seeds 0-9,999 (docs/benchmarks.md): long enough to meet
    columns, hidden, stock, collected = _root_of_seed(slowest)
    table = _solver_c.Table()
    started = threading.Event()
    results: list[object] = []

    def long_search() -> None:
        started.set()
        results.append(
            _solver_c.search(columns, hidden, stock, collected, 10**9, -1.0, table, -1, -1)
        )

    thread = threading.Thread(target=long_search)
    thread.start()
    started.wait()
    refusals: list[str] = []
    while thread.is_alive():
        try:
            _solver_c.search(columns, hidden, stock, collected, 1, -1.0, table, -1, -1)
        except RuntimeError as error:
            refusals.append(str(error))
    thread.join()
    assert refusals, "the long search never overlapped the second one"
    assert all("another search is using it" in refusal for refusal in refusals)
    verdict = {1: "won", 0: "lost", -1: "unknown"}[results[0][0]]  # type: ignore[index]
    assert verdict == solve(deal_code_for_seed(slowest)).verdict
    # Once the first search is over, the table serves again.
    _solver_c.search(columns, hidden, stock, collected, 1, -1.0, table, -1, -1)


def test_threads_sharing_a_shared_search_take_turns_and_agree_with_one_thread() -> None:
    import threading

    position = deal_position(deal_code_for_seed(HARD_SEED))
    actions = legal_actions(position)[:4]
    alone = [SharedSearch(position).solve(action) for action in actions]
    shared = SharedSearch(position)
    answers: dict[int, Solution] = {}

    def solve_one(index: int) -> None:
        answers[index] = shared.solve(actions[index])

    threads = [threading.Thread(target=solve_one, args=(i,)) for i in range(len(actions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == len(actions)
    for index, solution in answers.items():
        # The shared keys may let a later search decide sooner, never differently.
        assert solution.verdict == alone[index].verdict


def test_a_search_deeper_than_the_path_capacity_stops_as_unknown(tmp_path: object) -> None:
    """_solver_c.c built with PATH_CAPACITY 4: a won deal needs a longer path, so the search
    stops there as out of budget (its line could not be held) instead of writing past it."""
    import importlib.util
    import sysconfig
    from pathlib import Path

    source = Path(solver.__file__).with_name("_solver_c.c")
    target = Path(str(tmp_path)) / f"_solver_c{sysconfig.get_config_var('EXT_SUFFIX')}"
    build = subprocess.run(
        [
            os.environ.get("CC", "cc"),
            "-shared",
            "-fPIC",
            "-O1",
            "-DPATH_CAPACITY=4",
            f"-I{sysconfig.get_paths()['include']}",
            f"-I{source.parent}",
            str(source),
            "-o",
            str(target),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    spec = importlib.util.spec_from_file_location("_solver_c", target)
    assert spec is not None
    assert spec.loader is not None
    small = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(small)
    won = DEALS["won"][0]["code"]
    assert solve(won).verdict == "won"
    columns, hidden, stock, collected = solver._read_position(won)
    verdict, line, _ = small.search(columns, hidden, stock, collected, 10**7, -1.0, None, -1, -1)
    assert verdict == -1  # out of budget: "unknown"
    assert line == []
