"""Snapshots: any earlier state is a stored snapshot plus at most SNAPSHOT_INTERVAL folds, and
equals the fold of the whole log from the deal (a property over random play)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import history, selectors, services
from games.engine.actions import Deal
from games.engine.cards import parse_deal_code
from games.engine.deals import deal_code_for_seed
from games.engine.legal import legal_actions
from games.history import Command, GameState
from games.models import SNAPSHOT_INTERVAL, Game, GameSnapshot
from games.presentation import game_representation

pytestmark = pytest.mark.django_db

_owners = itertools.count()


def owner() -> User:
    number = next(_owners)
    return User.objects.create_user(f"snap{number}", f"snap{number}@example.com", "pw")


def play(user: User, game: Game, choices: list[int]) -> None:
    """One command per choice: a legal move or the deal, an undo or a redo (when possible)."""
    for choice in choices:
        game.refresh_from_db()
        state = GameState.from_dict(game.state)
        if state.status in ("won", "resigned"):
            return
        options: list[Command] = []
        for action in legal_actions(state.position):
            if isinstance(action, Deal):
                options.append(Command("deal"))
            else:
                options.append(Command("move", action.card, action.to))
        if state.line:
            options += [Command("undo")] * 2  # undo often: the log then outgrows the line
        if state.redo:
            options.append(Command("redo"))
        if not options:
            return
        services.game_execute_command(
            owner=user, game_id=game.pk, command=options[choice % len(options)]
        )


def folded_from_the_deal(game: Game, version: int) -> GameState:
    events = game.events.filter(seq__lte=version).order_by("seq").values_list("type", "payload")
    return history.fold(parse_deal_code(game.deal_code), events)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    choices=st.lists(st.integers(min_value=0, max_value=1000), min_size=40, max_size=110),
)
def test_every_state_equals_the_fold_from_the_deal(seed: int, choices: list[int], db: None) -> None:
    user = owner()
    game = services.game_create(
        owner=user, choice=services.DealChoice(mode="seeded", code=deal_code_for_seed(seed))
    )
    play(user, game, choices)
    game.refresh_from_db()
    stored = dict(
        GameSnapshot.objects.filter(game=game).values_list("version", "state").order_by("version")
    )
    # Written by the commands themselves, at every multiple of the interval and nowhere else.
    assert list(stored) == list(range(SNAPSHOT_INTERVAL, game.version + 1, SNAPSHOT_INTERVAL))
    for version, state in stored.items():
        assert GameState.from_dict(state) == folded_from_the_deal(game, version)
    for version in range(game.version + 1):
        assert selectors.game_state_at(game=game, version=version) == folded_from_the_deal(
            game, version
        )
    # The game as stored is shown straight from the projection's JSON: exactly what the
    # parsed state shows (elapsed_seconds aside, which runs on while the game is on).
    stored = game_representation(game)
    parsed = game_representation(game, GameState.from_dict(game.state))
    assert stored.pop("elapsed_seconds") <= parsed.pop("elapsed_seconds")
    assert stored == parsed


def test_a_game_older_than_snapshots_gets_them_from_its_first_long_read() -> None:
    user = owner()
    game = services.game_create(
        owner=user, choice=services.DealChoice(mode="seeded", code=deal_code_for_seed(7))
    )
    play(user, game, [0, 1] * 50)  # a move and its undo, again and again: 100 events
    game.refresh_from_db()
    assert game.version >= 3 * SNAPSHOT_INTERVAL
    GameSnapshot.objects.filter(game=game).delete()  # as before snapshots existed
    late = game.version - 1
    assert selectors.game_state_at(game=game, version=late) == folded_from_the_deal(game, late)
    versions = list(GameSnapshot.objects.filter(game=game).values_list("version", flat=True))
    assert sorted(versions) == list(range(SNAPSHOT_INTERVAL, late + 1, SNAPSHOT_INTERVAL))
    # Now the same read folds from the last snapshot.
    assert selectors.game_state_at(game=game, version=late) == folded_from_the_deal(game, late)


def test_a_state_reads_at_most_an_interval_of_events() -> None:
    user = owner()
    game = services.game_create(
        owner=user, choice=services.DealChoice(mode="seeded", code=deal_code_for_seed(11))
    )
    play(user, game, [0, 1] * 60)
    game.refresh_from_db()
    read: list[Any] = []
    for version in (1, SNAPSHOT_INTERVAL - 1, SNAPSHOT_INTERVAL + 5, game.version - 1):
        with CaptureQueriesContext(connection) as queries:
            selectors.game_state_at(game=game, version=version)
        read.append(queries.captured_queries)
        events = list(
            game.events.filter(
                seq__gt=version - version % SNAPSHOT_INTERVAL, seq__lte=version
            ).values_list("seq", flat=True)
        )
        assert len(events) < SNAPSHOT_INTERVAL
    # Two reads each: the nearest snapshot, then the events after it; nothing else.
    assert [len(queries) for queries in read] == [2] * len(read), read


def test_the_current_state_is_the_projection_without_reading_the_log() -> None:
    user = owner()
    game = services.game_create(
        owner=user, choice=services.DealChoice(mode="seeded", code=deal_code_for_seed(3))
    )
    play(user, game, [0, 1, 0])
    game.refresh_from_db()
    with CaptureQueriesContext(connection) as queries:
        state = selectors.game_state_at(game=game, version=game.version)
    assert queries.captured_queries == []
    assert state == folded_from_the_deal(game, game.version)


def test_a_stored_snapshot_cannot_be_changed() -> None:
    user = owner()
    game = services.game_create(
        owner=user, choice=services.DealChoice(mode="seeded", code=deal_code_for_seed(5))
    )
    play(user, game, [0, 1] * 20)
    snapshot = GameSnapshot.objects.filter(game=game).first()
    assert snapshot is not None
    snapshot.state = {}
    with pytest.raises(RuntimeError, match="never changed"):
        snapshot.save()
    snapshot.refresh_from_db()
    assert snapshot.state == folded_from_the_deal(game, snapshot.version).to_dict()
