"""Computing the fair-play signals of a won ranked daily (docs/fair-play.md).

``game_finished`` is one of ``settings.GAME_FINISHED_HOOKS``: the command that wins a ranked
daily calls it in its transaction, so a review exists for every such win, or for none if the
command rolls back. It costs a few queries, once per player and day: the game's event times
(no payloads), the day's certificate (the solver's line, stored when the deal was certified:
no search runs here) and a count of the accounts that won the day from the same address.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from uuid import UUID

from django.db import connection, transaction
from django.utils import timezone

from accounts.models import AppKind
from fairplay import signals
from fairplay.models import FairPlayReview
from games.archive import ArchiveUnreadableError
from games.models import DailyDeal, Game, GameMode, GameStatus
from games.selectors import game_events

logger = logging.getLogger(__name__)


def _is_ranked_win(game: Game) -> bool:
    return game.mode == GameMode.DAILY and game.ranked and game.status == GameStatus.WON


def game_finished(*, game: Game) -> None:
    """The hook: review a ranked daily the command has just won; nothing for any other game."""
    if _is_ranked_win(game):
        review_compute(game=game)


def _address_games(game: Game) -> list[Game]:
    if not game.client_address_hash or game.daily_date is None:
        return []
    if connection.vendor == "postgresql":
        # Two wins of one address and day committing at once would each count the other's
        # as not there yet (read committed), and three accounts could then raise nothing.
        # A transaction-scoped advisory lock on (day, address) makes the second wait for the
        # first's commit, so its count sees it; wins of other addresses never wait. (SQLite
        # runs one write transaction at a time already.)
        key = f"fairplay:{game.daily_date.isoformat()}:{game.client_address_hash}"
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [key])
    return list(
        Game.objects.filter(
            mode=GameMode.DAILY,
            ranked=True,
            status=GameStatus.WON,
            daily_date=game.daily_date,
            client_address_hash=game.client_address_hash,
        ).only("id", "owner_id")
    )


def _review_write(game: Game, *, address_accounts: int) -> FairPlayReview:
    # Through the games' reader of a log: an archived game's events are in its file, not the
    # table (a rebuild months later would otherwise review an empty log and drop its signals).
    events = [(event.type, event.created_at.timestamp()) for event in game_events(game=game)]
    assert game.daily_date is not None  # a ranked game is a daily (a check constraint)
    certificate = (
        DailyDeal.objects.filter(date=game.daily_date, deal_code=game.deal_code)
        .values_list("certificate", flat=True)
        .first()
    )
    findings = signals.game_findings(
        events=events,
        line=game.state.get("line", []),
        solver_line=certificate,
        bot=game.app_kind == AppKind.BOT,
        address_accounts=address_accounts,
    )
    review, _ = FairPlayReview.objects.update_or_create(
        game=game,
        defaults={
            "signals": list(findings.signals),
            "measures": findings.measures,
            "flagged": bool(findings.signals),
            "computed_at": timezone.now(),
        },
    )
    return review


def review_compute(*, game: Game) -> FairPlayReview:
    """Compute (again) the review of a won ranked daily. When its address has now won the day
    from enough accounts, the other wins of that address are reviewed again too, so that each
    of them carries the signal (once: those that carry it already are left as they are)."""
    with transaction.atomic():
        siblings = _address_games(game)
        accounts = len({sibling.owner_id for sibling in siblings})
        review = _review_write(game, address_accounts=accounts)
        if accounts >= signals.SHARED_ADDRESS_ACCOUNTS:
            flagged = _games_with_address_signal([sibling.pk for sibling in siblings])
            for sibling in siblings:
                if sibling.pk != game.pk and sibling.pk not in flagged:
                    _review_write(Game.objects.get(pk=sibling.pk), address_accounts=accounts)
    return review


def _games_with_address_signal(game_ids: list[UUID]) -> set[UUID]:
    # Read in Python: a JSON list's containment is spelled differently by each database.
    return {
        game_id
        for game_id, raised in FairPlayReview.objects.filter(game__in=game_ids).values_list(
            "game_id", "signals"
        )
        if signals.SHARED_ADDRESS in raised
    }


@dataclass(frozen=True, slots=True)
class ReviewsRebuild:
    reviewed: int  # games reviewed again
    # Archived wins whose log could not be read (games.archive): their reviews are kept as
    # they were, neither dropped nor computed from nothing.
    unreadable: list[UUID]


def reviews_rebuild() -> ReviewsRebuild:
    """Review every won ranked daily again (``manage.py rebuild_fair_play``), after the
    thresholds changed. A win whose archived log cannot be read is left as it was and the
    rebuild goes on: one file missing or a storage down for a moment must not stop the
    reviews of every other win (each is its own transaction)."""
    reviewed = 0
    unreadable: list[UUID] = []
    games = Game.objects.filter(mode=GameMode.DAILY, ranked=True, status=GameStatus.WON)
    for game in games.iterator(chunk_size=200):
        try:
            review_compute(game=game)
        except ArchiveUnreadableError as error:
            logger.error("fair-play review of game %s not rebuilt: %s", game.pk, error)
            unreadable.append(game.pk)
            continue
        reviewed += 1
    return ReviewsRebuild(reviewed=reviewed, unreadable=unreadable)
