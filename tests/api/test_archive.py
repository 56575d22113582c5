"""Archived games (games/archive.py): the log of a game finished long ago moves to a compressed
file, and every read of it (events, states, exports, the staff's replay, statistics) answers
exactly as before; a broken file is an error, never a wrong answer."""

from __future__ import annotations

import datetime
import gzip
import io
import types
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import guests
from games import archive, services
from games.engine.cards import parse_card
from games.history import Command
from games.models import Game, GameEvent, GameMode, GameSnapshot
from games.services import archiving
from players import selectors as player_selectors
from players import services as player_services
from players import tasks as player_tasks
from stats.selectors import stats_for
from tests.api.conftest import WON_DEAL, Player

pytestmark = pytest.mark.django_db

CODE = WON_DEAL["code"]
LINE = WON_DEAL["line"]
DAYS = 90


@pytest.fixture(autouse=True)
def _archive_of_the_test(archive_dir: Path) -> None:
    """Every test archives into a directory of its own (tests/conftest.py)."""


def as_command(step: dict[str, Any]) -> Command:
    if step["type"] == "deal":
        return Command("deal")
    return Command("move", parse_card(step["card"]), step.get("to"))


def won_game(player: Player | User, *, days_ago: int = DAYS + 10) -> Game:
    """A game won through the service, with undos, redos and idempotency keys on the way (every
    kind of event the log holds), past the snapshot interval; finished ``days_ago`` days ago."""
    owner = player if isinstance(player, User) else User.objects.get(email=player.email)
    choice = services.DealChoice(mode=GameMode.SEEDED, code=CODE)
    game_id = services.game_create(owner=owner, choice=choice).pk
    for index, step in enumerate(LINE):
        key = f"step-{index}"
        services.game_execute_command(
            owner=owner, game_id=game_id, command=as_command(step), idempotency_key=key
        )
        if index % 7 == 3:
            services.game_execute_command(owner=owner, game_id=game_id, command=Command("undo"))
            services.game_execute_command(owner=owner, game_id=game_id, command=Command("redo"))
    game = Game.objects.get(pk=game_id)
    assert game.status == "won"
    assert game.version > 64
    Game.objects.filter(pk=game_id).update(
        finished_at=timezone.now() - datetime.timedelta(days=days_ago)
    )
    return Game.objects.get(pk=game_id)


def archive_now(limit: int = 100) -> services.ArchiveRun:
    return services.game_logs_archive(
        finished_before=timezone.now() - datetime.timedelta(days=DAYS), limit=limit
    )


def api_reads(player: Player, game: Game, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """Every answer of the API that reads the game's log, as bytes."""
    # The player's export says when it was made: the same moment for every export.
    fixed = datetime.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=datetime.UTC)
    monkeypatch.setattr("players.selectors.timezone", types.SimpleNamespace(now=lambda: fixed))
    base = f"/api/v1/games/{game.pk}"
    paths = [
        "/api/v1/me/export/",
        f"{base}/events/export/",
        f"{base}/events/?limit=1000",
        f"{base}/events/?after=30&limit=7",
        f"{base}/states/?start=0&limit=100",
        f"{base}/states/?start={game.version - 3}",
        f"{base}/states/31/",
        f"{base}/states/{game.version}/",
        f"{base}/",
    ]
    answers = {}
    for path in paths:
        response = player.get(path)
        assert response.status_code == 200, (path, response.content)
        content = b"".join(response.streaming_content) if response.streaming else response.content
        answers[path] = content
    return answers


