"""Reads of a player's data as a whole: the export of everything stored about them (their account,
games and statistics)."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.contrib.auth.models import User
from django.db.models import Prefetch, Q
from django.utils import timezone

from accounts.models import Profile
from accounts.oauth import selectors as oauth_selectors
from achievements import selectors as achievements_selectors
from achievements.models import Achievement
from games import archive
from games import selectors as game_selectors
from games.models import Game, GameEvent
from social import selectors as social_selectors
from social.models import Challenge, Friendship
from stats import selectors as stats_selectors
from stats.models import PlayerStats

EXPORT_FORMAT = "scorpion-export/1"


def _iso(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def _game(game: Game) -> dict[str, Any]:
    # The deal of a game still on is hidden information (docs/rules.md): an export must not become
    # a way to see the face-down cards. Shown, as in the game API, once the game is over or
    # when the player supplied the deal themselves; a daily deal only once its UTC day and
    # the next are over.
    reveal = game.reveals_deal
    return {
        "id": str(game.id),
        "mode": game.mode,
        "variant": game.variant,
        "status": game.status,
        "version": game.version,
        "moves": game.moves,
        "undo_count": game.undo_count,
        "hint_count": game.hint_count,
        "seed": game.seed if reveal else None,
        "code": game.deal_code if reveal else None,
        "pysol_number": game.pysol_number,
        "daily_date": _iso(game.daily_date),
        "ranked": game.ranked,
        "restarted_from": str(game.restarted_from_id) if game.restarted_from_id else None,
        # Fair play (docs/fair-play.md): the keyed hash of the address a ranked attempt was
        # begun from, and staff's decision to hide its result, with their reason.
        "client_address_hash": game.client_address_hash or None,
        "leaderboard_hidden_at": _iso(game.leaderboard_hidden_at),
        "leaderboard_hidden_reason": game.leaderboard_hidden_reason or None,
        "created_at": _iso(game.created_at),
        "updated_at": _iso(game.updated_at),
        "started_at": _iso(game.started_at),
        "finished_at": _iso(game.finished_at),
        # Events record only what the player was shown as it happened (cards moved, dealt,
        # turned face up, suits collected), so the whole log is theirs to take.
        "events": [
            {
                "seq": event.seq,
                "type": event.type,
                "payload": event.payload if reveal else _without_copies(event.payload),
                "idempotency_key": event.idempotency_key,
                "created_at": _iso(event.created_at),
            }
            for event in _game_events(game)
        ],
    }


def _game_events(game: Game) -> list[GameEvent]:
    """The game's log: the rows prefetched with the games, or, for a game archived (before
    the read, or between the games' query and the events' one), its archive's, read the
    same way as every other read of a log (games.selectors.game_events)."""
    if game.archived_at is None:
        events = list(game.events.all())
        if len(events) == game.version:
            return events
    return game_selectors.game_events(game=game)


def account_export(*, user: User) -> dict[str, Any]:
    """Everything stored about the player: the account and profile, their e-mail addresses and
    apps, their games with every event, their statistics and achievements. A fixed number of
    queries, whatever the number of games."""
    emails = EmailAddress.objects.filter(user=user).order_by("-primary", "email")
    profile = Profile.objects.filter(user=user).first()
    games = list(
        Game.objects.filter(owner=user)
        .order_by("created_at", "id")
        .prefetch_related(Prefetch("events", queryset=GameEvent.objects.order_by("seq")))
    )
    # The archived games' files, several at a time (one after another, an object store's
    # round trips would add up past the web server's timeout for a player of many games).
    archive.archived_events_read(games=games)
    return {
        "format": EXPORT_FORMAT,
        "exported_at": timezone.now().isoformat(),
        "account": {
            "id": user.pk,
            "email": user.email,
            "username": user.get_username(),
            "date_joined": _iso(user.date_joined),
            "last_login": _iso(user.last_login),
            "guest": bool(profile and profile.guest),
            "display_name": profile.display_name if profile else "",
            # The account's settings: the site's language ("" follows the browser) and deck.
            "language": profile.language if profile else "",
            "deck": profile.deck if profile else "classic",
            "email_addresses": [
                {"email": address.email, "primary": address.primary, "verified": address.verified}
                for address in emails
            ],
            # Third-party apps: those the player allowed, and those they registered (no
            # secrets: those are stored hashed, and the tokens too).
            "authorised_apps": [
                {
                    "client_id": app.client_id,
                    "name": app.name,
                    "scopes": app.scopes,
                    "authorised_at": _iso(app.authorised_at),
                }
                for app in oauth_selectors.authorised_apps(user=user)
            ],
            "registered_apps": [
                {
                    "client_id": app.pk,
                    "name": app.name,
                    "type": app.type,
                    "redirect_uris": app.get_redirect_uris(),
                    "created_at": _iso(app.created_at),
                }
                for app in oauth_selectors.developer_apps(owner=user)
            ],
            # Their personal access tokens, never the tokens themselves (only hashes are kept).
            "personal_tokens": [
                {
                    "name": token.name,
                    "scopes": token.scopes,
                    "created_at": _iso(token.created_at),
                    "expires_at": _iso(token.expires_at) if token.expires_at else None,
                }
                for token in oauth_selectors.personal_tokens(user=user)
            ],
        },
        "stats": stats_selectors.stats_for(user=user).to_dict(),
        "achievements": achievements_selectors.achievements_export(user=user),
        "games": [_game(game) for game in games],
        # Challenges made and played, friends, requests, invites and blocks (social).
        "social": social_selectors.social_export(user=user),
    }


def _without_copies(payload: dict[str, Any]) -> dict[str, Any]:
    """An event's payload without ``ids``: in the two-deck variants the engine records which
    copy of a card moved, turned up or was dealt, and which copy is which says where the
    other copy lies in the deal (docs/rules.md); so, like the deal itself, it is kept back
    until the deal is revealed. Everything else in the payload the player was shown."""
    kept = {key: value for key, value in payload.items() if key != "ids"}
    for key in ("undone", "redone"):
        if isinstance(kept.get(key), dict):
            kept[key] = _without_copies(kept[key])
    return kept


def account_deletion_counts(*, user: User) -> dict[str, int]:
    """What closing the account removes, counted (staff's deletion confirmation): a few indexed
    ``COUNT`` queries, never the rows themselves (Django's confirmation fetched and listed
    every one of them: 29,000 rows for a player with 1,000 games)."""
    return {
        "games": Game.objects.filter(owner=user).count(),
        # The archived logs' too (their files go with the games), as the deletion counts them.
        "events": GameEvent.objects.filter(game__owner=user).count()
        + game_selectors.owner_archived_events_count(user_id=user.pk),
        "statistics rows": PlayerStats.objects.filter(user=user).count(),
        "achievements": Achievement.objects.filter(user=user).count(),
        "challenges": Challenge.objects.filter(creator=user).count(),
        "friendships": Friendship.objects.filter(Q(requester=user) | Q(addressee=user)).count(),
        "apps registered": oauth_selectors.developer_apps(owner=user).count(),
    }
