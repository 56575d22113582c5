"""New games: created, restarted, from every kind of deal (random, seeded, daily, winnable),
with the game a player leaves behind abandoned and the daily's ranked attempt claimed."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext

from accounts.locks import account_lock
from games import selectors
from games.broadcast import publish
from games.deal_choice import DealChoice
from games.engine.deals import deal_code_for_pysol, random_seed
from games.history import Command, GameFinishedError
from games.models import (
    DAILY_LATE_DAYS,
    DAILY_REVEAL_DAYS,
    FINISHED_STATUSES,
    Game,
    GameMode,
    GameStatus,
    RankedDailyClaim,
    daily_late_playable,
    daily_reveal_moment,
)
from games.services.certification import daily_deal_ensure, winnable_deal_draw
from games.services.commands import (
    IdempotencyKeyReusedError,
    PlayingApp,
    _fingerprint,
    game_execute_command,
)
from games.variants import (
    CERTIFIED_VARIANTS,
    DEFAULT_VARIANT,
    Variant,
    deal_state,
    normalise_deal_code,
    offered_variant_choices,
    variant_named,
)
from games.variants import deal_code_for_seed as variant_deal_code_for_seed
from infrastructure.transactions import on_commit_robust


class VariantNotOfferedError(Exception):
    """The variant cannot be played in the mode asked for (the daily challenge and the
    winnable pool are Scorpion deals; PySolFC numbers deal Scorpion), or is no longer offered
    for new games (kept for the games begun in it)."""


def game_create(
    *,
    owner: User,
    choice: DealChoice,
    idempotency_key: str | None = None,
    app: PlayingApp | None = None,
    address_hash: str = "",
) -> Game:
    """A new game at version 0; the deal belongs to the game, not to an event. ``app``: the
    third-party app that starts it (recorded on the game: a bot's games never rank).
    ``address_hash``: the keyed hash of the client's address, kept on a ranked attempt only
    (docs/fair-play.md: many accounts of one address winning the same daily).

    With an ``idempotency_key``, a retried create returns the game the first one made (a
    lost answer can be retried safely); the key reused for another request is refused.
    """
    request: list[Any] = ["create", choice.mode, choice.seed, choice.code, choice.pysol_number]
    if choice.variant != DEFAULT_VARIANT:
        # Appended only for other variants: a Scorpion create keeps the fingerprint it had
        # before variants, so a retry across the upgrade still finds its game.
        request.append(choice.variant)
    if choice.difficulty is not None:
        # Appended only when given, so the fingerprints of earlier keys stay the same.
        request.append({"difficulty": choice.difficulty})
    if choice.daily_date is not None:
        request.append({"date": choice.daily_date.isoformat()})
    fingerprint = _fingerprint(request)
    prior = _prior_creation(owner=owner, key=idempotency_key, fingerprint=fingerprint)
    if prior is not None:
        return prior
    chosen = variant_named(choice.variant)  # raises UnknownVariantError
    variant = chosen.name
    _refuse_kept_variant(chosen)
    if variant not in CERTIFIED_VARIANTS and choice.mode in (GameMode.DAILY, GameMode.WINNABLE):
        raise VariantNotOfferedError(
            gettext(
                "the %(mode)s mode deals Scorpion only, not %(variant)s: the daily challenge is "
                "one deal for everyone, and its deals and the winnable pool are certified by the "
                "Scorpion solver ahead of time (play a random or seeded game of this variant)"
            )
            % {"mode": choice.mode, "variant": variant}
        )
    if variant != DEFAULT_VARIANT and choice.pysol_number is not None:
        raise VariantNotOfferedError(
            gettext(
                "PySolFC numbers deal Scorpion only, not %(variant)s: give a seed or a deal code"
            )
            % {"variant": variant}
        )
    creation = _Creation(owner, idempotency_key, fingerprint, app, address_hash)
    today = timezone.now().date()
    if choice.mode == GameMode.DAILY and choice.daily_date not in (None, today):
        return _create_late_daily(creation, day=choice.daily_date, today=today)
    if choice.mode == GameMode.DAILY:
        try:
            return _create_todays_daily(creation, today=today)
        except _DayTurnedError:
            # Midnight (UTC) passed while the game was being made (a deal certified on the
            # spot takes seconds): it is the new day's daily, the day it begins on.
            return _create_todays_daily(creation, today=timezone.now().date())
    if choice.mode == GameMode.WINNABLE:
        deal = winnable_deal_draw(owner=owner, difficulty=choice.difficulty)
        return _create_game(
            creation,
            mode=GameMode.WINNABLE,
            deal_code=deal.deal_code,
            seed=deal.seed,
            difficulty=deal.difficulty_band,
        )
    seed: int | None = choice.seed
    if choice.code is not None:
        # Read in the chosen variant: raises DealCodeError naming what is wrong.
        deal_code = normalise_deal_code(choice.code, variant)
    elif choice.pysol_number is not None:
        deal_code = deal_code_for_pysol(choice.pysol_number)
    else:
        if seed is None:
            seed = random_seed()
        deal_code = variant_deal_code_for_seed(seed, variant)
    return _create_game(
        creation,
        mode=choice.mode,
        variant=variant,
        deal_code=deal_code,
        seed=seed,
        pysol_number=choice.pysol_number,
        deal_supplied=choice.mode != GameMode.RANDOM,
    )


def _refuse_kept_variant(variant: Variant) -> None:
    """VariantNotOfferedError for a variant kept only so that the games begun in it replay and
    go on (a restart keeps its game's variant): a new game, created or opened from another
    player's challenge, takes today's rules (docs/rules.md, "The Scorpion family")."""
    if variant.offered:
        return
    offered = ", ".join(name for name, _ in offered_variant_choices())
    raise VariantNotOfferedError(
        gettext("%(variant)s is kept for the games begun in it; a new game is one of %(offered)s")
        % {"variant": variant.title, "offered": offered}
    )


def game_restart(
    *,
    owner: User,
    game_id: UUID,
    idempotency_key: str | None = None,
    app: PlayingApp | None = None,
) -> Game:
    """A new game with the same deal as the given one (docs/rules.md, restart). A restarted daily
    game is practice: only the first attempt of the day ranks. ``app`` as for ``game_create``."""
    original = selectors.game_get(owner=owner, game_id=game_id)
    fingerprint = _fingerprint(["restart", str(original.pk)])
    prior = _prior_creation(owner=owner, key=idempotency_key, fingerprint=fingerprint)
    if prior is not None:
        return prior
    return _create_game(
        _Creation(owner, idempotency_key, fingerprint, app),
        mode=original.mode,
        variant=original.variant,
        deal_code=original.deal_code,
        seed=original.seed,
        pysol_number=original.pysol_number,
        deal_supplied=original.deal_supplied,
        daily_date=original.daily_date,
        difficulty=original.difficulty,
        restarted_from=original,
    )


def game_create_shared(
    *,
    owner: User,
    variant: str,
    deal_code: str,
    seed: int | None,
    difficulty: str = "",
    app: PlayingApp | None = None,
) -> Game:
    """A new game of a deal another player chose from a game of theirs (a challenge: social),
    at version 0. Dealt as a seeded game, but not supplied by this player: its deal stays
    secret from them until the game ends, as for a random deal. A game of a known deal
    (``Game.known_deal``): it sets no records, touches no streak and feeds no calibration,
    since the deal was chosen by a player who has seen it whole (who could open the link from
    a second account). No PySolFC number, which every answer shows and which names the deal.
    """
    _refuse_kept_variant(variant_named(variant))  # raises UnknownVariantError
    return _create_game(
        _Creation(owner, None, "", app),
        mode=GameMode.SEEDED,
        variant=variant,
        deal_code=deal_code,
        seed=seed,
        difficulty=difficulty,
        known_deal=True,
    )


class DailyDayNotPlayableError(Exception):
    """A late daily asked for a day that cannot be played: after today, or older than
    ``DAILY_LATE_DAYS``."""


def _create_late_daily(
    creation: _Creation, *, day: datetime.date | None, today: datetime.date
) -> Game:
    """A past day's daily, played late (docs/api.md, "The daily calendar"): practice, never
    ranked (no claim of the day), and a game of a known deal once the day's deal is revealed
    to everyone (``daily_reveal_moment``). Its deal is certified now if no worker did."""
    if day is None or not daily_late_playable(day, today=today):
        raise DailyDayNotPlayableError(
            f"a past day's daily can be played from {DAILY_LATE_DAYS} days back up to "
            "yesterday (UTC); today's is played without a date"
        )
    known = timezone.now() >= daily_reveal_moment(day)
    return _create_daily(creation, day=day, known_deal=known)


class _DayTurnedError(Exception):
    """Today's daily was created after midnight (UTC): it would belong to the day before."""


def _create_todays_daily(creation: _Creation, *, today: datetime.date) -> Game:
    """Today's daily: ranked if it is the player's first attempt of the day."""
    identities = selectors.ranked_identities(owner=creation.owner)
    # The first attempt of the day ranks, every later one is practice (docs/api.md), even
    # once the games are deleted (RankedDailyClaim). Only a hint: the unique constraints
    # decide between racing creates (_create_game).
    had = selectors.ranked_attempt_had(owner=creation.owner, day=today, identities=identities)
    return _create_daily(creation, day=today, ranked=not had, claims=identities, begun_on=today)


def _create_daily(creation: _Creation, *, day: datetime.date, **kwargs: Any) -> Game:
    """A game of the day's daily deal (certified now if no worker did)."""
    daily = daily_deal_ensure(day=day)
    return _create_game(
        creation,
        mode=GameMode.DAILY,
        deal_code=daily.deal_code,
        seed=daily.seed,
        daily_date=daily.date,
        difficulty=daily.difficulty_band,
        **kwargs,
    )


@dataclass(frozen=True, slots=True)
class _Creation:
    """Who creates a game, the Idempotency-Key (with its request's fingerprint) if any, and
    the third-party app the request comes from, if any."""

    owner: User
    key: str | None
    fingerprint: str
    app: PlayingApp | None = None
    address_hash: str = ""


def _prior_creation(*, owner: User, key: str | None, fingerprint: str) -> Game | None:
    if key is None:
        return None
    prior = Game.objects.filter(owner=owner, creation_key=key).first()
    if prior is not None and prior.creation_fingerprint != fingerprint:
        raise IdempotencyKeyReusedError(
            gettext("this Idempotency-Key was already used for a different request")
        )
    return prior


# How long a day's claims are kept after it: a day, so that a clock skew between servers
# around midnight cannot free the day again while it is still "today" somewhere.
RANKED_CLAIM_KEPT = datetime.timedelta(days=1)


def ranked_claims_purge(*, today: datetime.date) -> int:
    """Delete the claims of days no attempt can rank any more (a ranked attempt begins on its
    own day only): the ledger keeps no more than it needs. Returns how many went."""
    deleted, _ = RankedDailyClaim.objects.filter(day__lt=today - RANKED_CLAIM_KEPT).delete()
    return deleted


def signed_up_ranked_days_claim(*, owner: User) -> int:
    """A guest has just signed up: claim the days of its ranked attempts (begun with no
    address: claimed under its account alone) under its addresses now, so that another
    account of the same mailbox plays them as practice. A day one of those addresses had
    claimed already (another account of the mailbox, deleted or not, had its ranked attempt)
    makes the guest's attempt of it a second one: practice. Returns how many games became
    practice (their statistics then need recounting: the caller's)."""
    earliest = timezone.now().date() - RANKED_CLAIM_KEPT  # the days that may still rank
    ranked = Game.objects.filter(
        owner=owner, mode=GameMode.DAILY, ranked=True, daily_date__gte=earliest
    )
    days = {day for day in ranked.values_list("daily_date", flat=True) if day is not None}
    if not days:
        return 0
    # The account's own identity comes first (selectors.ranked_identities): its attempts
    # claimed it already; the rest are the addresses the sign-up brought.
    addresses = selectors.ranked_identities(owner=owner)[1:]
    taken = set(
        RankedDailyClaim.objects.filter(identity__in=addresses, day__in=days).values_list(
            "day", flat=True
        )
    )
    RankedDailyClaim.objects.bulk_create(
        [RankedDailyClaim(identity=identity, day=day) for day in days for identity in addresses],
        ignore_conflicts=True,
    )
    if not taken:
        return 0
    return ranked.filter(daily_date__in=taken).update(ranked=False, client_address_hash="")


def _create_game(
    creation: _Creation,
    *,
    mode: str,
    deal_code: str,
    seed: int | None,
    variant: str = DEFAULT_VARIANT,
    pysol_number: int | None = None,
    deal_supplied: bool = False,
    daily_date: datetime.date | None = None,
    difficulty: str = "",
    restarted_from: Game | None = None,
    ranked: bool = False,
    claims: Sequence[str] = (),
    known_deal: bool = False,
    begun_on: datetime.date | None = None,
) -> Game:
    """``begun_on``: the UTC day the game must be created on (today's daily: a game "begun
    on its day", as the leaderboard and the streak days read ``created_at``), else
    ``_DayTurnedError`` and nothing is written."""
    state = deal_state(deal_code, variant)
    known_deal = (
        known_deal
        or (restarted_from is not None and restarted_from.is_finished)
        or _deal_seen(owner=creation.owner, variant=variant, deal_code=deal_code)
    )
    fields: dict[str, Any] = {
        "owner": creation.owner,
        "mode": mode,
        "variant": variant,
        "deal_code": deal_code,
        "seed": seed,
        "pysol_number": pysol_number,
        "deal_supplied": deal_supplied,
        "daily_date": daily_date,
        "difficulty": difficulty,
        "restarted_from": restarted_from,
        "known_deal": known_deal,
        "state": state.to_dict(),
        "status": state.status,
        "creation_key": creation.key,
        "creation_fingerprint": creation.fingerprint if creation.key else "",
        "app": creation.app.client if creation.app else None,
        "app_kind": creation.app.kind if creation.app else "",
    }
    try:
        # A savepoint: two racing creates with the same key collide on the unique
        # (owner, creation_key) constraint, and the loser returns the winner's game. Two
        # racing first attempts at a daily collide on the one-ranked-attempt constraint.
        with transaction.atomic():
            # Not while the player's data or account is being deleted (players.services):
            # the new game lands after the deletion, or not at all if the account went.
            if not account_lock(user_id=creation.owner.pk):
                raise Http404(gettext("no such account: it was closed"))
            if (
                restarted_from is not None
                and not Game.objects.filter(pk=restarted_from.pk).exists()
            ):
                raise Http404(gettext("no such game"))  # erased meanwhile, with the player's data
            if ranked:
                # The player's identities claim the day's ranked attempt in the same savepoint
                # as the game: two racing first attempts (two devices, or two accounts of one
                # e-mail) collide on the claims' unique constraint, and the loser is practice.
                assert daily_date is not None  # only a daily game ranks (a check constraint)
                RankedDailyClaim.objects.bulk_create(
                    [RankedDailyClaim(identity=identity, day=daily_date) for identity in claims]
                )
            game = Game.objects.create(
                **fields,
                ranked=ranked,
                client_address_hash=creation.address_hash if ranked else "",
            )
            _check_begun_on(game, begun_on)
            _created(game)
            _abandon_left_behind(owner=creation.owner, game=game, restarted_from=restarted_from)
    except IntegrityError:
        prior = _prior_creation(
            owner=creation.owner, key=creation.key, fingerprint=creation.fingerprint
        )
        if prior is not None:
            return prior
        if not ranked:
            raise
        # Another device's first attempt of the day committed first: this one is practice.
        with transaction.atomic():
            game = Game.objects.create(**fields, ranked=False)
            _check_begun_on(game, begun_on)
            _created(game)
            _abandon_left_behind(owner=creation.owner, game=game, restarted_from=restarted_from)
    return game


def _check_begun_on(game: Game, day: datetime.date | None) -> None:
    """Undo the savepoint (the game and its claims) if the game was not created on ``day``."""
    if day is not None and game.created_at.astimezone(datetime.UTC).date() != day:
        raise _DayTurnedError


def revealed_to_player(*, today: datetime.date) -> Q:
    """The games whose whole deal their player has seen: won (every card ends face up), or
    whose deal the game shows (``Game.reveals_deal``: any finished game or a supplied deal;
    a daily game once its day and the next are over). A new game of such a deal is a game of
    a known deal (``Game.known_deal``)."""
    return (
        Q(status=GameStatus.WON)
        | (~Q(mode=GameMode.DAILY) & (Q(deal_supplied=True) | Q(status__in=FINISHED_STATUSES)))
        | Q(mode=GameMode.DAILY, daily_date__lte=today - datetime.timedelta(days=DAILY_REVEAL_DAYS))
    )


def _deal_seen(*, owner: User, variant: str, deal_code: str) -> bool:
    """Whether one of the player's games has shown them this deal whole (``Game.known_deal``).
    One query on the owner's index, read before the game is created: a game finishing
    meanwhile on another device makes the next game of the deal one of a known deal, not this
    one."""
    return (
        Game.objects.filter(owner=owner, variant=variant, deal_code=deal_code)
        .filter(revealed_to_player(today=timezone.now().date()))
        .exists()
    )


def _created(game: Game) -> None:
    """Publish the new game once committed: registered before the abandonments it causes, so
    the player's feed hears of the new game first, then of the games it left behind, in the
    order of their feed ids (created_at, then finished_at). A hook registered in a savepoint
    that rolls back is dropped with it."""
    on_commit_robust(publish.game_created_committed, game)


def _abandon_left_behind(*, owner: User, game: Game, restarted_from: Game | None) -> None:
    """Abandon the games the player leaves behind by starting ``game``: every other game of
    theirs of the same kind (mode and variant) still in play or stuck, and the game it
    restarts. A random Wasp game leaves a random Scorpion game open, as a second table would.

    One game in play per kind of deal, as PySolFC and Microsoft Solitaire count: a game left
    behind after at least one move counts as played and not won (stats), so quitting a bad
    deal for a new one costs what resigning costs. An ``abandon`` event is appended to each
    (the log stays the truth; its streams and the player's feed hear of it) through the same
    compare-and-set as any command, in the transaction that creates the new game.
    """
    left = Game.objects.filter(
        owner=owner, status__in=(GameStatus.PLAYING, GameStatus.STUCK)
    ).exclude(pk=game.pk)
    same_kind = Q(mode=game.mode, variant=game.variant)
    if game.daily_date is not None:
        # One daily in play per day: a past day's, played late, leaves today's attempt be.
        same_kind &= Q(daily_date=game.daily_date)
    if restarted_from is not None:
        same_kind |= Q(pk=restarted_from.pk)
    for game_id in left.filter(same_kind).order_by("pk").values_list("pk", flat=True):
        try:
            game_execute_command(owner=owner, game_id=game_id, command=Command("abandon"))
        except (GameFinishedError, Http404):
            continue  # finished or erased meanwhile: nothing left behind
