"""Writes of a player's data as a whole: erase their games and results, or the whole account;
and staff's decision that an app is a client or a bot, written onto the games it played."""

from __future__ import annotations

from collections import Counter

from allauth.idp.oidc.models import Client
from django.contrib.auth.models import User
from django.db import transaction

from accounts import services as account_services
from accounts.locks import account_lock
from accounts.models import AppKind, AppPlayer
from achievements import services as achievements_services
from games import services as game_services
from games.models import Game
from social import services as social_services
from stats import services as stats_services

# Model labels (as Django's deletion collector reports them) -> the names the API answers with.
_NAMES = {
    "auth.User": "account",
    "account.EmailAddress": "email_addresses",
    "games.Game": "games",
    "games.GameEvent": "events",
    "stats.PlayerStats": "stats",
    "social.Challenge": "social",
    "social.ChallengeAttempt": "social",
    "social.Friendship": "social",
    "social.Invite": "social",
    "social.Block": "social",
}
DATA_KEYS = ("games", "events", "stats", "social")
ACCOUNT_KEYS = ("account", "email_addresses", "sessions", *DATA_KEYS, "other")


def _tally(per_model: dict[str, int], keys: tuple[str, ...]) -> dict[str, int]:
    counts: Counter[str] = Counter(dict.fromkeys(keys, 0))
    for label, count in per_model.items():
        name = _NAMES.get(label, "other")
        counts[name if name in keys else "other"] += count
    return {key: counts[key] for key in keys}


def account_data_delete(*, user: User) -> dict[str, int]:
    """Remove the player's games (their events go with them), statistics, achievements,
    challenges, friendships and invites (social.services.player_social_delete: not their
    blocks), keeping the account. One transaction: all of it goes, or nothing. Safe to run while the
    player plays on (``account_lock``, ``games.services.owner_games_lock``): what they do
    lands before or after."""
    with transaction.atomic():
        if not account_lock(user_id=user.pk):
            return _tally({}, DATA_KEYS)  # closed meanwhile: nothing of it is left
        # First: a challenge made from one of the games would otherwise outlive it.
        social = social_services.player_social_delete(user_id=user.pk)
        games = game_services.owner_games_delete(user_id=user.pk)
        # After the games, so that a game finishing meanwhile (which locks the game row the
        # DELETE above waited for) cannot leave statistics of games that are gone.
        stats = stats_services.stats_delete(user=user)
        achievements_services.achievements_delete(user=user)
    return _tally({**social, **games, "stats.PlayerStats": stats}, DATA_KEYS)


def account_delete(*, user: User) -> dict[str, int]:
    """Remove the account and everything of it: e-mail addresses, sessions (so every session
    token dies), games with their events, statistics, and whatever else refers to the user
    (Django's deletion collector follows every foreign key). One transaction, safe to run
    while the player plays on, as ``account_data_delete``."""
    with transaction.atomic():
        if not account_lock(user_id=user.pk):
            return _tally({}, ACCOUNT_KEYS) | {"sessions": 0}  # closed meanwhile
        game_services.owner_games_lock(user_id=user.pk)
        # The archived logs' files of the games the user's deletion takes, after the commit.
        archived_events = game_services.owner_archives_delete_on_commit(user_id=user.pk)
        game_services.owner_ranked_days_claim(user_id=user.pk)
        sessions = account_services.user_sessions_delete(user_id=user.pk)
        _, per_model = user.delete()
    counts = _tally(game_services.with_archived_events(per_model, archived_events), ACCOUNT_KEYS)
    counts["sessions"] = sessions
    return counts


def guest_signed_up(*, user: User) -> None:
    """A guest became an account (accounts.guests.guest_convert, in its transaction): its
    ranked daily attempts are claimed under its new address, and one the address had had
    already becomes practice, counted again in the statistics (docs/api.md, "Deleting does
    not give a second try")."""
    if game_services.signed_up_ranked_days_claim(owner=user):
        stats_services.stats_recompute(user=user)


def app_kind_set(*, app: Client, kind: str) -> int:
    """Staff's decision that an app is a client or a bot: recorded, and every game the app
    started or played by itself is marked again, so a bot found out leaves every leaderboard
    at once (and a mistake is undone the same way). The achievements of the players whose
    games were marked are rebuilt (a bot's game earns none; they are stored, unlike the
    boards and the calendar, which read the mark). Answers how many games were marked."""
    kind = AppKind(kind)
    with transaction.atomic():
        AppPlayer.objects.update_or_create(client=app, defaults={"kind": kind})
        marked = Game.objects.filter(app=app).exclude(app_kind=kind)
        owners = set(marked.order_by().values_list("owner_id", flat=True).distinct())
        count = marked.update(app_kind=kind)
    achievements_services.achievements_rebuild(users=User.objects.filter(pk__in=owners))
    return count
