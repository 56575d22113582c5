"""The solver for the variants of the family other than Scorpion (``solve`` dispatches here).

Scorpion's search (``games.engine.solver._Search``) keys a position by the set of cards moved,
which is only sound because there a card, once moved, can never move again; that fails in Wasp
(any card may go to an empty column and back), Scorpion Tail (a card on ``9S`` may move on to
an exposed ``9C``) and Double Scorpion (from one copy of its successor to the other). So this
search works on engine positions (``games.engine.position``), whose rules (``games.engine.legal``,
``games.engine.transitions``) it shares, with:

- a transposition key that treats columns nothing distinguishes as interchangeable (all of
  them, except the stock's target columns while the stock is full) and the two copies of a face
  as one card (the rules never tell them apart); a move into an empty column is tried into one
  of the interchangeable empty columns only;
- *deadlock detection* (``dead``) in Three Blind Mice (``uses_deadlock_proof``): a position
  where some card that must still be picked can provably never be picked is lost, and is not
  searched further. The proof holds in every one-deck variant where only a King may fill an
  empty column, Scorpion Tail too, but there it costs more than it proves
  (``_DEADLOCK_PROOF_NOT_WORTH_IT``); in Double Scorpion it never fires. The proof is in the
  docstring of ``dead``; it is tested against a plain exhaustive search
  (tests/engine/test_variant_solver.py);
- *probes* in Double Scorpion, Scorpion Tail and Wasp (``_VariantSearch.run``): short searches
  from the root with seeded, shuffled move orders, taking turns with the complete search. A
  win there is a line of hundreds of moves that one depth-first search, once it has taken a
  wrong turn early, almost never finds: it spends its budget under the wrong turn. Many short
  searches, each a little differently ordered, find far more wins within the same number of
  positions; the complete search still runs, with a quarter (Wasp: half) of the positions,
  to prove losses.

The search is also compiled (games/engine/_variant_c.c, built by setup.py where a C compiler is
at hand): the same search position for position -- the same verdict, line and node count for
every position and budget, probes and deadlock proof included, in every variant
(tests/engine/test_variant_solver_c.py checks it differentially) -- 35-60 times faster, without
holding the GIL. ``solve_variant`` uses it where it was built (``compiled()``; SCORPION_SOLVER
chooses as for Scorpion's search, games/engine/solver.py), the search below otherwise and for
the plain search (``prune=False``, the tests' reference).

Verdicts are as sound as ``_Search``'s: "won" comes with a line, "lost" means everything
reachable was searched (up to proven deadlocks) by one search, the complete one or a probe that
ended before its size, "unknown" that a budget ran out first.

Decided shares (``python bench/solver.py --deals 1000 --variant <name> --node-budget 2000``,
seeds 0-999; docs/benchmarks.md, "Solver, the other variants"): Three Blind Mice 24.2% before the
deadlock proofs, 99.5% with them (CPU 176 s -> 5.5 s for the 1,000 deals); Scorpion Tail 30.4%,
searched without them (with them 33.3%: 27 deals proven lost, at 2.5-3.5 times the CPU per
position), 73.8% with the probes (76.7% with the probes and the proof, at six times the CPU); Wasp
93.3% -> 96.5% and Double Scorpion 8.2% -> 27.0% with the probes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Generator, Sequence
from types import ModuleType
from typing import Any

from games.engine.actions import DEAL, Action, Deal, Move
from games.engine.cards import card_code
from games.engine.deals import SplitMix64
from games.engine.legal import face_up_cards, variant_actions
from games.engine.position import Position, initial_position
from games.engine.resolve import copy_of
from games.engine.search_base import (
    _CHECK_CLOCK_EVERY,
    _VERDICTS,
    SOLVER_ENVIRONMENT,
    PositionLike,
    Solution,
    Verdict,
    _load_compiled,
    _OutOfBudget,
)
from games.engine.transitions import apply
from games.engine.variants import FACES, SCORPION_TAIL, Variant, is_red, parse_deal_code

__all__ = ["compiled", "dead", "solve_variant", "uses_deadlock_proof"]

# The same search compiled (games/engine/_variant_c.c), chosen by SCORPION_SOLVER as Scorpion's
# is and loaded with it (games/engine/solver.py): "compiled" fails at start where it was not
# built, "python" keeps the search below, unset or empty takes the compiled one where built.
_variant_c: ModuleType | None = _load_compiled(
    os.environ.get(SOLVER_ENVIRONMENT, "").strip(), "_variant_c"
)


def compiled() -> bool:
    """Whether the other variants' search runs compiled (games/engine/_variant_c.c) here."""
    return _variant_c is not None


