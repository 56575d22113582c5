"""The events list: a game's id is searched through the index on ``game_id`` (never a text
comparison of every row), and the list counts and pages through a bounded number of rows."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Game, GameEvent
from infrastructure import admin_paging
from tests.admin.conftest import WON, make_user, new_game, play

pytestmark = pytest.mark.django_db

EVENTS = reverse("admin:games_gameevent_changelist")


@pytest.fixture
def games() -> list[Game]:
    owner = make_user("owner@example.com")
    return [
        play(owner, new_game(owner, code=WON[index]["code"]), WON[index]["line"][:4])
        for index in range(2)
    ]


def _event_queries(queries: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in queries.captured_queries if "games_gameevent" in query["sql"]]


def test_a_game_id_is_searched_as_a_uuid_through_the_index(
    admin_client: Client, games: list[Game]
) -> None:
    game = games[1]
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(EVENTS, {"q": f"  {game.pk}  "})
    assert response.status_code == 200
    found = list(response.context["cl"].result_list)
    assert found
    assert {event.game_id for event in found} == {game.pk}
    sql = _event_queries(queries)
    assert sql
    for statement in sql:
        assert "UPPER" not in statement.upper()
        assert "::text" not in statement
        assert "LIKE" not in statement.upper()
    assert any('"games_gameevent"."game_id" = ' in statement for statement in sql)


def test_a_search_that_is_no_game_id_finds_nothing(admin_client: Client, games: list[Game]) -> None:
    for term in ("not-a-uuid", str(games[0].pk)[:8]):
        response = admin_client.get(EVENTS, {"q": term})
        assert response.status_code == 200
        assert list(response.context["cl"].result_list) == []


def test_the_events_list_counts_and_pages_a_bounded_number_of_rows(
    admin_client: Client, games: list[Game], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(admin_paging, "CAP", 3)
    monkeypatch.setattr(admin.site.get_model_admin(GameEvent), "list_per_page", 2, raising=False)
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(EVENTS)
    assert response.status_code == 200
    assert response.context["cl"].result_count == 3
    counts = [sql for sql in _event_queries(queries) if "COUNT(" in sql.upper()]
    assert counts
    assert all("LIMIT 3" in sql for sql in counts)
    # Three rows, two a page: page 2 is the last one offered; a deeper page is refused like a
    # bad page number.
    assert admin_client.get(EVENTS, {"p": 2}).status_code == 200
    deep = admin_client.get(EVENTS, {"p": 3})
    assert deep.status_code == 302
    assert "e=1" in deep["Location"]


def test_the_games_event_link_filters_through_the_foreign_key(
    admin_client: Client, games: list[Game]
) -> None:
    game = games[0]
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(EVENTS, {"game__id__exact": str(game.pk)})
    assert {event.game_id for event in response.context["cl"].result_list} == {game.pk}
    assert all("UPPER" not in sql.upper() for sql in _event_queries(queries))


def test_a_whole_game_id_is_looked_up_by_the_primary_key(
    admin_client: Client, games: list[Game]
) -> None:
    game = games[0]
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(reverse("admin:games_game_changelist"), {"q": str(game.pk)})
    assert list(response.context["cl"].result_list) == [game]
    statements = [
        query["sql"] for query in queries.captured_queries if "games_game" in query["sql"]
    ]
    assert statements
    assert all("UPPER" not in sql.upper() for sql in statements)
