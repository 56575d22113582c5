"""The event store: append-only log, projection equal to the fold, compare-and-set under races."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from games import selectors, services
from games.engine.cards import parse_card
from games.history import Command, GameState
from games.models import Game, GameEvent
from games.services import DealChoice, VersionConflictError
from tests.api.conftest import WON_DEAL
from tests.conftest import require_service

CODE = WON_DEAL["code"]
LINE = WON_DEAL["line"]


def as_command(step: dict[str, Any]) -> Command:
    if step["type"] == "move":
        return Command("move", parse_card(step["card"]), step.get("to"))
    return Command(step["type"])


def new_game(owner: User, mode: str = "seeded") -> Game:
    return services.game_create(owner=owner, choice=DealChoice(mode=mode, code=CODE))


def run(owner: User, game: Game, command: Command, **kwargs: Any) -> services.CommandResult:
    return services.game_execute_command(owner=owner, game_id=game.pk, command=command, **kwargs)


def assert_projection_is_the_fold(game: Game) -> None:
    game.refresh_from_db()
    folded = selectors.game_state_at(game=game, version=game.version)
    assert GameState.from_dict(game.state) == folded
    assert game.status == folded.status
    assert game.moves == folded.moves
    seqs = list(game.events.order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1))


@pytest.fixture
def owner(db: None) -> User:
    return User.objects.create_user("owner", "owner@example.com", "pw")


def test_projection_equals_the_fold_after_every_kind_of_command(owner: User) -> None:
    game = new_game(owner)
    for step in LINE[:5]:
        run(owner, game, as_command(step))
        assert_projection_is_the_fold(game)
    for kind in ("undo", "undo", "redo", "deal", "undo", "redo"):
        run(owner, game, Command(kind))  # type: ignore[arg-type]
        assert_projection_is_the_fold(game)
    run(owner, game, Command("resign"))
    assert_projection_is_the_fold(game)


def test_projection_equals_the_fold_through_a_whole_won_game(owner: User) -> None:
    game = new_game(owner)
    for step in LINE:
        run(owner, game, as_command(step))
    assert_projection_is_the_fold(game)
    assert game.status == "won"


def test_events_cannot_be_changed_once_written(owner: User) -> None:
    game = new_game(owner)
    event = run(owner, game, as_command(LINE[0])).event
    event.type = "deal"
    with pytest.raises(RuntimeError, match="append-only"):
        event.save()


def test_database_refuses_a_duplicate_seq(owner: User) -> None:
    game = new_game(owner)
    run(owner, game, as_command(LINE[0]))
    with pytest.raises(IntegrityError), transaction.atomic():
        GameEvent.objects.create(game=game, seq=1, type="deal", payload={})


def test_database_refuses_a_duplicate_idempotency_key(owner: User) -> None:
    game = new_game(owner)
    run(owner, game, as_command(LINE[0]), idempotency_key="same")
    with pytest.raises(IntegrityError), transaction.atomic():
        GameEvent.objects.create(game=game, seq=2, type="deal", payload={}, idempotency_key="same")


def test_undo_does_the_same_work_after_thousands_of_events(owner: User) -> None:
    short = new_game(owner, "random")  # another kind: it stays open beside the seeded game
    run(owner, short, as_command(LINE[0]))
    long = new_game(owner)
    run(owner, long, as_command(LINE[0]))
    for _ in range(1000):
        run(owner, long, Command("undo"))
        run(owner, long, Command("redo"))
    long.refresh_from_db()
    assert long.version == 2001

    def undo_queries(game: Game) -> list[str]:
        with CaptureQueriesContext(connection) as captured:
            run(owner, game, Command("undo"))
        return [query["sql"] for query in captured.captured_queries]

    short_queries = undo_queries(short)
    long_queries = undo_queries(long)
    # Same statements, none of which reads the log: undo never replays history.
    assert len(short_queries) == len(long_queries)
    assert not any('FROM "games_gameevent"' in sql and "SELECT" in sql for sql in long_queries)
    assert_projection_is_the_fold(long)


# --- Races: real threads, real transactions, PostgreSQL ---


def race(workers: list[Callable[[], Any]]) -> list[Any]:
    """Run the callables at the same moment, each on its own connection; return results or
    the exceptions they raised."""
    barrier = threading.Barrier(len(workers))
    results: list[Any] = [None] * len(workers)

    def body(index: int, work: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[index] = work()
        except Exception as exc:
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=body, args=(i, w)) for i, w in enumerate(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


@pytest.fixture
def postgres() -> None:
    require_service("PostgreSQL", connection.vendor == "postgresql")


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres")
def test_two_commands_at_the_same_version_exactly_one_wins() -> None:
    owner = User.objects.create_user("racer", "racer@example.com", "pw")
    for _ in range(10):
        game = new_game(owner)
        results = race(
            [
                lambda g=game: run(owner, g, as_command(LINE[0]), expected_version=0),
                lambda g=game: run(owner, g, Command("deal"), expected_version=0),
            ]
        )
        winners = [r for r in results if isinstance(r, services.CommandResult)]
        losers = [r for r in results if isinstance(r, VersionConflictError)]
        assert len(winners) == 1, results
        assert len(losers) == 1, results
        assert losers[0].game.version == 1
        assert_projection_is_the_fold(game)
        assert game.version == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres")
def test_concurrent_commands_without_expected_version_all_land_without_gaps() -> None:
    owner = User.objects.create_user("crowd", "crowd@example.com", "pw")
    game = new_game(owner)
    run(owner, game, as_command(LINE[0]))
    results = race(
        [lambda: run(owner, game, Command("undo")), lambda: run(owner, game, Command("deal"))]
    )
    applied = [r for r in results if isinstance(r, services.CommandResult)]
    assert len(applied) == 2, results
    assert sorted(r.event.seq for r in applied) == [2, 3]
    assert_projection_is_the_fold(game)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres")
def test_a_retried_command_racing_itself_is_applied_once() -> None:
    owner = User.objects.create_user("retry", "retry@example.com", "pw")
    game = new_game(owner)
    results = race(
        [lambda: run(owner, game, as_command(LINE[0]), idempotency_key="once") for _ in range(4)]
    )
    assert all(isinstance(r, services.CommandResult) for r in results), results
    assert {r.event.seq for r in results} == {1}
    assert sum(not r.replayed for r in results) == 1
    game.refresh_from_db()
    assert game.version == 1