_KING = 12
# Probes (``_VariantSearch.run``): their size in positions, the move-order noise (added to the
# scores of ``_VariantSearch._actions``), and the share of the positions they get per variant.
_PROBE_NODES = 300
_PROBE_NOISE = 20
_PROBE_SHARE = {
    "double-scorpion": 0.75,
    "double-scorpion-3-2": 0.75,
    "scorpion-tail": 0.75,
    "wasp": 0.5,
    "wasp-ii": 0.5,
}

# Variants where the deadlock proof holds but costs more than it proves, so the search leaves
# it out. Scorpion Tail (two destinations per card, by colour): at 2,000 positions a deal it
# decided 33.3% of 1,000 deals instead of 30.4% (27 more proven lost) but made each position
# 2.5-3.5 times dearer, and a post-game analysis took 18.8 s of CPU instead of 3.5-4.4 s
# (median, seeds 0-9, bench/analysis.py; docs/benchmarks.md, "Solver, the other variants" and
# "Post-game analysis of the variants"). Without it, the analysis' 25,000 positions prove hardly any
# deal lost: the verdict is "unknown" instead (tests/api/test_variants.py).
_DEADLOCK_PROOF_NOT_WORTH_IT = frozenset({SCORPION_TAIL})


def uses_deadlock_proof(variant: Variant) -> bool:
    """Whether the search prunes ``dead`` positions in ``variant``: where the proof holds (an
    empty column takes Kings only) and finds deadlocks (one deck: in two decks every card has
    two destinations, and it found none in 8,000 positions of random Double Scorpion games,
    seeds 0-99), unless it does not pay there (``_DEADLOCK_PROOF_NOT_WORTH_IT``)."""
    return (
        variant.empty_column == "king"
        and variant.decks == 1
        and variant not in _DEADLOCK_PROOF_NOT_WORTH_IT
    )


def solve_variant(
    source: Sequence[int] | str | PositionLike,
    variant: Variant,
    node_budget: int,
    time_budget: float | None,
    *,
    prune: bool = True,
) -> Solution:
    """``games.engine.solver.solve`` for a variant other than Scorpion. ``prune=False``: the
    plain search (no deadlock detection, no probes), for tests, always in Python.

    Compiled where built (``compiled()``), in every variant, Three Blind Mice's deadlock proof
    included: the same answers (verdict, line, nodes) as the search below."""
    started = time.perf_counter()
    if isinstance(source, str):
        source = parse_deal_code(source, variant)
    if isinstance(source, Position):
        position = source
    elif isinstance(source, Sequence):
        position = initial_position([int(card) for card in source], variant)
    else:
        raise ValueError("a position of another variant is a games.engine.position.Position")
    deadline = None if time_budget is None else started + time_budget
    # The compiled search knows the rules by these numbers (decks, build, empty-column rule),
    # runs leaving as soon as they lie complete: every variant's so far.
    if prune and _variant_c is not None and variant.runs_leave:
        outcome, commands, nodes = _compiled_search(position, variant, node_budget, deadline)
        return Solution(outcome, commands, nodes, time.perf_counter() - started)
    search = _VariantSearch(variant, node_budget, deadline, prune=prune)
    try:
        verdict: Verdict = "won" if search.run(position) else "lost"
    except _OutOfBudget:
        verdict = "unknown"
    line = search.line if verdict == "won" else []
    return Solution(verdict, line, search.nodes, time.perf_counter() - started)