def test_every_read_of_an_archived_game_answers_byte_for_byte_as_before(
    player: Player, monkeypatch: pytest.MonkeyPatch, archive_dir: Path
) -> None:
    game = won_game(player)
    before = api_reads(player, game, monkeypatch)
    assert b'"events":[{"seq":1,' in before["/api/v1/me/export/"]

    run = archive_now()

    assert (run.archived, run.events) == (1, game.version)
    assert not GameEvent.objects.filter(game=game).exists()
    assert not GameSnapshot.objects.filter(game=game).exists()
    game.refresh_from_db()
    assert game.archived_at is not None
    assert (archive_dir / game.archive_name).is_file()
    assert api_reads(player, game, monkeypatch) == before
    # Read from the file, which stores no snapshot back in the table.
    assert not GameSnapshot.objects.filter(game=game).exists()


def test_the_staff_replay_of_an_archived_game_is_the_same(
    player: Player, admin_client: Client
) -> None:
    game = won_game(player)
    versions = [0, 1, 5, 33, game.version - 1, game.version]

    def replays() -> list[Any]:
        url = reverse("staff:replay", args=[game.pk])
        answers = [admin_client.get(f"{url}?version={version}") for version in versions]
        assert all(answer.status_code == 200 for answer in answers)
        return [answer.context["replay"] for answer in answers]

    before = replays()
    archive_now()
    assert replays() == before


def test_the_history_pages_list_and_open_an_archived_game(player: Player) -> None:
    game = won_game(player)
    archive_now()
    listed = player.get("/api/v1/games/?status=won").json()
    assert [one["id"] for one in listed["results"]] == [str(game.pk)]
    client = Client()
    client.force_login(User.objects.get(email=player.email))
    assert client.get("/history/").status_code == 200
    assert client.get(f"/history/{game.pk}/").status_code == 200


def test_rebuilt_statistics_are_the_same_after_archiving(player: Player) -> None:
    won_game(player)
    owner = User.objects.get(email=player.email)
    call_command("rebuild_stats", stdout=None)
    before = stats_for(user=owner).to_dict()
    archive_now()
    call_command("rebuild_stats")
    call_command("rebuild_achievements")
    assert stats_for(user=owner).to_dict() == before
    assert before["played"] >= 1


def test_a_game_in_play_or_finished_lately_is_never_archived(player: Player) -> None:
    recent = won_game(player, days_ago=DAYS - 1)
    playing = player.new_game(code=CODE)
    assert player.command(playing["id"], LINE[0]).status_code == 200
    Game.objects.filter(pk=playing["id"]).update(
        created_at=timezone.now() - datetime.timedelta(days=400)
    )

    assert archive_now().archived == 0

    for game_id in (recent.pk, playing["id"]):
        game = Game.objects.get(pk=game_id)
        assert game.archived_at is None
        assert GameEvent.objects.filter(game=game).count() == game.version > 0


def test_archiving_twice_does_nothing_more(player: Player, archive_dir: Path) -> None:
    game = won_game(player)
    archive_now()
    game.refresh_from_db()
    written = (archive_dir / game.archive_name).read_bytes()

    assert archive_now().archived == 0
    call_command("archive_finished_games", "--older-than-days", str(DAYS))

    again = Game.objects.get(pk=game.pk)
    assert (again.archived_at, again.archive_sha256) == (game.archived_at, game.archive_sha256)
    assert (archive_dir / game.archive_name).read_bytes() == written


def test_a_run_stopped_after_the_file_is_finished_by_the_next_run(
    player: Player, monkeypatch: pytest.MonkeyPatch, archive_dir: Path
) -> None:
    game = won_game(player)

    def crash() -> None:
        raise RuntimeError("the process died")

    monkeypatch.setattr("games.services.archiving.transaction.atomic", crash)
    with pytest.raises(RuntimeError):
        archive_now()
    monkeypatch.undo()
    # The file is there, the game not archived: every read still comes from the table.
    name = archive.archive_name(game.pk)
    assert (archive_dir / name).is_file()
    assert Game.objects.get(pk=game.pk).archived_at is None
    assert GameEvent.objects.filter(game=game).count() == game.version

    assert archive_now().archived == 1
    archived = Game.objects.get(pk=game.pk)
    assert archived.archive_name == name
    assert len(archive.archived_events(game=archived)) == game.version
    assert [path.name for path in (archive_dir / name).parent.iterdir()] == [Path(name).name]


