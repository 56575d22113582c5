"""Winning chances per legal action, estimated fairly: from what the player sees, never more.

The solver (``games.engine.solver``) knows every card, so its verdict on the real position would
give away the face-down cards and the stock. Here it is only ever shown *made-up* positions:

1. ``VisibleTable.of(position)`` keeps what the player sees -- the face-up cards of each column,
   the number of face-down cards under them, the stock's size, the reserve (Three Blind Mice's
   two face-up cards), the suits collected and the cards of the collected runs -- and
   drops everything else. Every later step reads only the table, so nothing downstream can
   depend on a card the player cannot see.
2. The unseen cards are the 52 minus the face-up, reserve and collected ones: exactly the set
   the player can work out. Each sample shuffles them (Fisher-Yates driven by ``SplitMix64``,
   seeded by the caller -- the service derives the seed from the game id and version) into the
   face-down slots and the stock: a deal drawn uniformly among those consistent with what was
   seen. (Three Blind Mice has no stock, and its reserve is face up: only face-down cards.)
3. For each legal action, each sample's position after the action is solved with a node budget:
   won, lost, or undecided (budget spent). The chance of an action is its share of won samples;
   an undecided sample counts as not won, so a chance errs low, never high.

Work is shared across actions: each sample is first solved as a whole. A lost sample is lost
after every action (an action that kept it winnable would make the whole sample winnable), so
one proof settles all actions -- and most samples of an ordinary position are lost. A won
sample's winning line names one action that wins; only the other actions are solved one by one.

*Proofs of loss are shared too* (Scorpion): a sample's solves are searches from the sample
itself, each action made inside its search (``solver.SharedSearch``), so that they key positions
alike and keep one table of the positions proven lost: what the whole-sample solve or an earlier
action's solve proved lost, the next one skips. Near a deal's start most samples are won, so
each other action is solved, and an action that loses needs a whole proof of loss; the proofs
of different actions overlap (most moves commute). Each solve keeps its own node budget, counted
in the positions it visits itself; the positions on a search's unfinished path (its winning
line, or where a budget ran out) are never kept. A solve decides, and alike, whatever a fresh
table would decide within the budget, and may decide what a fresh table leaves undecided: only
there does an answer change (tests/engine/test_solver.py, tests/engine/test_chances.py).
Measured side by side in one run (2026-12-01, 2 shared cores, load average 5-6; a throwaway
script: ``chances()`` with the worker's budgets -- 200 samples, 20,000 nodes, work 500,000 -- on
60 positions, Scorpion seeds 5000-5059 played 0-11 moves along the first hint; CPU time),
independent solves / shared: CPU per answer median 0.223 / 0.195 s, **mean 1.46 / 0.83 s**, p90
3.38 / 2.28 s, max 17.0 / 7.1 s; undecided sampled solves 0.07% / 0.02%. 55 of the 60 answers
are identical (sha256 of the tallies); of 51,266 verdicts on the samples both drew, 26 undecided
ones were decided and none changed; two dear positions got 200 samples instead of 183 and 196
(the work budget went further). ``bench/hints.py --positions 30 --start-seed 5``: the top-ranked
action keeps the deal winnable in 100% (7 of 7 contested) either way; CPU max 26.4 / 17.7 s at
200 samples. The other variants' samples are solved apart, as before (``variant_solver``).

*A work budget* bounds the whole estimate, not only each solve: the positions searched by all
its solves, plus ``SOLVE_WORK`` for each solve's set-up. No solve may search past what is left
of it, and sampling stops when it is spent (a sample cut short, or one whose solve the work
budget left undecided, is dropped: every action keeps the same samples, each solved with the
full node budget), so an estimate rests on fewer samples where each is dear -- a deal's start
in Wasp, whose many actions (any card may fill an empty column) cost 40-odd solves a sample --
instead of running for minutes. At least one whole sample is always taken; its solves may
overrun the work budget by ``FIRST_SAMPLE_SOLVE_FLOOR`` positions each at most. The budget
counts positions, not seconds, so it stays deterministic; the samples drawn depend on the
visible table alone.

*A deadline* (``chances(..., deadline=...)``, a ``time.perf_counter()`` moment) never changes an
answer: the estimate either finishes by then, and is exactly the one the same call without a
deadline gives, or raises ``TimeUp`` and gives nothing. A solve the deadline cut short could
read "undecided" where the node budget would have decided it, so it is never kept: the clock is
read after every solve, and a late one abandons the whole estimate. The service uses it to
answer a cheap position in the request itself (about 40% of a game's early positions take
under 0.1 s) and leave only the dear ones to a worker, whose answer would have been the same.

Same table, same seed, same budgets: the same answer, whatever the real hidden cards are -- the
property tests/engine/test_chances.py checks. It is an estimate of *thoughtful* winnability
(each sampled deal is solved as if all its cards were known): the chance that a perfect-
information player would still win, averaged over the deals the player cannot tell apart.

Pure Python, no Django.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from time import perf_counter
from typing import Any, Protocol

from games.engine.actions import DEAL, Action, Deal, Move
from games.engine.cards import card_code, parse_card
from games.engine.deals import SplitMix64
from games.engine.legal import legal_actions
from games.engine.position import Position
from games.engine.solver import SharedSearch, Solution, Verdict, solve
from games.engine.transitions import apply
from games.engine.variants import FACES, SCORPION, Variant

__all__ = [
    "DEFAULT_CHANCE_NODE_BUDGET",
    "SOLVE_WORK",
    "ActionChance",
    "TimeUp",
    "VisibleTable",
    "chances",
    "sampled_verdicts",
    "tally",
    "wilson_interval",
]

# Positions the solver may visit per sampled position. Most samples are settled at the root
# (deadlock detection); the budget bounds the rare deep one, which is then "undecided".
DEFAULT_CHANCE_NODE_BUDGET = 20_000
# What one solve's set-up costs in a work budget, in positions searched. Measured (5 samples at
# the deal of seeds 0-3, every action solved, budget 20,000; CPU / (positions + 100 x solves)):
# Scorpion 56 us, Wasp 50 us, Three Blind Mice 65 us a unit, where positions alone gave 58, 77
# and 250 us (Three Blind Mice's solves are short: its set-up, the deadlock proof at the root,
# is most of their cost). So a unit is about 60 us of CPU in every variant.
SOLVE_WORK = 100
# The first sample is always finished (an answer rests on one sample at least), but its solves
# may not run past the work budget either, beyond this many positions each: without the cap, at
# a Wasp deal's start (40-odd actions a sample, each solved apart up to 20,000 positions) the
# first sample alone took 6.2 s of CPU in a request whose budget is about 2.4 s, and could take
# a minute. Where the cap binds, the first sample's verdicts may be "undecided" (counted as not
# won): an answer that errs low, on time.
FIRST_SAMPLE_SOLVE_FLOOR = 1_000
# A 95% confidence interval.
_Z = 1.959963984540054


class TimeUp(Exception):
    """The deadline passed before the estimate was finished: there is no answer (not a worse
    one)."""


@dataclass(frozen=True, slots=True)
class VisibleTable:
    """The table as the player sees it: nothing here can name a face-down or stock card.

    The collected runs are kept as their cards (``collected_cards``, in card order), not only as
    the suits of their Kings (``collected``, which the sampled positions carry): in Scorpion Tail
    a run alternates colours, so a King's suit does not say which Queen, Jack, ... went with it,
    and only the cards say which are left unseen. The cards are public -- each lay face up in its
    run when the run was collected -- and ``of`` takes them as the deck minus every card still
    placed (columns, stock, reserve). That reads the face-down and stock cards, but only as a
    set, and that set is fixed by what the player saw: any rearrangement of the unseen cards
    leaves it, and so the table, unchanged (tests/engine/test_chances.py). The unseen cards are
    then the deck minus the face-up, reserve and collected cards: the face-down and stock cards
    as a sorted multiset, never their order.
    """

    face_up: tuple[tuple[int, ...], ...]  # per column, bottom -> top
    face_down: tuple[int, ...]  # how many face-down cards lie under each column's face-up ones
    stock_size: int
    collected: tuple[int, ...]  # suit indexes (of each run's King), in the order collected
    collected_cards: tuple[int, ...]  # the cards of the collected runs, in card order
    # The game of the family: its rules are public, like the table. In two decks a card int
    # also says which copy of its face it is, which the deal order decides and the player never
    # sees (games/engine/variants.py): ``of`` then names the copies from what the player sees
    # (``_copies_named``), so that the table carries faces only.
    variant: Variant = SCORPION
    reserve: tuple[int, ...] = ()  # face up, in slot order (Three Blind Mice)

    @classmethod
    def of(cls, position: Position) -> VisibleTable:
        """Read the face-up cards, the counts, the stock's size, the collected suits and the
        collected cards (the deck minus the cards still placed: see the class docstring)."""
        variant = position.variant
        face_up = tuple(
            column[hidden:]
            for column, hidden in zip(position.columns, position.hidden, strict=True)
        )
        reserve = tuple(position.reserve)
        placed = {card for column in position.columns for card in column}
        placed.update(position.stock)
        placed.update(position.reserve)
        collected_cards = tuple(card for card in range(variant.deck_size) if card not in placed)
        if variant.decks > 1:
            face_up, reserve, collected_cards = _copies_named(
                face_up, reserve, collected_cards, variant
            )
        return cls(
            face_up=face_up,
            face_down=tuple(position.hidden),
            stock_size=len(position.stock),
            collected=tuple(position.collected),
            collected_cards=collected_cards,
            variant=variant,
            reserve=reserve,
        )

    def source_of(self, card: int) -> int | None:
        """The column a face-up ``card`` lies in (a reserve card: the column count plus its
        slot, as the API's ``from`` says), None if it is not face up."""
        for index, column in enumerate(self.face_up):
            if card in column:
                return index
        if card in self.reserve:
            return len(self.face_up) + self.reserve.index(card)
        return None

    def copy_of(self, card: int) -> str | None:
        """Which of two face-up copies lying in one column ``card`` is, "upper" or "lower", as
        ``games.engine.resolve.copy_of`` says it (the API's ``copy``); None otherwise."""
        if self.variant.decks == 1:
            return None
        other = (card + FACES) % (2 * FACES)
        for column in self.face_up:
            if card in column:
                if other not in column:
                    return None
                return "upper" if column.index(card) > column.index(other) else "lower"
        return None

    def unseen(self) -> tuple[int, ...]:
        """The cards the player cannot see (face down or in the stock), in card order."""
        seen = {card for column in self.face_up for card in column}
        seen.update(self.reserve)
        seen.update(self.collected_cards)
        unseen = tuple(card for card in range(self.variant.deck_size) if card not in seen)
        if len(unseen) != sum(self.face_down) + self.stock_size or len(
            self.collected_cards
        ) != 13 * len(self.collected):
            raise ValueError(
                f"the visible table does not account for {len(seen) + len(unseen)} cards"
            )
        return unseen

    def sample(self, rng: SplitMix64, unseen: tuple[int, ...] | None = None) -> Position:
        """A position with this table and the unseen cards shuffled into the unseen slots.
        ``unseen``: ``self.unseen()``, when the caller has it already (a stream of samples)."""
        cards = list(self.unseen() if unseen is None else unseen)
        # Fisher-Yates, as deals.deal_code_for_seed: unbiased with SplitMix64.below.
        for index in range(len(cards) - 1, 0, -1):
            other = rng.below(index + 1)
            cards[index], cards[other] = cards[other], cards[index]
        at = 0
        columns = []
        for face_up, hidden in zip(self.face_up, self.face_down, strict=True):
            columns.append(tuple(cards[at : at + hidden]) + face_up)
            at += hidden
        return Position(
            columns=tuple(columns),
            hidden=self.face_down,
            stock=tuple(cards[at:]),
            collected=self.collected,
            reserve=self.reserve,
            variant=self.variant,
        )


def _copies_named(
    face_up: tuple[tuple[int, ...], ...],
    reserve: tuple[int, ...],
    collected_cards: tuple[int, ...],
    variant: Variant,
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]:
    """The face-up, reserve and collected cards of a two-deck table, each copy renamed from
    what the player sees: a face's first copy met gets the face's first int (``face``), the
    next one ``face + 52``, meeting the face-up cards in reading order (column by column,
    bottom to top), then the reserve's, then the collected ones by face. The rules never tell
    two copies apart, so the renamed table is the same game; and since the names depend on
    faces and places only, which copy of a face lies where (the deal's order, never shown)
    cannot change an answer. The unseen cards are then the ints left: the face-down copies."""
    given: dict[int, int] = {}

    def named(card: int) -> int:
        face = card % FACES
        copy = given.get(face, 0)
        if copy >= variant.decks:
            raise ValueError("the visible table has a face more often than the decks do")
        given[face] = copy + 1
        return face + FACES * copy

    renamed_face_up = tuple(tuple(named(card) for card in column) for column in face_up)
    renamed_reserve = tuple(named(card) for card in reserve)
    faces = sorted(card % FACES for card in collected_cards)
    return renamed_face_up, renamed_reserve, tuple(sorted(named(face) for face in faces))


@dataclass(frozen=True, slots=True)
class ActionChance:
    """One legal action and how it fared over the samples."""

    action: Action
    wins: int
    losses: int
    undecided: int
    # A move's source column (a reserve card: the column count plus its slot), as hints name
    # it: the API's ``from``, which tells two copies of a card apart. None for the deal.
    source: int | None = None
    # Of two copies face up in that column, which one ("upper" or "lower"): the API's
    # ``copy``, as hints name it; None where the column says it.
    copy: str | None = None

    @property
    def samples(self) -> int:
        return self.wins + self.losses + self.undecided

    @property
    def chance(self) -> float:
        """The share of samples won after this action (undecided ones count as not won)."""
        return self.wins / self.samples if self.samples else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.samples)

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        body: dict[str, Any] = (
            {"type": "deal"}
            if isinstance(self.action, Deal)
            else {"type": "move", "card": card_code(self.action.card), "to": self.action.to}
        )
        if self.source is not None:
            body["from"] = self.source
        if self.copy is not None:
            body["copy"] = self.copy
        body.update(
            chance=round(self.chance, 4),
            low=round(low, 4),
            high=round(high, 4),
            wins=self.wins,
            losses=self.losses,
            undecided=self.undecided,
            samples=self.samples,
        )
        return body

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ActionChance:
        action: Action = (
            DEAL if data["type"] == "deal" else Move(parse_card(data["card"]), int(data["to"]))
        )
        source = data.get("from")
        return cls(
            action,
            int(data["wins"]),
            int(data["losses"]),
            int(data["undecided"]),
            None if source is None else int(source),
            data.get("copy"),
        )