def _compiled_search(
    position: Position, variant: Variant, node_budget: int, deadline: float | None
) -> tuple[Verdict, list[dict[str, Any]], int]:
    """``_VariantSearch(variant, node_budget, deadline).run(position)`` by the compiled search:
    the verdict, the line (API commands, as ``_command`` makes them) and the positions visited.
    The probes' sizes and turns are read here, so that they are the Python search's."""
    assert _variant_c is not None
    share = _PROBE_SHARE.get(variant.name, 0.0)
    turn = max(1, round(_PROBE_NODES * (1 - share) / share)) if share else 0
    left = -1.0 if deadline is None else max(0.0, deadline - time.perf_counter())
    code, steps, nodes = _variant_c.search(
        position.columns,
        position.hidden,
        position.stock,
        position.reserve,
        len(position.collected),
        variant.decks,
        variant.build == "alternate",
        variant.empty_column == "any",
        node_budget,
        left,
        _PROBE_NODES,
        _PROBE_NOISE,
        turn,
        uses_deadlock_proof(variant),
        variant.either_copy,
    )
    line = _line_commands(position, steps)
    return _VERDICTS[code], line, nodes


def _line_commands(position: Position, steps: list[tuple[int, int, int]]) -> list[dict[str, Any]]:
    """The compiled search's line (card, to, source; a deal is card -1) as API commands, each
    made on the position it is played from, as ``_VariantSearch`` makes them (``_command``)."""
    line: list[dict[str, Any]] = []
    for card, to, source in steps:
        action = DEAL if card < 0 else Move(card, to)
        line.append(_command(position, action, source))
        position = apply(position, action)[0]
    return line


