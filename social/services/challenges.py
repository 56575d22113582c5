"""Challenges: a player offers a deal they finished; whoever opens the link plays it afresh."""

from __future__ import annotations

from uuid import UUID

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext

from games import selectors as game_selectors
from games import services as game_services
from games.models import Game
from games.services import PlayingApp
from games.variants import variant_named
from social import selectors
from social.models import Challenge, ChallengeAttempt
from social.services.limits import (
    ChallengeClosedError,
    NotChallengeableError,
    OwnChallengeError,
    limit_take,
    signed_up_required,
)


def challenge_create(*, creator: User, game_id: UUID) -> Challenge:
    """A challenge on the deal of one of the creator's finished games whose deal it shows
    (``Game.reveals_deal``: never a daily before its deal is revealed, today's or
    yesterday's, since it ranks players), and that was their first sight of it: never a game
    of a known deal (a replay, a restart), unless it is a challenge's game they opened blind
    (passed on). Counted against THROTTLE_CHALLENGE."""
    signed_up_required(
        user=creator,
        refusal=gettext("sign up to challenge a friend: a guest plays challenges only"),
    )
    game = game_selectors.game_get(owner=creator, game_id=game_id)  # 404 unless theirs
    if not game.is_finished:
        raise NotChallengeableError(
            gettext("finish the game first: a challenge is made from its result")
        )
    variant = variant_named(game.variant)
    if not variant.offered:
        # A challenge deals its players new games, and a variant kept only for the games begun
        # in it begins none (docs/rules.md, "The Scorpion family").
        raise NotChallengeableError(
            gettext(
                "%(variant)s is kept for the games begun in it: a challenge deals new games, "
                "so challenge a friend from a game of a variant offered today"
            )
            % {"variant": variant.title}
        )
    if not game.reveals_deal:
        raise NotChallengeableError(
            gettext(
                "the daily challenge's deal is secret until its day and the next are over: "
                "challenge a friend on it then"
            )
        )
    if game.known_deal and not ChallengeAttempt.objects.filter(game=game, deal_seen=False).exists():
        raise NotChallengeableError(
            gettext(
                "you had seen this deal already when you played this game: challenge a friend "
                "from your first game of it"
            )
        )
    limit_take(user=creator, scope="challenge")
    return Challenge.objects.create(
        creator=creator,
        source_game=game,
        variant=game.variant,
        deal_code=game.deal_code,
        seed=game.seed,
        difficulty=game.difficulty,
    )


def challenge_close(*, creator: User, challenge_id: UUID) -> Challenge:
    """Closed: nobody new may play it; the attempts begun go on and the board stays.
    Idempotent (a closed challenge keeps its first closing time)."""
    challenge = Challenge.objects.filter(pk=challenge_id, creator=creator).first()
    if challenge is None:
        raise Http404(gettext("no such challenge of yours"))
    # Compare-and-set: two closes at once keep one time.
    Challenge.objects.filter(pk=challenge.pk, closed_at__isnull=True).update(
        closed_at=timezone.now()
    )
    challenge.refresh_from_db(fields=["closed_at"])
    return challenge


def challenge_play(
    *, player: User, challenge_id: UUID, app: PlayingApp | None = None
) -> tuple[Game, bool]:
    """The player's game of the challenge: a new one the first time (True), else the one they
    have (False), finished or not: one attempt per player. A guest may play. A player who had
    seen the deal (``ChallengeAttempt.deal_seen``) plays it too, off everyone else's board."""
    challenge = selectors.challenge_get(viewer=player, challenge_id=challenge_id)  # 404s
    if challenge.creator_id == player.pk:
        raise OwnChallengeError(
            gettext("this is your own challenge: your result is already on its board")
        )
    existing = ChallengeAttempt.objects.filter(challenge=challenge, player=player).first()
    if existing is not None:
        return Game.objects.get(pk=existing.game_id), False
    if challenge.is_closed:
        raise ChallengeClosedError(gettext("its creator has closed this challenge"))
    try:
        # One savepoint for the game and the attempt: two devices opening the link at once
        # collide on attempt_one_per_player, and the loser's game goes with its savepoint.
        with transaction.atomic():
            # Any game of theirs of this deal: one over has shown it whole, and one in play
            # shows it once over (this game's creation abandons another challenge's game).
            seen = Game.objects.filter(
                owner=player, variant=challenge.variant, deal_code=challenge.deal_code
            ).exists()
            game = game_services.game_create_shared(
                owner=player,
                variant=challenge.variant,
                deal_code=challenge.deal_code,
                seed=challenge.seed,
                difficulty=challenge.difficulty,
                app=app,
            )
            ChallengeAttempt.objects.create(
                challenge=challenge, player=player, game=game, deal_seen=seen
            )
    except IntegrityError:
        attempt = ChallengeAttempt.objects.filter(challenge=challenge, player=player).first()
        if attempt is None:
            raise
        return Game.objects.get(pk=attempt.game_id), False
    return game, True


def challenge_game_finished(*, game: Game) -> None:
    """A challenge's game ended (in the transaction that ends it, before its notice is built):
    if its player now has another game of the deal, begun while this one was in play (a past
    day's daily played late and resigned, say: a game of another kind, which opening the
    challenge did not abandon), they had the deal in hand before the end, and the result was
    no race either (``ChallengeAttempt.deal_seen``). One query on the owner's index."""
    others = Game.objects.filter(
        owner_id=game.owner_id, variant=game.variant, deal_code=game.deal_code
    ).exclude(pk=game.pk)
    if others.exists():
        ChallengeAttempt.objects.filter(game=game, deal_seen=False).update(deal_seen=True)
