"""Problem details in the request's language (docs/api.md, "Languages"): the title, the detail
and the validation messages in French for a French Accept-Language or an account that chose
French (with its browser session), English otherwise; code, type, details and field names the
same words in every language; Content-Language says which."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.api.conftest import Player

FRENCH = {"Accept-Language": "fr-FR,fr;q=0.9"}


def problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    return body


def test_a_problem_is_in_french_for_a_french_browser_and_its_code_is_not(player: Player) -> None:
    path = f"/api/v1/games/{uuid.uuid4()}/"
    english = player.get(path)
    french = player.get(path, **FRENCH)
    assert english["Content-Language"] == "en"
    assert french["Content-Language"] == "fr"
    assert "Accept-Language" in french["Vary"]
    english_body, french_body = problem(english, 404), problem(french, 404)
    assert (english_body["title"], french_body["title"]) == ("Not found", "Introuvable")
    assert french_body["detail"] == "pas de telle partie"
    for field in ("code", "type", "status"):
        assert english_body[field] == french_body[field]


def test_a_refused_move_is_worded_in_french_from_its_details(player: Player) -> None:
    game = player.new_game(seed=42)
    # A card that is face down (or in the stock) cannot move: the same refusal in each language.
    hidden = next(code for code in _every_card() if not _face_up(game, code))
    english = problem(player.command(game["id"], {"type": "move", "card": hidden}), 422)
    french = problem(player.command(game["id"], {"type": "move", "card": hidden}, **FRENCH), 422)
    assert english["code"] == french["code"] == "illegal_move"
    assert english["details"] == french["details"] == {"reason": "not_face_up", "card": hidden}
    assert english["detail"] == f"{hidden} is not face up on the table"
    assert french["detail"] == f"{hidden} n'est pas face visible sur la table"
    assert french["title"] == "Ce coup n'est pas permis"


def test_validation_messages_are_translated_under_untranslated_field_names(player: Player) -> None:
    body = problem(player.post("/api/v1/games/", {"crad": 1}, **FRENCH), 400)
    assert body["code"] == "validation_error"
    assert body["errors"] == {"crad": ["champ inconnu"]}
    assert body["title"] == "La requête n'est pas valide"


def test_an_engine_error_without_details_is_said_by_its_code_in_french(player: Player) -> None:
    game = player.new_game(seed=7)
    body = problem(player.command(game["id"], {"type": "undo"}, **FRENCH), 422)
    assert body["code"] == "nothing_to_undo"
    assert body["detail"] == "rien à annuler\u00a0: c'est la donne telle que distribuée"


def test_the_language_is_a_setting_of_the_account(player: Player) -> None:
    assert player.get("/api/v1/me/").json()["language"] == ""
    answer = player.client.patch("/api/v1/me/", {"language": "fr"}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["language"] == "fr"
    assert player.get("/api/v1/me/").json()["language"] == "fr"
    refused = problem(
        player.client.patch("/api/v1/me/", {"language": "de"}, format="json", headers=FRENCH),
        400,
    )
    assert refused["errors"] == {
        "language": ["Choisissez une des langues du site, ou rien pour suivre celle du navigateur."]
    }
    empty = problem(player.client.patch("/api/v1/me/", {}, format="json"), 400)
    assert empty["code"] == "validation_error"
    # A name and a language at once, or either alone: the other is left as it was.
    both = player.client.patch(
        "/api/v1/me/", {"display_name": "Ann Lee", "language": ""}, format="json"
    )
    assert (both.json()["display_name"], both.json()["language"]) == ("Ann Lee", "")
    assert (
        player.client.patch("/api/v1/me/", {"language": "en"}, format="json").json()["display_name"]
        == "Ann Lee"
    )


def test_the_accounts_language_wins_in_its_browser_session_only(player: Player) -> None:
    player.client.patch("/api/v1/me/", {"language": "fr"}, format="json")
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    browser.force_login(User.objects.get(email=player.email))
    missing = f"/api/v1/games/{uuid.uuid4()}/"
    answer = browser.get(missing)
    assert answer["Content-Language"] == "fr"
    assert answer.json()["title"] == "Introuvable"
    # The app client's session token (as an SDK sends it) follows its own Accept-Language.
    assert player.get(missing)["Content-Language"] == "en"
    assert player.get(missing, **FRENCH).json()["title"] == "Introuvable"


def test_a_guest_may_choose_a_language(db: None) -> None:
    guest = Client()
    assert guest.post("/api/v1/guest/", content_type="application/json").status_code == 201
    answer = guest.patch("/api/v1/me/", {"language": "fr"}, content_type="application/json")
    assert answer.status_code == 200, answer.content
    assert guest.get("/stats/")["Content-Language"] == "fr"
    # A guest still has no name of its own: said in its language.
    refused = guest.patch("/api/v1/me/", {"display_name": "Ann"}, content_type="application/json")
    assert (
        problem(refused, 403)["detail"]
        == "Inscrivez-vous pour choisir un nom pour les classements."
    )


def test_a_problem_raised_before_the_session_is_read_follows_accept_language(db: None) -> None:
    """The body checks answer before the session and the account are known."""
    answer = Client().post(
        "/api/v1/games/", b"[" * 100, content_type="application/json", HTTP_ACCEPT_LANGUAGE="fr"
    )
    body = problem(answer, 400)
    assert body["code"] == "json_too_deep"
    assert body["title"] == "Le corps JSON est imbriqué trop profondément"
    assert answer["Content-Language"] == "fr"


def _every_card() -> list[str]:
    return [rank + suit for suit in "SHDC" for rank in "A23456789TJQK"]


def _face_up(game: dict[str, Any], code: str) -> bool:
    return any(code in column["cards"] for column in game["columns"])


@pytest.fixture(autouse=True)
def _english_default(settings: Any) -> None:
    assert settings.LANGUAGE_CODE == "en"


def test_achievements_are_named_in_french_and_their_codes_are_not(player: Player) -> None:
    english = player.get("/api/v1/achievements/").json()["achievements"]
    french = player.get("/api/v1/achievements/", **FRENCH).json()["achievements"]
    assert [a["code"] for a in english] == [a["code"] for a in french]
    named = {a["code"]: (a["title"], a["description"]) for a in french}
    assert named["first_win"] == ("Première victoire", "Gagner une partie.")
    assert named["win_wasp"] == ("Wasp gagné", "Gagner une partie de Wasp.")
    assert {a["code"]: a["title"] for a in english}["win_wasp"] == "Wasp won"


def test_a_social_refusal_is_in_french(player: Player) -> None:
    game = player.new_game(seed=42)
    refused = problem(player.post("/api/v1/challenges/", {"game": game["id"]}, **FRENCH), 409)
    assert refused["detail"] == (
        "terminez d'abord la partie\u00a0: un défi se crée à partir de son résultat"
    )
    unknown = problem(player.post("/api/v1/friends/", {"player": "Nobody#0000"}, **FRENCH), 404)
    assert unknown["detail"].startswith("aucun joueur ne porte ce nom")