class _VariantSearch:
    """A depth-first search over engine positions (see the module's docstring)."""

    def __init__(
        self, variant: Variant, node_budget: int, deadline: float | None, *, prune: bool = True
    ) -> None:
        self.variant = variant
        self.node_budget = node_budget
        self.deadline = deadline
        self.nodes = 0
        self.line: list[dict[str, Any]] = []
        self.prune = prune and uses_deadlock_proof(variant)
        self.probe = prune  # the plain search (prune=False) runs alone

    def _key(self, position: Position) -> tuple[object, ...]:
        if self.variant.decks > 1:
            piles = [
                (tuple(card % 52 for card in column), hidden)
                for column, hidden in zip(position.columns, position.hidden, strict=True)
            ]
            reserve = tuple(sorted(card % 52 for card in position.reserve))
        else:
            piles = list(zip(position.columns, position.hidden, strict=True))
            reserve = tuple(sorted(position.reserve))
        fixed = len(position.stock)
        return (tuple(piles[:fixed]), tuple(sorted(piles[fixed:])), reserve)

    def _actions(self, position: Position, noise: SplitMix64 | None) -> list[Action]:
        """Legal actions, likeliest to win first (in a probe, shuffled a little by ``noise``).

        Smaller scores first: 2 a card carried; 30 less for a move that turns a card face up,
        20 less for one that empties a column; 50 more for a *sideways* move (a card that
        already lies on a card it may go onto, moved to another such card: it builds
        nothing); the deal last.
        """
        face_up = face_up_cards(position)
        columns, hidden = position.columns, position.hidden
        onto = self.variant.onto
        count = len(columns)
        stock_targets = len(position.stock)
        tried_empty: set[tuple[int, int]] = set()
        scored: list[tuple[int, int, Action]] = []
        for order, action in enumerate(variant_actions(position, face_up)):
            if isinstance(action, Deal):
                scored.append((1_000, order, action))
                continue
            card = action.card
            source, index = face_up[card]
            if not columns[action.to]:
                # Interchangeable empty columns: try one of them only.
                kind = (card, action.to if action.to < stock_targets else -1)
                if kind in tried_empty:
                    continue
                tried_empty.add(kind)
            score = 2
            if source < count:
                column = columns[source]
                score = 2 * (len(column) - index)
                if index == 0:
                    score -= 20  # empties the column
                elif index == hidden[source]:
                    score -= 30  # turns a card face up
                elif card in onto[column[index - 1]]:
                    score += 50  # sideways
            if noise is not None:
                score += noise.below(_PROBE_NOISE)
            scored.append((score, order, action))
        scored.sort(key=lambda item: (item[0], item[1]))
        return [action for _, _, action in scored]

    def _count(self) -> None:
        self.nodes += 1
        if self.nodes > self.node_budget:
            raise _OutOfBudget
        if (
            self.deadline is not None
            and not self.nodes % _CHECK_CLOCK_EVERY
            and time.perf_counter() > self.deadline
        ):
            raise _OutOfBudget

    def run(self, root: Position) -> bool:
        """Won (``self.line`` holds the line) or lost; ``_OutOfBudget`` if neither is found.

        One complete search, and, in the variants of ``_PROBE_SHARE``, *probes* taking turns
        with it: each probe is a new depth-first search from the root, of ``_PROBE_NODES``
        positions at most, with its own table of seen positions and its move order shuffled
        by a seeded generator (so a position always gets the same verdict for a budget). A
        probe that wins gives its line; one that ends before its size has searched everything
        (with the same pruning as the complete search) and proves the loss. The complete
        search keeps its place between turns and gets ``1 - share`` of the positions, so a
        loss that it proves alone within a budget ``B`` is still proven within ``B / (1 -
        share)``.
        """
        searches = self._searches(root, None)
        share = _PROBE_SHARE.get(self.variant.name, 0.0) if self.probe else 0.0
        if not share:
            while True:  # until a verdict, or _OutOfBudget
                verdict = _finish(searches, self.node_budget)
                if verdict is not None:
                    return verdict
        turn = max(1, round(_PROBE_NODES * (1 - share) / share))
        attempt = 0
        while True:
            attempt += 1
            verdict = _finish(self._searches(root, SplitMix64(attempt)), _PROBE_NODES)
            if verdict is not None:
                return verdict
            verdict = _finish(searches, turn)
            if verdict is not None:
                return verdict

    def _searches(self, root: Position, noise: SplitMix64 | None) -> Generator[None, None, bool]:
        """A depth-first search from ``root`` that yields at every position it counts and
        returns its verdict (``StopIteration.value``): a probe if ``noise`` is given."""
        runs = self.variant.runs
        if len(root.collected) == runs:
            return True
        seen = {self._key(root)}
        self._count()
        yield
        if self.prune and dead(root):
            return False
        # Iterative: lines in Wasp can be long (cards move more than once).
        stack = [(root, iter(self._actions(root, noise)))]
        path: list[dict[str, Any]] = []
        while stack:
            position, actions = stack[-1]
            for action in actions:
                after, record = apply(position, action)
                key = self._key(after)
                if key in seen:
                    continue
                seen.add(key)
                self._count()
                yield
                if len(after.collected) == runs:
                    path.append(_command(position, action, record.from_col))
                    self.line = path
                    return True
                if self.prune and dead(after):
                    continue  # proven lost: nothing below it is searched
                path.append(_command(position, action, record.from_col))
                stack.append((after, iter(self._actions(after, noise))))
                break
            else:
                stack.pop()
                if stack:
                    path.pop()
        return False


def _finish(search: Generator[None, None, bool], positions: int) -> bool | None:
    """Run ``search`` for ``positions`` positions at most: its verdict, or None if unfinished."""
    try:
        for _ in range(positions):
            next(search)
    except StopIteration as finished:
        return bool(finished.value)
    return None


