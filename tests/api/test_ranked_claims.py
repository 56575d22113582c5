"""One ranked daily attempt a day, whatever is deleted (issue 25, finding 1): the attempt is
claimed in a ledger no deletion of the player's data or account reaches
(games.models.RankedDailyClaim)."""

from __future__ import annotations

import datetime
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction

from games import services
from games.models import Game, RankedDailyClaim
from tests.api.conftest import Player, sign_up
from tests.api.test_event_store import race
from tests.api.test_guests import AUTH, PASSWORD, guest_browser
from tests.conftest import require_service
from tests.stats.test_api import play_to_win

pytestmark = pytest.mark.django_db


def _ranked_attempt_then_practice_win(player: Player) -> None:
    first = player.new_game(mode="daily")
    assert first["ranked"] is True
    assert player.command(first["id"], {"type": "resign"}).status_code == 200
    practice = player.new_game(mode="daily")
    assert practice["ranked"] is False
    play_to_win(player, practice["id"])  # every card seen, and a winning line


def test_deleting_your_data_gives_no_new_ranked_daily(
    make_player: Callable[[], Player], today: datetime.date
) -> None:
    player = make_player()
    _ranked_attempt_then_practice_win(player)
    deleted = player.client.delete("/api/v1/me/data/")
    assert deleted.status_code == 200, deleted.content
    assert deleted.json()["deleted"]["games"] == 2

    daily = player.get("/api/v1/daily/").json()
    assert (daily["ranked_game"], daily["ranked_available"]) == (None, False)
    again = player.new_game(mode="daily")
    assert again["ranked"] is False
    play_to_win(player, again["id"])
    board = player.get(f"/api/v1/daily/{today.isoformat()}/leaderboard/").json()
    assert (board["count"], board["me"]) == (0, None)


@pytest.mark.parametrize(
    "address_again", ["fair@example.com", " Fair@Example.COM", "fair+again@example.com"]
)
def test_deleting_your_account_and_signing_up_again_gives_no_new_ranked_daily(
    today: datetime.date, address_again: str
) -> None:
    player = sign_up("fair@example.com")
    _ranked_attempt_then_practice_win(player)
    assert player.client.delete("/api/v1/me/").status_code == 200

    same_person = sign_up(address_again.strip())
    again = same_person.new_game(mode="daily")
    assert again["ranked"] is False


def test_a_guest_who_ranked_signed_up_and_deleted_the_account_gets_no_new_ranked_daily(
    today: datetime.date,
) -> None:
    # The guest's ranked attempt claimed its account only (a guest has no e-mail); the address
    # it signed up with later is claimed when the account is deleted.
    browser, _me = guest_browser()
    ranked = browser.post("/api/v1/games/", {"mode": "daily"}).json()
    assert ranked["ranked"] is True
    signed_up = browser.post(
        f"{AUTH}/auth/signup", {"email": "guest.first@example.com", "password": PASSWORD}
    )
    assert signed_up.status_code == 200, signed_up.content
    assert browser.send("delete", "/api/v1/me/").status_code == 200

    same_person = sign_up("Guest.First+again@example.com")
    assert same_person.get("/api/v1/daily/").json()["ranked_available"] is False
    assert same_person.new_game(mode="daily")["ranked"] is False


def test_another_player_still_gets_their_ranked_daily(
    make_player: Callable[[], Player], today: datetime.date
) -> None:
    _ranked_attempt_then_practice_win(make_player())
    other = make_player()
    assert other.get("/api/v1/daily/").json()["ranked_available"] is True
    assert other.new_game(mode="daily")["ranked"] is True
    assert other.get("/api/v1/daily/").json()["ranked_available"] is False


def test_the_ledger_keeps_no_address_and_only_until_the_day_can_no_longer_rank(
    today: datetime.date,
) -> None:
    player = sign_up("ledger@example.com")
    player.new_game(mode="daily")
    claims = list(RankedDailyClaim.objects.values_list("identity", "day"))
    assert len(claims) == 2  # the account, and the e-mail address
    assert all(day == today and "example" not in identity for identity, day in claims)

    assert services.ranked_claims_purge(today=today + datetime.timedelta(days=1)) == 0
    assert services.ranked_claims_purge(today=today + datetime.timedelta(days=2)) == 2


def test_one_claim_per_identity_and_day_in_the_database(today: datetime.date) -> None:
    RankedDailyClaim.objects.create(identity="a" * 64, day=today)
    with pytest.raises(IntegrityError), transaction.atomic():
        RankedDailyClaim.objects.create(identity="a" * 64, day=today)


def test_two_accounts_of_one_mailbox_share_the_ranked_attempt(today: datetime.date) -> None:
    sign_up("twin@example.com").new_game(mode="daily")
    assert sign_up("twin+other@example.com").new_game(mode="daily")["ranked"] is False


@pytest.mark.django_db(transaction=True)
def test_racing_first_attempts_of_one_mailbox_leave_one_ranked(today: datetime.date) -> None:
    if connection.vendor != "postgresql":
        require_service("PostgreSQL", False)
    for round_ in range(4):
        # Two accounts of one mailbox (the claims' e-mail identity is shared), starting the
        # day's daily at the same moment: the unique claim lets one rank, the other practise.
        owners = [
            User.objects.create_user(f"r{round_}{n}", f"racer{round_}+{n}@example.com")
            for n in range(2)
        ]
        results = race(
            [
                lambda owner=owner: services.game_create(
                    owner=owner, choice=services.DealChoice(mode="daily")
                )
                for owner in owners
            ]
        )
        assert all(isinstance(game, Game) for game in results), results
        assert sorted(game.ranked for game in results) == [False, True]


def test_a_guest_who_ranked_then_signed_up_shares_the_attempt_with_its_mailbox(
    today: datetime.date,
) -> None:
    # The guest's ranked attempt claimed its account only; signing up gives it an address,
    # which claims the day at once: another account of the mailbox then plays practice.
    browser, _me = guest_browser()
    assert browser.post("/api/v1/games/", {"mode": "daily"}).json()["ranked"] is True
    signed_up = browser.post(
        f"{AUTH}/auth/signup", {"email": "mbox@example.com", "password": PASSWORD}
    )
    assert signed_up.status_code == 200, signed_up.content
    assert sign_up("mbox+twin@example.com").new_game(mode="daily")["ranked"] is False


def test_a_guest_signing_up_with_an_address_that_had_the_days_ranked_attempt_plays_practice(
    today: datetime.date,
) -> None:
    # An account ranks, is deleted (its address keeps the claim), and the same person ranks
    # again as a guest, then signs up with that address: the guest's attempt was the
    # mailbox's second of the day, so it is practice, off the board and in daily_practice.
    first = sign_up("again@example.com")
    assert first.new_game(mode="daily")["ranked"] is True
    assert first.client.delete("/api/v1/me/").status_code == 200
    browser, _me = guest_browser()
    game = browser.post("/api/v1/games/", {"mode": "daily"}).json()
    assert game["ranked"] is True
    browser.play_to_win(game["id"])
    signed_up = browser.post(
        f"{AUTH}/auth/signup", {"email": "Again@example.com", "password": PASSWORD}
    )
    assert signed_up.status_code == 200, signed_up.content
    assert browser.get(f"/api/v1/games/{game['id']}/").json()["ranked"] is False
    board = browser.get(f"/api/v1/daily/{today.isoformat()}/leaderboard/").json()
    assert (board["count"], board["me"]) == (0, None)
    modes = browser.get("/api/v1/stats/").json()["modes"]
    assert (modes["daily"]["won"], modes["daily_practice"]["won"]) == (0, 1)
