"""The admin pages of the newer models: achievements (derived: read-only, never deleted on their
own) and what players share (challenges, friendships, invites, blocks: shown, never edited)."""

from __future__ import annotations

import datetime

import pytest
from django.db.models import Model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from achievements.models import Achievement
from social.models import Block, Challenge, ChallengeAttempt, Friendship, Invite
from tests.admin.conftest import WON, make_user, new_game, play

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows() -> dict[str, Model]:
    ann, bob = make_user("ann@example.com"), make_user("bob@example.com")
    game = play(ann, new_game(ann, code=WON[0]["code"]), WON[0]["line"])
    challenge = Challenge.objects.create(
        creator=ann, source_game=game, variant=game.variant, deal_code=game.deal_code
    )
    attempt_game = new_game(bob, code=WON[0]["code"])
    ChallengeAttempt.objects.create(challenge=challenge, player=bob, game=attempt_game)
    return {
        "challenge": challenge,
        "friendship": Friendship.objects.create(
            requester=ann, addressee=bob, low=min(ann.pk, bob.pk), high=max(ann.pk, bob.pk)
        ),
        "invite": Invite.objects.create(
            inviter=ann, expires_at=timezone.now() + datetime.timedelta(days=1)
        ),
        "block": Block.objects.create(blocker=bob, blocked=ann),
        # Earned by the win, as every achievement is (achievements.services).
        "achievement": Achievement.objects.get(user=ann, code="first_win"),
    }


def _url(obj: Model, view: str) -> str:
    meta = obj._meta
    args = [] if view in ("changelist", "add") else [obj.pk]
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}", args=args)


@pytest.mark.parametrize("key", ["challenge", "friendship", "invite", "block", "achievement"])
def test_staff_see_each_list_and_page_read_only(
    admin_client: Client, rows: dict[str, Model], key: str
) -> None:
    obj = rows[key]
    listing = admin_client.get(_url(obj, "changelist"))
    assert listing.status_code == 200
    assert "ann@example.com" in listing.content.decode()
    page = admin_client.get(_url(obj, "change"))
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    assert admin_client.get(_url(obj, "add")).status_code == 403


def test_a_challenge_page_shows_who_played_it(admin_client: Client, rows: dict[str, Model]) -> None:
    body = admin_client.get(_url(rows["challenge"], "change")).content.decode()
    assert "bob@example.com" in body


def test_players_are_found_by_display_name_or_address(
    admin_client: Client, rows: dict[str, Model]
) -> None:
    response = admin_client.get(_url(rows["friendship"], "changelist"), {"q": "bob@example"})
    assert list(response.context["cl"].result_list) == [rows["friendship"]]


def test_achievements_are_never_deleted_on_their_own(
    admin_client: Client, rows: dict[str, Model]
) -> None:
    achievement = rows["achievement"]
    assert admin_client.post(_url(achievement, "delete"), {"post": "yes"}).status_code == 403
    assert Achievement.objects.filter(pk=achievement.pk).exists()
