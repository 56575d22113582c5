"""The second language, French, is complete: every catalogue entry translated (none empty or
fuzzy), the committed .mo files say what the .po files say, every translatable string of the
sources is in the catalogue, and no page shows in French an English sentence it translates
(the missing-page and server-error pages too; allauth's own pages in allauth's French). Dates
and the web app manifest follow the language. The language is the account's choice when it
made one, else the browser's (docs/web.md, "Languages"). The pages for third-party apps are
checked in tests/site/test_languages_apps.py; what the scripts write in Chromium
(tests/web/test_languages.py)."""

from __future__ import annotations

import ast
import gettext
import re
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import allauth
import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.utils import timezone, translation
from django.views.defaults import server_error

from accounts.models import Profile
from games import services
from games.history import Command
from games.services import DealChoice
from social import services as social_services
from tests.conftest import require_service

ROOT = Path(__file__).resolve().parents[2]
MESSAGES = ROOT / "scorpion_site" / "locale" / "fr" / "LC_MESSAGES"
DOMAINS = ("django", "djangojs")
# The files makemessages must not read (docs/web.md, "Adding or changing a word"): the
# virtualenv, the English-only SDK, staff pages, the API's docs, tests and build output.
IGNORED = [
    ".venv",
    "client_sdk",
    "tests",
    "bench",
    "staticfiles",
    "build",
    "artifacts",
    "staff",
    "web/static/api_docs",
    "scorpion_site/templates/admin",
    "scorpion_site/templates/api_docs",
]


MONTHS_FR = [
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
]


@dataclass(frozen=True)
class Entry:
    context: str | None
    msgid: str
    plural: str | None
    strings: tuple[str, ...]
    fuzzy: bool


def catalogue(path: Path, *, fresh: bool = False) -> list[Entry]:
    """The entries of a .po file (the header left out; only a fresh one, as makemessages
    writes it, may have its header marked fuzzy)."""
    entries: list[Entry] = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        fields: dict[str, list[str]] = {}
        current: list[str] | None = None
        fuzzy = False
        for line in block.strip().splitlines():
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            match = re.match(r'(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) (".*")$', line)
            if match:
                current = fields.setdefault(match.group(1), [])
                current.append(ast.literal_eval(match.group(2)))
            elif line.startswith('"') and current is not None:
                current.append(ast.literal_eval(line))
        if "msgid" not in fields:
            continue
        joined = {key: "".join(parts) for key, parts in fields.items()}
        if joined["msgid"] == "":
            assert fresh or not fuzzy, (
                f"{path.name}: the header is marked fuzzy (msgfmt would skip it)"
            )
            continue
        strings = tuple(joined[key] for key in sorted(joined) if key.startswith("msgstr"))
        entries.append(
            Entry(
                joined.get("msgctxt"), joined["msgid"], joined.get("msgid_plural"), strings, fuzzy
            )
        )
    return entries


def french(domain: str) -> list[Entry]:
    return catalogue(MESSAGES / f"{domain}.po")


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_french_entry_is_translated_and_none_is_fuzzy(domain: str) -> None:
    entries = french(domain)
    assert len(entries) > 200, domain
    assert [e.msgid for e in entries if e.fuzzy] == []
    assert [e.msgid for e in entries if not all(s.strip() for s in e.strings)] == []
    assert [e.msgid for e in entries if e.plural is not None and len(e.strings) != 2] == []


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_committed_mo_file_says_what_the_po_file_says(domain: str) -> None:
    with (MESSAGES / f"{domain}.mo").open("rb") as compiled:
        translations = gettext.GNUTranslations(compiled)
    for entry in french(domain):
        if entry.plural is None:
            found = (
                translations.pgettext(entry.context, entry.msgid)
                if entry.context
                else (translations.gettext(entry.msgid))
            )
            assert found == entry.strings[0], entry.msgid
        else:
            # French: the singular for 0 and 1, the plural from 2 on.
            assert translations.ngettext(entry.msgid, entry.plural, 1) == entry.strings[0]
            assert translations.ngettext(entry.msgid, entry.plural, 2) == entry.strings[1]
    assert translations.info()["language"] == "fr"