def wilson_interval(successes: int, trials: int) -> tuple[float, float]:
    """The Wilson score 95% interval of a proportion (sound near 0 and 1, unlike p +- 2 sd)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + _Z * _Z / trials
    centre = (p + _Z * _Z / (2 * trials)) / denominator
    half = _Z * math.sqrt(p * (1 - p) / trials + _Z * _Z / (4 * trials * trials)) / denominator
    # At 0 or 1 successes in every trial the bound is exactly 0 or 1; rounding could miss it.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return (low, high)


def chances(
    table: VisibleTable,
    *,
    samples: int,
    seed: int,
    node_budget: int = DEFAULT_CHANCE_NODE_BUDGET,
    work_budget: int | None = None,
    deadline: float | None = None,
) -> list[ActionChance]:
    """Every legal action of ``table``, best chance first (ties keep ``legal_actions`` order),
    from at most ``samples`` samples: fewer once ``work_budget`` is spent (module docstring;
    each action's ``samples`` says how many).

    Deterministic: node and work budgets, never a time budget, bound the solves, so the same
    table, seed and budgets always give the same answer. Past ``deadline`` (a
    ``time.perf_counter()`` moment), ``TimeUp`` is raised instead of answering.
    """
    if samples < 1:
        raise ValueError("at least one sample")
    actions, outcomes = sampled_verdicts(
        table, seed=seed, node_budget=node_budget, work_budget=work_budget, deadline=deadline
    )
    found = tally(actions, itertools.islice(outcomes, samples))
    return [
        replace(
            entry,
            source=table.source_of(entry.action.card),
            copy=table.copy_of(entry.action.card),
        )
        if isinstance(entry.action, Move)
        else entry
        for entry in found
    ]


def tally(actions: list[Action], outcomes: Iterable[list[Verdict]]) -> list[ActionChance]:
    """Count each action's verdicts over the samples; best chance first, ties in legal order."""
    counts = [[0, 0, 0] for _ in actions]
    for verdicts in outcomes:
        for count, verdict in zip(counts, verdicts, strict=True):
            count[_SLOT[verdict]] += 1
    found = [
        ActionChance(action, wins, losses, undecided)
        for action, (wins, losses, undecided) in zip(actions, counts, strict=True)
    ]
    return sorted(found, key=lambda entry: -entry.wins)


_SLOT: dict[Verdict, int] = {"won": 0, "lost": 1, "unknown": 2}


class _Searches(Protocol):
    """Solves a sample (no action) or the sample after one of its actions."""

    def __call__(
        self, action: Action | None, *, node_budget: int, time_budget: float | None = None
    ) -> Solution: ...


def _searches(position: Position) -> _Searches:
    """The solves of one sample: in Scorpion, searches from the sample that share what they
    prove lost (``SharedSearch``; module docstring); in the other variants, independent ones."""
    if position.variant is SCORPION:
        return SharedSearch(position).solve

    def independent(
        action: Action | None, *, node_budget: int, time_budget: float | None = None
    ) -> Solution:
        after = position if action is None else apply(position, action)[0]
        return solve(after, node_budget=node_budget, time_budget=time_budget)

    return independent


def _line_start(whole: Solution, actions: list[Action], table: VisibleTable) -> Action | None:
    """The action of ``actions`` a won sample's winning line begins with (None if not won). A
    line's command names its card by the face; in two decks its ``from`` column and, where
    both copies lie face up there, its ``copy`` say which copy, so the action is found by its
    name, never by parsing the face into a card int."""
    if not whole.won or not whole.line:
        return None
    command = whole.line[0]
    for action in actions:
        if not isinstance(action, Move):
            if command["type"] == "deal":
                return action
        elif (
            command["type"] == "move"
            and card_code(action.card) == command["card"]
            and action.to == command["to"]
        ):
            source = table.source_of(action.card)
            # Scorpion's lines name no column; a copy is named only where two share one.
            if command.get("from", source) == source and command.get("copy") == table.copy_of(
                action.card
            ):
                return action
    return None


def sampled_verdicts(
    table: VisibleTable,
    *,
    seed: int,
    node_budget: int = DEFAULT_CHANCE_NODE_BUDGET,
    work_budget: int | None = None,
    deadline: float | None = None,
) -> tuple[list[Action], Iterator[list[Verdict]]]:
    """The legal actions, and a stream of samples: for each, the verdict after each action;
    endless without ``work_budget``, else it ends once the budget is spent. The first n items
    are the same whatever is read after them, so 50 samples are the first 50 of 1,000 (the
    benchmark measures both in one run)."""
    # The legal actions depend only on the visible table (a move needs a face-up card onto an
    # exposed one, the deal a full stock), so any sample lists them.
    actions = legal_actions(table.sample(SplitMix64(seed)))
    verdicts = _verdicts(table, actions, SplitMix64(seed), node_budget, work_budget, deadline)
    return actions, verdicts


def _verdicts(
    table: VisibleTable,
    actions: list[Action],
    rng: SplitMix64,
    node_budget: int,
    work_budget: int | None,
    deadline: float | None,
) -> Iterator[list[Verdict]]:
    work = 0
    unseen = table.unseen()  # the same for every sample
    whole_samples = 0

    def solved(searches: _Searches, action: Action | None, budget: int) -> Solution:
        """The solver's verdict, or TimeUp: a solve the deadline stopped (or that ended after
        it) might have been decided with more time, so it is never counted."""
        if deadline is None:
            return searches(action, node_budget=budget)
        left = deadline - perf_counter()
        if left <= 0:
            raise TimeUp
        solution = searches(action, node_budget=budget, time_budget=left)
        if perf_counter() >= deadline:
            raise TimeUp
        return solution

    def solve_budget() -> int:
        """The positions the next solve may search: its own budget, and no more than is left
        of the work budget. Within the first sample (always finished) never less than
        ``FIRST_SAMPLE_SOLVE_FLOOR``, so the first sample costs at most the work budget plus
        that much a solve."""
        if work_budget is None:
            return node_budget
        left = work_budget - work - SOLVE_WORK
        if not whole_samples:
            left = max(left, FIRST_SAMPLE_SOLVE_FLOOR)
        return min(node_budget, left)

    def cut(budget: int, solution: Solution) -> bool:
        """The work budget, not the solve's own, left it undecided: past the first sample,
        the sample is dropped (every kept sample is solved with the full node budget)."""
        return whole_samples > 0 and budget < node_budget and solution.verdict == "unknown"

    while True:
        searches = _searches(table.sample(rng, unseen))
        budget = solve_budget()
        if budget <= 0:
            return
        whole = solved(searches, None, budget)
        work += whole.nodes + SOLVE_WORK
        if cut(budget, whole):
            return
        row: list[Verdict]
        if whole.lost:
            row = ["lost"] * len(actions)
        else:
            first = _line_start(whole, actions, table)
            row = []
            for action in actions:
                if action == first:
                    row.append("won")
                    continue
                budget = solve_budget()
                if budget <= 0:
                    return  # this sample is dropped: every action keeps the same samples
                after = solved(searches, action, budget)
                work += after.nodes + SOLVE_WORK
                if cut(budget, after):
                    return
                row.append(after.verdict)
        whole_samples += 1
        yield row
