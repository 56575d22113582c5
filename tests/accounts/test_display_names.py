"""Display names cannot pass for a reserved name or for another player's: NFKC-normalised,
compared by their confusable skeleton (accounts/names.py), refused with a sentence.

The look-alike letters are written by their Unicode names: in the source they would look like
the Latin ones they imitate."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import pytest

from accounts.names import normalised, skeleton
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db

CYRILLIC_A = "\N{CYRILLIC SMALL LETTER A}"
CYRILLIC_CAPITAL_A = "\N{CYRILLIC CAPITAL LETTER A}"
CYRILLIC_E = "\N{CYRILLIC SMALL LETTER IE}"


def fullwidth(text: str) -> str:
    """The text in fullwidth forms (U+FF01-FF5E; the space as the ideographic space)."""
    return "".join("\u3000" if char == " " else chr(ord(char) + 0xFEE0) for char in text)


def set_name(player: Player, name: str) -> tuple[int, dict[str, object]]:
    response = player.client.patch("/api/v1/me/", {"display_name": name}, format="json")
    return response.status_code, response.json()


@pytest.mark.parametrize(
    "name",
    [
        fullwidth("Guest"),  # finding 11
        f"{CYRILLIC_A}dmin",  # finding 11
        "ADMIN",
        "\N{LATIN CAPITAL LETTER A WITH GRAVE}dmin",
        "Scorp1on",
        f"st{CYRILLIC_A}ff",
        f"Gu{CYRILLIC_E}st",
        "\N{GREEK CAPITAL LETTER ALPHA}DM\N{GREEK CAPITAL LETTER IOTA}\N{GREEK CAPITAL LETTER NU}",
    ],
)
def test_a_name_that_reads_as_a_reserved_one_is_refused_with_a_sentence(
    player: Player, name: str
) -> None:
    status, body = set_name(player, name)
    assert status == 400, body
    assert body["code"] == "validation_error"
    detail = str(body["detail"])
    assert not detail.startswith("display_name")
    assert detail.startswith("The name ")
    assert "reserved" in detail
    assert detail.endswith(".")
    assert body["errors"] == {"display_name": [detail]}


def test_a_malformed_names_error_is_a_sentence_too(player: Player) -> None:
    status, body = set_name(player, "two  spaces")
    assert status == 400
    assert str(body["detail"]).startswith("A display name has 1 to 30 letters")


def test_a_name_is_stored_nfkc_normalised(player: Player) -> None:
    status, body = set_name(player, fullwidth("Ann Lee"))
    assert (status, body["display_name"]) == (200, "Ann Lee")


def test_one_player_per_name_by_its_look(make_player: Callable[[], Player]) -> None:
    ann, other = make_player(), make_player()
    assert set_name(ann, "Ann Lee")[0] == 200
    for look_alike in (
        "Ann Lee",
        "ANN LEE",
        f"{CYRILLIC_CAPITAL_A}nn Lee",
        f"Ann L{CYRILLIC_E}{CYRILLIC_E}",
        fullwidth("Ann Lee"),
        "\N{LATIN CAPITAL LETTER A WITH CIRCUMFLEX}nn Lee",
    ):
        status, body = set_name(other, look_alike)
        assert status == 400, look_alike
        assert "taken" in str(body["detail"]), body
    # The owner may write their own name another way; once they drop it, it is free.
    assert set_name(ann, "ann lee")[0] == 200
    assert set_name(ann, "")[0] == 200
    assert set_name(other, "Ann Lee")[0] == 200
    assert set_name(ann, "Ann Lee2")[0] == 200  # a different name is fine


def test_the_skeleton() -> None:
    assert normalised(f" {fullwidth('Guest')} ") == "Guest"
    assert skeleton(fullwidth("Guest")) == skeleton("guest") == skeleton("GUEST")
    assert skeleton(f"{CYRILLIC_A}dmin") == skeleton("admin") == skeleton("adrnin")
    assert skeleton("ADMlN") == skeleton("admin")
    assert skeleton("Ann") != skeleton("Anne")


def test_the_migration_keeps_the_older_of_two_look_alikes_and_no_reserved_look_alike() -> None:
    from django.apps import apps
    from django.contrib.auth.models import User

    from accounts.models import Profile

    migration = importlib.import_module("accounts.migrations.0005_display_name_skeleton")
    for number, name in enumerate(["Ann", fullwidth("ANN"), fullwidth("Guest"), "Bob"]):
        user = User.objects.create_user(f"named{number}", f"named{number}@example.com")
        Profile.objects.create(user=user, display_name=name)  # as stored before the rule
    migration.fill_skeletons(apps, None)
    stored = list(Profile.objects.order_by("pk").values_list("display_name", "name_skeleton"))
    assert stored == [("Ann", skeleton("Ann")), ("", ""), ("", ""), ("Bob", skeleton("Bob"))]