def test_every_translatable_string_of_the_sources_is_in_the_catalogue(
    tmp_path: Path, settings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """makemessages, run afresh into another directory, finds exactly the committed entries:
    none left out (it would show in English), none left over."""
    # makemessages runs GNU gettext's xgettext: skipped on a laptop without it, a failure in CI
    # (.ci/run installs it).
    require_service("GNU gettext (xgettext)", shutil.which("xgettext") is not None)
    settings.LOCALE_PATHS = [tmp_path]  # type: ignore[attr-defined]
    monkeypatch.chdir(ROOT)
    for domain in DOMAINS:
        call_command(
            "makemessages",
            locale=["fr"],
            domain=domain,
            # makemessages sends a file to the "locale" folder it finds beside one of its
            # parent folders (scorpion_site/templates/...: the committed catalogue): skipped,
            # every file's entries go to tmp_path and the committed catalogue stays untouched.
            ignore_patterns=[*IGNORED, "scorpion_site/locale"],
            no_location=True,
            verbosity=0,
        )
        fresh = {
            (e.context, e.msgid)
            for e in catalogue(tmp_path / "fr/LC_MESSAGES" / f"{domain}.po", fresh=True)
        }
        committed = {(e.context, e.msgid) for e in french(domain)}
        assert sorted(fresh - committed, key=str) == [], f"{domain}: not in the catalogue"
        assert sorted(committed - fresh, key=str) == [], f"{domain}: no longer in the sources"


class VisibleText(HTMLParser):
    """A page's text as a reader meets it: text nodes and the attributes read out (aria-label,
    title, placeholder, alt, and the question a form asks before it is sent), not scripts,
    styles or embedded data."""

    READ_OUT = ("aria-label", "title", "placeholder", "alt", "data-confirm", "data-confirm-label")

    def __init__(self) -> None:
        super().__init__()
        self.pieces: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "template"):
            self._skipping += 1
        for name, value in attrs:
            if name in self.READ_OUT and value:
                self.pieces.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "template") and self._skipping:
            self._skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self._skipping and data.strip():
            self.pieces.append(data)


def normalised(text: str) -> str:
    return " ".join(text.split())


def visible_pieces(html: str) -> list[str]:
    parser = VisibleText()
    parser.feed(html)
    return [normalised(piece) for piece in parser.pieces]


def untranslated(pieces: list[str], entries: list[Entry]) -> list[str]:
    """The English sentences of ``entries`` (those French translates otherwise) that the text
    still shows: a whole piece equal to one, or, for a sentence of four words or more, found
    inside the text. A short word ("Play", "of") is only caught alone: "Scorpion" or "Deal"
    may be part of a French sentence's proper names or codes."""
    text = " ".join(pieces)
    whole = set(pieces)
    found = []
    for entry in entries:
        english = normalised(re.sub(r"<[^>]+>", "", entry.msgid))
        if any(normalised(s) == english for s in entry.strings) or "%(" in english:
            continue
        if english in whole or (len(english.split()) >= 4 and english in text):
            found.append(english)
    return found


@dataclass
class Accounts:
    player: Client
    guest: Client
    visitor: Client
    game_id: str
    challenge_id: str


