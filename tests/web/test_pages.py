"""The web client's pages and files, without a browser (these run everywhere)."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.contrib.staticfiles import finders
from django.test import Client

from games.engine.variants import get_variant
from games.variants import variant_summary

WEB = Path(__file__).resolve().parents[2] / "web"
# The home page is the web app's too (web/templates/home.html), found by the glob.
TEMPLATES = sorted((WEB / "templates").rglob("*.html"))
SCRIPTS = sorted((WEB / "static").rglob("*.js"))
STYLES = sorted((WEB / "static").rglob("*.css"))
# Game ids nobody has, fixed: pytest-xdist's workers must collect the same test ids.
PLAY_ID, HISTORY_ID = (uuid.uuid5(uuid.NAMESPACE_URL, page) for page in ("play", "history"))
PAGES = [
    "/daily/",
    "/daily/calendar/",
    "/stats/",
    "/history/",
    f"/play/{PLAY_ID}/",
    f"/history/{HISTORY_ID}/",
]


@pytest.fixture
def player(db: None) -> Client:
    client = Client()
    client.force_login(User.objects.create_user("p", "p@example.com", "a long password 42"))
    return client


def test_home_offers_the_forms_and_sets_the_csrf_cookie(db: None) -> None:
    client = Client()
    response = client.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="login-form"' in body
    assert 'id="signup-form"' in body
    assert 'id="lobby"' not in body
    assert "csrftoken" in response.cookies


def test_home_is_the_lobby_for_a_player(player: Client) -> None:
    body = player.get("/").content.decode()
    assert 'id="lobby"' in body
    assert "p@example.com" in body
    assert 'id="logout"' in body
    assert 'id="login-form"' not in body


@pytest.mark.parametrize("path", PAGES)
def test_pages_send_visitors_to_log_in_and_back(db: None, path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 302
    assert response["Location"] == "/?next=" + path.replace("/", "%2F")


@pytest.mark.parametrize("path", PAGES)
def test_pages_render_for_a_player_with_the_csrf_cookie(player: Client, path: str) -> None:
    response = player.get(path)
    assert response.status_code == 200
    assert "csrftoken" in response.cookies
    assert b'type="importmap"' in response.content


@pytest.mark.parametrize("path", ["/", *PAGES])
def test_every_page_embeds_the_variants_as_the_api_lists_them_with_their_help(
    player: Client, path: str
) -> None:
    # The scripts read each variant's layout from here (decks, stock, reserve), never from a
    # list of names of their own: a new variant of the registry needs no script change.
    body = player.get(path).content.decode()
    found = re.search(
        r'<script id="variants-data" type="application/json">(.*?)</script>', body, re.S
    )
    assert found is not None, path
    embedded = json.loads(found.group(1))
    listed = player.get("/api/v1/variants/").json()
    # The API lists the variants offered for new games; the pages know the one kept for the
    # games begun in it too (such a game is still shown by its layout).
    assert list(embedded) == [variant["name"] for variant in listed] + ["double-scorpion-3-2"]
    for variant in [*listed, variant_summary(get_variant("double-scorpion-3-2"))]:
        facts = embedded[variant["name"]]
        assert {key: facts[key] for key in variant} == variant
        # Its own help, not the title it would fall back to.
        assert variant["title"] in facts["how_to_play"] or variant["name"] == "scorpion"
        assert len(facts["how_to_play"]) > 100


def test_no_script_names_a_variant_to_know_its_layout() -> None:
    for script in SCRIPTS:
        text = script.read_text()
        for name in ("three-blind-mice", "double-scorpion", "scorpion-tail"):
            assert f'"{name}"' not in text, (script.name, name)


def test_play_page_carries_the_game_id(player: Client) -> None:
    game_id = uuid.uuid4()
    body = player.get(f"/play/{game_id}/").content.decode()
    assert f'data-game-id="{game_id}"' in body


def test_every_module_import_is_in_the_import_map() -> None:
    """Modules import each other by bare names; each must be mapped to its static file."""
    base = (WEB / "templates" / "web" / "base.html").read_text()
    mapped = dict(re.findall(r'"(scorpion/[\w.-]+)": "\{% static \'([\w/.-]+)\' %\}"', base))
    assert mapped, "no import map found"
    for name, path in mapped.items():
        assert finders.find(path), f"{name} maps to a missing file {path}"
    for script in SCRIPTS:
        for spec in re.findall(r'from "([^"]+)"', script.read_text()):
            assert spec in mapped, f"{script.name} imports {spec}, which the import map lacks"


def test_templates_name_only_files_that_exist() -> None:
    for template in TEMPLATES:
        for path in re.findall(r"\{% static '([^']+)' %\}", template.read_text()):
            assert finders.find(path), f"{template.name} names a missing static file {path}"


def test_nothing_is_loaded_from_another_site() -> None:
    """No CDN: every script, style, font and image is served by the app itself."""
    external = re.compile(r"""(?:src|href|url\(|import|from)\s*=?\s*["']?(?:https?:)?//""")
    for path in [*TEMPLATES, *SCRIPTS, *STYLES]:
        text = path.read_text()
        assert not external.search(text), f"{path.name} loads something from another site"


def test_the_leaderboards_date_box_goes_up_to_today_utc(player: Client) -> None:
    from django.utils import timezone

    today = timezone.now().date().isoformat()
    body = player.get("/daily/").content.decode()
    box = re.search(r'<input type="date" id="day"[^>]*>', body)
    assert box is not None
    assert f'max="{today}"' in box.group()
