"""PATCH /api/v1/me/ {"deck"}: the card faces the web client draws, a setting of the account."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import sign_up

pytestmark = pytest.mark.django_db


def test_a_player_chooses_the_four_colour_deck_and_keeps_their_name() -> None:
    player = sign_up("deck-chooser@example.com")
    assert player.get("/api/v1/me/").json()["deck"] == "classic"
    named = player.client.patch("/api/v1/me/", {"display_name": "Ann"}, format="json")
    assert named.status_code == 200, named.content
    answer = player.client.patch("/api/v1/me/", {"deck": "four_colour"}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["deck"] == "four_colour"
    assert answer.json()["display_name"] == "Ann"
    assert player.get("/api/v1/me/").json()["deck"] == "four_colour"


def test_an_unknown_deck_is_refused_and_changes_nothing() -> None:
    player = sign_up("deck-refused@example.com")
    answer = player.client.patch("/api/v1/me/", {"deck": "tarot"}, format="json")
    assert answer.status_code == 400
    assert answer.json()["code"] == "validation_error"
    assert player.get("/api/v1/me/").json()["deck"] == "classic"


def test_a_refused_name_leaves_the_deck_as_it_was() -> None:
    player = sign_up("deck-name-refused@example.com")
    answer = player.client.patch(
        "/api/v1/me/", {"display_name": "Admin", "deck": "four_colour"}, format="json"
    )
    assert answer.status_code == 400
    assert player.get("/api/v1/me/").json()["deck"] == "classic"


def test_a_guest_chooses_a_deck_too() -> None:
    client = APIClient()
    assert client.post("/api/v1/guest/").status_code == 201
    answer = client.patch("/api/v1/me/", {"deck": "four_colour"}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["deck"] == "four_colour"