@pytest.fixture
def accounts(db: None) -> Accounts:
    user = User.objects.create_user("ann", "ann@example.com", "a long password 42")
    Profile.objects.get_or_create(user=user)
    game = services.game_create(owner=user, choice=DealChoice(mode="seeded", seed=42))
    for command in (Command("deal"), Command("undo")):
        services.game_execute_command(owner=user, game_id=game.pk, command=command)
    player = Client(HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9,en;q=0.5")
    player.force_login(user)
    guest = Client(HTTP_ACCEPT_LANGUAGE="fr")
    assert guest.post("/api/v1/guest/", content_type="application/json").status_code == 201
    finished = services.game_create(owner=user, choice=DealChoice(mode="seeded", seed=7))
    services.game_execute_command(owner=user, game_id=finished.pk, command=Command("resign"))
    challenge = social_services.challenge_create(creator=user, game_id=finished.pk)
    visitor = Client(HTTP_ACCEPT_LANGUAGE="fr")
    return Accounts(player, guest, visitor, str(game.pk), str(challenge.pk))


def pages(accounts: Accounts) -> Iterator[tuple[str, Client]]:
    for path in ("/", "/account/password/reset/", "/account/password/reset/k-e-y/"):
        yield path, accounts.visitor
    yield "/account/verify-email/abc/", accounts.visitor
    for path in ("/", "/daily/", "/daily/calendar/", "/stats/", "/history/", "/account/"):
        yield path, accounts.player
    yield "/friends/", accounts.player
    yield f"/challenges/{accounts.challenge_id}/", accounts.player
    yield f"/play/{accounts.game_id}/", accounts.player
    yield f"/history/{accounts.game_id}/", accounts.player
    for path in ("/", "/account/", f"/challenges/{accounts.challenge_id}/"):
        yield path, accounts.guest


def assert_reads_french(response: HttpResponse, what: str, *, status: int = 200) -> str:
    """The page is French: said so, with the scripts' French catalogue, no English sentence
    the catalogue translates and no template syntax left as text. Its HTML."""
    assert response.status_code == status, (what, response.status_code)
    assert response["Content-Language"] == "fr", what
    html = response.content.decode()
    assert '<html lang="fr">' in html, what
    assert '<script src="/jsi18n/fr/"></script>' in html, what
    pieces = visible_pieces(html)
    assert untranslated(pieces, french("django")) == [], what
    # No template syntax left as text (a {# comment #} spans one line only).
    assert [piece for piece in pieces if "{#" in piece or "{%" in piece] == [], what
    # The page is French indeed: not an English page with no catalogued sentence.
    assert "Aller au contenu" in html, what
    return html


def test_no_page_shows_an_english_sentence_in_french(accounts: Accounts) -> None:
    for path, client in pages(accounts):
        assert_reads_french(client.get(path), path)


def test_the_calendar_names_its_month_in_the_pages_language(accounts: Accounts) -> None:
    """The month's heading is Django's YEAR_MONTH_FORMAT in the page's language (the script
    names the months it moves to with the browser's Intl in that language too)."""
    today = timezone.now().date()
    french_page = assert_reads_french(accounts.player.get("/daily/calendar/"), "calendar")
    month = MONTHS_FR[today.month - 1]
    assert f'<h2 id="month-title">{month} {today.year}</h2>' in french_page
    english = Client(HTTP_ACCEPT_LANGUAGE="en")
    english.force_login(User.objects.get(username="ann"))
    heading = f'<h2 id="month-title">{today:%B %Y}</h2>'
    assert heading in english.get("/daily/calendar/").content.decode()


def allauth_french() -> list[Entry]:
    """allauth's own French catalogue (the entries its .mo holds: none fuzzy)."""
    po = Path(allauth.__file__).parent / "locale" / "fr" / "LC_MESSAGES" / "django.po"
    return [entry for entry in catalogue(po, fresh=True) if not entry.fuzzy]


def test_allauths_own_pages_read_french_from_allauths_catalogue(db: None) -> None:
    """The stock pages allauth still serves (the staff's log-in form, the note after a
    sign-up) are in its own French; the players' pages for the rest are the web client's."""
    visitor = Client(HTTP_ACCEPT_LANGUAGE="fr")
    for path, words in (
        ("/accounts/login/", "Mot de passe oublié"),
        ("/accounts/confirm-email/", "Vérifiez votre adresse e-mail"),
    ):
        response = visitor.get(path)
        assert response.status_code == 200, path
        assert response["Content-Language"] == "fr", path
        html = response.content.decode()
        assert words in html, path
        assert untranslated(visible_pieces(html), allauth_french()) == [], path
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get("/accounts/login/").content.decode()
    assert "Forgot your password?" in untranslated(visible_pieces(english), allauth_french())


def test_the_offline_page_is_in_the_browsers_language(db: None) -> None:
    """The page the service worker keeps for a page never opened (no script, no header)."""
    response = Client(HTTP_ACCEPT_LANGUAGE="fr").get("/offline/")
    html = response.content.decode()
    assert response["Content-Language"] == "fr"
    assert '<html lang="fr">' in html
    assert "Pas de réseau" in html
    assert untranslated(visible_pieces(html), french("django")) == []


def test_the_web_app_manifest_describes_the_app_in_the_browsers_language(db: None) -> None:
    """What a browser's install prompt shows."""
    french_manifest = Client(HTTP_ACCEPT_LANGUAGE="fr").get("/manifest.webmanifest")
    assert french_manifest["Content-Language"] == "fr"
    assert french_manifest.json()["lang"] == "fr"
    assert "défi du jour" in french_manifest.json()["description"]
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get("/manifest.webmanifest").json()
    assert (english["lang"], english["description"]) == (
        "en",
        "Scorpion Solitaire: play, replay and the daily challenge.",
    )


def test_a_missing_page_and_a_server_error_are_in_the_browsers_language(
    accounts: Accounts, rf: RequestFactory
) -> None:
    """Django's own 404 and 500 pages would be English whatever the language: ours are not."""
    for path in ("/no-such-page/", f"/developers/apps/{uuid.uuid4().hex}/"):
        response = accounts.player.get(path)
        assert response.status_code == 404, path
        assert response["Content-Language"] == "fr", path
        html = response.content.decode()
        assert '<html lang="fr">' in html, path
        assert "Page introuvable" in html, path
        assert untranslated(visible_pieces(html), french("django")) == [], path
    with translation.override("fr"):
        html = server_error(rf.get("/")).content.decode()
    assert '<html lang="fr">' in html
    assert "Une erreur est survenue de notre côté" in html
    assert untranslated(visible_pieces(html), french("django")) == []


def test_the_same_pages_in_english_show_the_english_sentences(accounts: Accounts) -> None:
    """The check above can fail: in English, the catalogue's sentences are all there."""
    english = Client(HTTP_ACCEPT_LANGUAGE="en")
    html = english.get("/").content.decode()
    assert '<html lang="en">' in html
    assert "No sign-up needed: you play as a guest." in untranslated(
        visible_pieces(html), french("django")
    )


def test_the_accounts_language_wins_over_the_browsers(accounts: Accounts) -> None:
    user = User.objects.get(username="ann")
    english_browser = Client(HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9")
    english_browser.force_login(user)
    assert english_browser.get("/")["Content-Language"] == "en"
    answer = english_browser.patch(
        "/api/v1/me/", {"language": "fr"}, content_type="application/json"
    )
    assert answer.status_code == 200, answer.content
    assert answer.json()["language"] == "fr"
    page = english_browser.get("/stats/")
    assert page["Content-Language"] == "fr"
    assert "Vos statistiques" in page.content.decode()
    # Back to the browser's choice.
    english_browser.patch("/api/v1/me/", {"language": ""}, content_type="application/json")
    assert english_browser.get("/stats/")["Content-Language"] == "en"


def test_the_scripts_catalogue_is_a_script_file_per_language(db: None) -> None:
    french_words = Client().get("/jsi18n/fr/")
    assert french_words.status_code == 200
    assert french_words["Content-Type"].startswith("text/javascript")
    assert "la dame" in french_words.content.decode()
    assert "'unsafe-inline'" not in french_words.get("Content-Security-Policy", "")
    english = Client().get("/jsi18n/en/").content.decode()
    assert "la dame" not in english
    assert Client().get("/jsi18n/xx/").status_code == 404