def test_the_command_archives_at_most_its_limit_oldest_first(make_player: Any) -> None:
    player = make_player()
    older = won_game(player, days_ago=200)
    newer = won_game(player, days_ago=150)

    call_command("archive_finished_games", "--older-than-days", "100", "--limit", "1")

    assert Game.objects.get(pk=older.pk).archived_at is not None
    assert Game.objects.get(pk=newer.pk).archived_at is None
    with pytest.raises(Exception, match="older-than-days"):
        call_command("archive_finished_games", "--older-than-days", "-1")


def test_a_game_the_command_cannot_archive_does_not_stop_it_before_the_others(
    make_player: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command archives every such game, a batch at a time: a game it leaves (its log not
    whole, or deleted meanwhile) is passed over, not taken as the end of the games to do."""
    player = make_player()
    broken = won_game(player, days_ago=300)  # the oldest: first of every batch
    GameEvent.objects.filter(game=broken, seq=5).delete()
    others = [won_game(player, days_ago=days) for days in (200, 150)]
    monkeypatch.setattr("games.management.commands.archive_finished_games.BATCH", 1)
    out = io.StringIO()

    call_command("archive_finished_games", "--older-than-days", "100", stdout=out)

    assert [Game.objects.get(pk=game.pk).archived_at is not None for game in others] == [
        True,
        True,
    ]
    assert Game.objects.get(pk=broken.pk).archived_at is None
    assert "Archived 2 game(s)" in out.getvalue()
    assert "1 game(s) left in the table" in out.getvalue()


def test_a_game_read_before_it_was_archived_is_read_from_its_file(player: Player) -> None:
    game = won_game(player)
    read_before = Game.objects.get(pk=game.pk)
    archive_now()
    # The instance still says "not archived"; its rows are gone: the reader finds the file.
    events = archive.game_events_between(game=read_before, after=0, stop=read_before.version)
    assert [event.seq for event in events] == list(range(1, game.version + 1))
    assert read_before.archived_at is not None


def test_a_retried_command_of_an_archived_game_answers_as_the_first_time(player: Player) -> None:
    game = won_game(player)
    last = len(LINE) - 1
    body = dict(LINE[last])
    first = Game.objects.get(pk=game.pk)
    archive_now()
    retried = player.command(str(game.pk), body, **{"Idempotency-Key": f"step-{last}"})
    assert retried.status_code in (200, 201), retried.content
    assert retried.json()["version"] == first.version


@pytest.mark.parametrize("damage", ["changed", "missing"])
def test_a_broken_archive_is_a_problem_never_a_wrong_answer(
    player: Player, archive_dir: Path, damage: str
) -> None:
    game = won_game(player)
    archive_now()
    game.refresh_from_db()
    path = archive_dir / game.archive_name
    if damage == "missing":
        path.unlink()
    else:
        text = gzip.decompress(path.read_bytes()).replace(b'"move"', b'"deal"', 1)
        path.write_bytes(gzip.compress(text))
    assert_history_unreadable(player, game)


def assert_history_unreadable(player: Player, game: Game) -> None:
    """Every read of ``game``'s log is a 503 ``archive_unreadable`` problem; the game reads."""
    base = f"/api/v1/games/{game.pk}"
    for url in (
        f"{base}/events/",
        f"{base}/events/export/",
        f"{base}/states/?start=0",
        f"{base}/states/3/",
        "/api/v1/me/export/",
    ):
        response = player.get(url)
        assert response.status_code == 503, (url, response.content)
        assert response["Content-Type"] == "application/problem+json"
        assert response.json()["code"] == "archive_unreadable"
    # The final state is on the row: the game itself still reads.
    assert player.get(f"{base}/").status_code == 200


def test_deleting_the_players_data_deletes_their_archive_files(
    make_player: Any, archive_dir: Path, django_capture_on_commit_callbacks: Any
) -> None:
    player, other = make_player(), make_player()
    games = [won_game(player), won_game(player), won_game(other)]
    archive_now()
    files = [archive_dir / Game.objects.get(pk=game.pk).archive_name for game in games]
    assert all(path.is_file() for path in files)

    with django_capture_on_commit_callbacks(execute=True):
        response = player.client.delete("/api/v1/me/data/")

    assert response.status_code == 200, response.content
    assert [path.is_file() for path in files] == [False, False, True]


def test_closing_the_account_deletes_its_archive_files(
    player: Player, archive_dir: Path, django_capture_on_commit_callbacks: Any
) -> None:
    game = won_game(player)
    archive_now()
    path = archive_dir / Game.objects.get(pk=game.pk).archive_name

    with django_capture_on_commit_callbacks(execute=True):
        player_services.account_delete(user=User.objects.get(email=player.email))

    assert not path.exists()


def test_purging_an_idle_guest_deletes_its_archive_files(
    settings: Any, archive_dir: Path, django_capture_on_commit_callbacks: Any
) -> None:
    guest = guests.guest_create()
    game = won_game(guest)
    archive_now()
    path = archive_dir / Game.objects.get(pk=game.pk).archive_name
    long_ago = timezone.now() - datetime.timedelta(days=settings.GUEST_IDLE_DAYS + 1)
    User.objects.filter(pk=guest.pk).update(date_joined=long_ago)
    Game.objects.filter(pk=game.pk).update(updated_at=long_ago)

    with django_capture_on_commit_callbacks(execute=True):
        assert player_tasks.delete_idle_guests() == 1

    assert not path.exists()


def test_the_admin_says_where_an_archived_games_log_is(
    player: Player, admin_client: Client
) -> None:
    game = won_game(player)
    archive_now()
    archived = Game.objects.get(pk=game.pk)

    page = admin_client.get(reverse("admin:games_game_change", args=[game.pk]))

    assert page.status_code == 200
    text = page.content.decode()
    assert f"{archived.version} event(s), archived" in text
    assert archived.archive_name in text
    assert archived.archive_sha256 in text


def test_a_game_deleted_while_its_file_was_written_leaves_no_file(
    player: Player, monkeypatch: pytest.MonkeyPatch, archive_dir: Path
) -> None:
    game = won_game(player)
    store = archiving._file_store

    def store_then_the_player_deletes_their_data(**kwargs: Any) -> None:
        store(**kwargs)
        Game.objects.filter(pk=game.pk).delete()  # committed before the archive's transaction

    monkeypatch.setattr(archiving, "_file_store", store_then_the_player_deletes_their_data)

    assert archive_now().archived == 0
    assert not (archive_dir / archive.archive_name(game.pk)).exists()


@pytest.mark.parametrize("deletion", ["data", "account"])
def test_a_deletion_counts_the_events_of_archived_games_as_before_archiving(
    make_player: Any, deletion: str
) -> None:
    """The events a deletion answers it removed are the same whether the logs were archived
    (their files go) or still in the table; so are the staff's counts before closing it."""
    path = "/api/v1/me/data/" if deletion == "data" else "/api/v1/me/"

    def counted(*, archived: bool) -> tuple[int, int]:
        player = make_player()
        events = won_game(player).version
        if archived:
            archive_now()
        user = User.objects.get(email=player.email)
        staff_counts = player_selectors.account_deletion_counts(user=user)
        response = player.client.delete(path)
        assert response.status_code == 200, response.content
        assert staff_counts["events"] == response.json()["deleted"]["events"]
        return events, response.json()["deleted"]["events"]

    events, deleted = counted(archived=True)
    assert deleted == events
    assert counted(archived=False) == (events, deleted)