def _command(position: Position, action: Action, source: int | None) -> dict[str, Any]:
    """The API's command for ``action`` on ``position``: a move names its face, the column it
    leaves and, where both copies lie face up there, which one (``copy``)."""
    if isinstance(action, Deal):
        return {"type": "deal"}
    command = {"type": "move", "card": card_code(action.card), "to": action.to, "from": source}
    copy = copy_of(position, action.card)
    if copy is not None:
        command["copy"] = copy
    return command


# --- Deadlock detection -------------------------------------------------------------------------


def dead(position: Position) -> bool:
    """True if the position is provably lost: a card that must be picked never can be.

    For the variants where only a King (with what lies on it) may go into an empty column:
    Scorpion Tail, Three Blind Mice, Double Scorpion (and Scorpion, whose own solver has the
    bit-set version of this proof, ``_Search._dead``); the search calls it where it pays
    (``uses_deadlock_proof``: Three Blind Mice). It generalises Scorpion's proof to several
    possible destinations (two colours, two decks), a reserve and a stock.

    A card's *place* is the card directly beneath it (none at a column's bottom; "the
    reserve" for a reserve card). A card leaves its place only when it is picked (moved, with
    whatever lies on it; cards carried along keep their place), or when it is collected with a
    run. Nothing else ever changes what a card lies on: a deal only puts cards on top.

    *Glued*: a card lying on a card it may be put onto (8H on 9H; in Scorpion Tail on 9S or
    9C). Every other non-King, a column's bottom card and reserve cards included, must be picked
    before the game is won: a collected run is built by the variant's rule, so each of its cards
    lies on a card it may be put onto, and only picking the card changes what it lies on.

    *Requirements.* A non-King ``c`` can only be picked when it is face up and some card ``s``
    it may be put onto (any suit and copy the rule allows: its *destinations*) is the top of a
    column, and ``c`` does not lie under ``s``. Each unmet condition names cards one of which
    must leave its place first:
    - ``c`` face down: the card directly on it (nothing else uncovers it);
    - ``s`` in the reserve: ``s`` itself (it takes no card there); ``s`` collected: impossible
      (it never comes back); ``s`` in the stock: nothing is asked (it is dealt onto a top);
    - ``s`` covered: the card directly on ``s`` (to uncover ``s``, everything on it must go,
      and the card directly on it goes only by leaving its place);
    - ``s`` above ``c`` in the same column: a card that separates them, i.e. one of the cards
      between them, ``s`` included (nothing can be put between two cards of a column).
    ``c`` needs the first condition, and *one* destination whose conditions are all met.
    A King not at the bottom of its column, or in the reserve, leaves its place when moved into
    an empty column (face up, a column empty), or, in a column, when a run it heads is
    collected (face up). A column empties only when its bottom card leaves its place.

    A glued card also leaves its place when it is collected where it lies. Then the cards under
    it down to its run's *foot* -- the first that is a King or not glued -- are collected with
    it, each still on the card it lay on, unless one of them left its place before: so one of
    them must leave its place first, or the foot is a King at the bottom of its column whose
    run is collected with it.

    Candidates: every card on the table or in the reserve except a column's bottom King, and,
    in a one-deck suit-building variant (Three Blind Mice), except the glued cards (one of them
    can never be picked again: its one destination lies under it; it leaves its place only with
    its run, whose King is a candidate or a bottom King; so it is also left out of the
    separating cards above). D is the largest set of candidates such that every card of D:
    - is a non-King whose face-down requirement is made only of cards of D, or each of whose
      destinations has one unmet requirement made only of cards of D -- and, if it is glued,
      whose foot condition is unmet too: the cards under it down to its foot are all in D, and
      a bottom King foot heads no completable run; or
    - is a King, face down under a card of D, or such that no column can ever empty (every
      column's bottom card is a non-King of D, or a King none of whose runs can be completed)
      and, if it is in a column, none of its runs can be completed. A run headed by King ``k``
      cannot be completed if for some rank every card that could stand at that rank in it is
      collected or an *unglued* non-King of D (which stays on a card it may not go onto, so it
      is in no run; a glued card of D is not counted, since the argument must not rest on the
      very cards a collection would take).
    Then no card of D ever leaves its place: at the first time one does, the cards of its
    unmet requirement (or those its King or foot condition names) were all still in place, so
    it could not. (If it left with a collected run, the cards under it in the run were still in
    place, so the run stood on its foot, which is in D or a bottom King with no completable
    run: a contradiction.) Every card must leave its place at last, since a won game has
    collected them all, so the position is lost as soon as D is not empty; and, in a one-deck
    suit-building variant, if a face-down card has a card glued on it (which never leaves, so
    the card under it never turns up). D is computed as a greatest fixpoint, from all the
    candidates.
    """
    variant = position.variant
    decks = variant.decks
    deck_size = variant.deck_size
    # Whether a glued card can never be picked again (one destination, lying under it).
    fixed_glue = decks == 1 and variant.build == "suit"
    columns, hidden = position.columns, position.hidden
    # loc[card]: (column, height); a reserve card (-1, 0); a stock card (-2, 0).
    loc: dict[int, tuple[int, int]] = {}
    for index, column in enumerate(columns):
        for height, card in enumerate(column):
            loc[card] = (index, height)
    for card in position.reserve:
        loc[card] = (-1, 0)
    for card in position.stock:
        loc[card] = (-2, 0)

    goes_on = variant.goes_on_faces

    def glued(card: int, below: int) -> bool:
        return card % 13 != _KING and below >= 0 and below % FACES in goes_on[card % FACES]

    def destination_needs(card: int, target: int, index: int, height: int) -> list[list[int]]:
        """The needs of picking ``card`` (in column ``index`` at ``height``, or the reserve:
        -1) onto ``target``: lists of cards one of which must leave its place first."""
        where = loc.get(target)
        if where is None:
            return [[]]  # collected: never a destination again
        column_index, at = where
        if column_index == -2:
            return []  # in the stock: dealt onto a column's top
        if column_index == -1:
            return [[target]]  # in the reserve: it must be played first
        other = columns[column_index]
        needs = [[other[at + 1]]] if at + 1 < len(other) else []
        if column_index == index and at > height:
            # ``target`` above ``card``: a card between them, ``target`` included, must go.
            between = list(other[height + 1 : at + 1])
            if fixed_glue:
                # A glued card never leaves its place except with its run, whose King is
                # listed itself (and the run would take ``card``, which is in no run).
                between = [
                    upper
                    for lower, upper in zip(other[height:at], between, strict=True)
                    if not glued(upper, lower)
                ]
            needs.append(between)
        return needs

    # requirements[card]: (the face-down need or None, the needs per destination or None for a
    # King); a need is a list of cards one of which must leave its place first.
    requirements: dict[int, tuple[list[int] | None, list[list[list[int]]] | None]] = {}
    # The non-Kings of D that lie on a card they may not go onto: never in a completed run.
    unglued: set[int] = set()
    # collect[card], for a glued candidate: the cards below it down to its run's foot (one of
    # which must leave its place before it can be collected), and that foot if it is a King at
    # the bottom of its column (-1 otherwise), whose runs must be completable.
    collect: dict[int, tuple[list[int], int]] = {}
    for index, column in enumerate(columns):
        face_down = hidden[index]
        below = -1
        for height, card in enumerate(column):
            if height < face_down:
                on_top = column[height + 1]
                if fixed_glue and glued(on_top, card):
                    return True  # glued onto a face-down card: it stays face down
            face_need = [column[height + 1]] if height < face_down else None
            if card % 13 == _KING:
                if height:
                    requirements[card] = (face_need, None)
            else:
                is_glued = glued(card, below)
                if is_glued:
                    if fixed_glue:
                        below = card
                        continue
                    collect[card] = _foot(column, height, glued)
                else:
                    unglued.add(card)
                requirements[card] = (
                    face_need,
                    [
                        destination_needs(card, face + FACES * copy, index, height)
                        for face in goes_on[card % FACES]
                        for copy in range(decks)
                    ],
                )
            below = card
    for card in position.reserve:
        if card % 13 == _KING:
            requirements[card] = (None, None)
        else:
            unglued.add(card)
            requirements[card] = (
                None,
                [
                    destination_needs(card, face + FACES * copy, -1, 0)
                    for face in goes_on[card % FACES]
                    for copy in range(decks)
                ],
            )
    if not requirements:
        return False
    present = set(loc)
    run_faces = _RUN_FACES[variant.build]
    bottoms = [column[0] if column else -1 for column in columns]
    reserve = set(position.reserve)

    def stuck_need(need: list[int]) -> bool:
        return all(alternative in requirements for alternative in need)

    def cannot_complete(king: int) -> bool:
        """No run headed by ``king`` can be completed: at some rank, every card that could
        stand there is collected or a non-King of D."""
        return any(
            all(
                copy not in present or (copy in unglued and copy in requirements)
                for face in faces
                for copy in range(face, deck_size, FACES)
            )
            for faces in run_faces[king % FACES]
        )

    changed = True
    while changed:
        changed = False
        # The King conditions, as of the start of this pass: cards only ever leave D, so within
        # a pass they may only be too pessimistic, and a pass that removes nothing has them
        # exact.
        column_can_empty: bool | None = None
        for card in list(requirements):
            face_need, options = requirements[card]
            if face_need is not None and stuck_need(face_need):
                continue
            if options is not None:
                if all(any(stuck_need(need) for need in option) for option in options):
                    foot = collect.get(card)
                    if foot is None:
                        continue
                    # A glued card also leaves its place when its run is collected.
                    below_it, king = foot
                    if stuck_need(below_it) and (king < 0 or cannot_complete(king)):
                        continue
            else:
                # A King: stuck if no column can empty and it can head no completed run.
                if column_can_empty is None:
                    column_can_empty = any(
                        bottom < 0
                        or (
                            not cannot_complete(bottom)
                            if bottom % 13 == _KING
                            else bottom not in requirements
                        )
                        for bottom in bottoms
                    )
                if not column_can_empty and (card in reserve or cannot_complete(card)):
                    continue
            del requirements[card]
            changed = True
    # Every card must leave its place at last (be collected), and none of D ever does.
    return bool(requirements)


def _faces_at(king: int, rank: int, build: str) -> tuple[int, ...]:
    if build == "suit":
        return (king - 12 + rank,)
    red = is_red(king) == ((12 - rank) % 2 == 0)
    return tuple(suit * 13 + rank for suit in range(4) if is_red(suit * 13) == red)


_RUN_FACES = {
    build: tuple(
        tuple(_faces_at(face, rank, build) for rank in range(12)) if face % 13 == _KING else ()
        for face in range(FACES)
    )
    for build in ("suit", "alternate")
}


def _foot(
    column: tuple[int, ...], height: int, glued: Callable[[int, int], bool]
) -> tuple[list[int], int]:
    """The cards under the glued card at ``height``, down to the first one that is a King or
    not glued itself (its run's foot, if it is ever collected where it lies); the foot is
    returned apart (and left out of the list) if it is a King at the bottom of the column."""
    below: list[int] = []
    at = height - 1
    while True:
        card = column[at]
        if card % 13 == _KING and at == 0:
            return below, card
        below.append(card)
        if card % 13 == _KING or at == 0 or not glued(card, column[at - 1]):
            return below, -1
        at -= 1
