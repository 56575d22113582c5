"""Reads of the social layer: who is whose friend, who blocked whom, a challenge and its board,
the friends' daily board, and a player's social data for the export.

Blocks hide both ways: a player never sees anything of one who blocked them (a challenge, a
result on a board, a notice, a request), nor of one they blocked.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.db.models import Count, Q, QuerySet
from django.http import Http404
from django.utils.translation import gettext

from accounts.names import display_name, normalised, skeleton
from games.models import FINISHED_STATUSES, Game, GameStatus
from social.models import Block, Challenge, ChallengeAttempt, Friendship, FriendshipStatus, Invite
from stats.selectors import daily_wins, ranking_games, seconds, win_time_expression

# How many of a player's challenges each list of ``challenges_of`` shows (newest first).
CHALLENGE_LIST_LIMIT = 100


def blocked_between(a: int, b: int) -> bool:
    return Block.objects.filter(
        Q(blocker_id=a, blocked_id=b) | Q(blocker_id=b, blocked_id=a)
    ).exists()


def hidden_from(*, user_id: int) -> set[int]:
    """The players blocked either way with ``user_id``: nothing of theirs is shown to them."""
    rows = Block.objects.filter(Q(blocker_id=user_id) | Q(blocked_id=user_id)).values_list(
        "blocker_id", "blocked_id"
    )
    return {other for pair in rows for other in pair if other != user_id}


def player_names(user_ids: Iterable[int]) -> dict[int, str]:
    """How each player appears to others (accounts.names.display_name), in one query."""
    rows = User.objects.filter(pk__in=set(user_ids)).values_list(
        "pk", "email", "profile__display_name", "profile__guest"
    )
    return {
        pk: display_name(user_id=pk, email=email, name=name or "", guest=bool(guest))
        for pk, email, name, guest in rows
    }


def player_named(*, name: str) -> User | None:
    """The active, signed-up player shown as ``name``: a chosen display name, with or without
    the tag the boards show after it (``Ann#3f9c``; a wrong tag finds nobody). Names are one
    per look (accounts.names.skeleton), so the name alone decides. A player who chose no name
    (``A***#3f9c``) cannot be found by it: they send an invite link instead."""
    base, _, tag = normalised(name).rpartition("#")
    if not base:
        base, tag = tag, ""
    if not base:
        return None
    user = (
        User.objects.filter(
            is_active=True, profile__guest=False, profile__name_skeleton=skeleton(base)
        )
        .select_related("profile")
        .first()
    )
    if user is None:
        return None
    shown = display_name(user_id=user.pk, email=user.email, name=user.profile.display_name)
    if tag and shown.rpartition("#")[2] != tag.lower():
        return None
    return user


def friendships_of(*, user_id: int) -> QuerySet[Friendship]:
    return Friendship.objects.filter(Q(requester_id=user_id) | Q(addressee_id=user_id))


def friend_ids(*, user_id: int) -> list[int]:
    """The player's friends (accepted, both ways). A block removes the friendship."""
    rows = friendships_of(user_id=user_id).filter(status=FriendshipStatus.ACCEPTED)
    return [
        addressee if requester == user_id else requester
        for requester, addressee in rows.values_list("requester_id", "addressee_id")
    ]


def friendship_between(a: int, b: int) -> Friendship | None:
    low, high = (a, b) if a < b else (b, a)
    return Friendship.objects.filter(low=low, high=high).first()


def friendship_dict(
    friendship: Friendship, *, user_id: int, names: dict[int, str]
) -> dict[str, Any]:
    other = (
        friendship.addressee_id if friendship.requester_id == user_id else friendship.requester_id
    )
    return {
        "id": friendship.pk,
        "player": names.get(other, ""),
        "status": friendship.status,
        "asked_by_me": friendship.requester_id == user_id,
        "created_at": friendship.created_at.isoformat(),
        "accepted_at": friendship.accepted_at.isoformat() if friendship.accepted_at else None,
    }


def friends_overview(*, user: User, with_inactive: bool = False) -> dict[str, Any]:
    """The player's friends, the requests made to them and by them, their open invites and the
    players they blocked. A request from a player they blocked is never here (a block
    removes it, and none can be made across one); nor, unless ``with_inactive`` (the
    export: every stored row), a friendship or request with an account staff deactivated,
    until they reactivate it."""
    rows_of = friendships_of(user_id=user.pk)
    if not with_inactive:
        rows_of = rows_of.filter(requester__is_active=True, addressee__is_active=True)
    friendships = list(rows_of.order_by("created_at", "pk"))
    blocks = list(Block.objects.filter(blocker=user).order_by("created_at", "pk"))
    others = {f.requester_id for f in friendships} | {f.addressee_id for f in friendships}
    names = player_names(others | {block.blocked_id for block in blocks})
    rows = [friendship_dict(f, user_id=user.pk, names=names) for f in friendships]
    invites = Invite.objects.filter(
        inviter=user, used_by__isnull=True, expires_at__gt=datetime.datetime.now(tz=datetime.UTC)
    ).order_by("created_at")
    return {
        "friends": [row for row in rows if row["status"] == FriendshipStatus.ACCEPTED],
        "incoming": [
            row
            for row in rows
            if row["status"] == FriendshipStatus.PENDING and not row["asked_by_me"]
        ],
        "outgoing": [
            row for row in rows if row["status"] == FriendshipStatus.PENDING and row["asked_by_me"]
        ],
        "invites": [invite_dict(invite) for invite in invites],
        "blocked": [
            {
                "id": block.pk,
                "player": names.get(block.blocked_id, ""),
                "created_at": block.created_at.isoformat(),
            }
            for block in blocks
        ],
    }


def invite_dict(invite: Invite) -> dict[str, Any]:
    return {
        "id": str(invite.pk),
        "url": f"/friends/invite/{invite.pk}/",
        "created_at": invite.created_at.isoformat(),
        "expires_at": invite.expires_at.isoformat(),
    }


# --- Challenges ---


def challenge_get(*, viewer: User, challenge_id: UUID) -> Challenge:
    """The challenge, to anyone holding its link, except across a block (404 as for no such
    challenge: a block is never told), and except a deactivated account's: staff took it off
    every board, and its challenges go with it until they reactivate it (nothing deleted)."""
    challenge = (
        Challenge.objects.filter(pk=challenge_id)
        .filter(Q(creator=viewer) | Q(creator__is_active=True))
        .first()
    )
    if challenge is None or (
        challenge.creator_id != viewer.pk and blocked_between(challenge.creator_id, viewer.pk)
    ):
        raise Http404(gettext("no such challenge"))
    return challenge


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """One finished game of a challenge, as its board shows it."""

    user_id: int
    player: str
    status: str
    time: datetime.timedelta | None
    moves: int
    undos: int
    finished_at: datetime.datetime

    @property
    def won(self) -> bool:
        return self.status == GameStatus.WON

    def to_dict(self, *, viewer_id: int) -> dict[str, Any]:
        return {
            "player": self.player,
            "is_me": self.user_id == viewer_id,
            "status": self.status,
            "won": self.won,
            "time": seconds(self.time),
            "moves": self.moves,
            "undos": self.undos,
            "finished_at": self.finished_at.isoformat(),
        }


_ENTRY_FIELDS = ("owner_id", "status", "time", "moves", "undo_count", "finished_at")


def _entries(games: Any) -> list[BoardEntry]:
    """The finished games among ``games`` that a board may show (``ranking_games``: never a
    bot's, nor a deactivated account's), with their players' names."""
    rows = list(
        ranking_games()
        .filter(games, status__in=FINISHED_STATUSES)
        .annotate(time=win_time_expression())
        .values(*_ENTRY_FIELDS)
    )
    names = player_names(row["owner_id"] for row in rows)
    entries = [
        BoardEntry(
            user_id=row["owner_id"],
            player=names.get(row["owner_id"], ""),
            status=row["status"],
            time=row["time"],
            moves=row["moves"],
            undos=row["undo_count"],
            finished_at=row["finished_at"],
        )
        for row in rows
    ]
    # Wins first, fastest first, then fewer moves, then who finished first.
    entries.sort(
        key=lambda e: (not e.won, e.time or datetime.timedelta.max, e.moves, e.finished_at)
    )
    return entries


def attempt_entry(attempt: ChallengeAttempt) -> BoardEntry | None:
    found = _entries(Q(pk=attempt.game_id))
    return found[0] if found else None


def _own_game(challenge: Challenge, viewer: User) -> Game | None:
    if challenge.creator_id == viewer.pk:
        return (
            Game.objects.filter(pk=challenge.source_game_id).first()
            if challenge.source_game_id
            else None
        )
    attempt = ChallengeAttempt.objects.filter(challenge=challenge, player=viewer).first()
    return None if attempt is None else Game.objects.filter(pk=attempt.game_id).first()


def challenge_view(
    *, viewer: User, challenge: Challenge, with_board: bool = True
) -> dict[str, Any]:
    """The challenge as ``viewer`` may see it. Its board (every finished game of it: the
    creator's, then each player's first attempt) only once the viewer's own game of it is
    over (the creator's always is): no result before the viewer has played. An attempt on a
    deal its player had seen (``ChallengeAttempt.deal_seen``) is on its own player's board
    only. Never the deal: the viewer sees it through their own game, once that is over, as
    for every game. ``with_board`` False: no board at all (the answer of a write to an app's
    token that may not read boards: ``social:write`` without ``social:read``)."""
    own = _own_game(challenge, viewer)
    finished = challenge.creator_id == viewer.pk or (own is not None and own.is_finished)
    board = None
    if finished and with_board:
        hidden = hidden_from(user_id=viewer.pk)
        games = Q(challenge_attempt__challenge=challenge, challenge_attempt__deal_seen=False)
        if challenge.source_game_id is not None:
            games |= Q(pk=challenge.source_game_id)
        if own is not None:
            games |= Q(pk=own.pk)
        board = [
            entry.to_dict(viewer_id=viewer.pk)
            for entry in _entries(games)
            if entry.user_id not in hidden
        ]
    return {
        **challenge_summary(challenge, names=player_names([challenge.creator_id])),
        "is_mine": challenge.creator_id == viewer.pk,
        "game": str(own.pk) if own is not None else None,
        "finished": finished,
        "board": board,
    }


def challenge_summary(challenge: Challenge, *, names: dict[int, str]) -> dict[str, Any]:
    # Annotated by the lists (one query for all of them); counted for a single challenge.
    players = getattr(challenge, "players", None)
    return {
        "id": str(challenge.pk),
        "url": f"/challenges/{challenge.pk}/",
        "creator": names.get(challenge.creator_id, ""),
        "variant": challenge.variant,
        "difficulty": challenge.difficulty or None,
        "created_at": challenge.created_at.isoformat(),
        "closed_at": challenge.closed_at.isoformat() if challenge.closed_at else None,
        "players": players if players is not None else challenge.attempts.count(),
    }


def challenges_of(*, user: User) -> dict[str, list[dict[str, Any]]]:
    """The challenges the player made, and those they played (newest first, 100 each;
    a challenge whose creator is blocked either way, or deactivated, is left out)."""
    made = list(
        Challenge.objects.filter(creator=user).annotate(players=Count("attempts"))[
            :CHALLENGE_LIST_LIMIT
        ]
    )
    hidden = hidden_from(user_id=user.pk)
    played = list(
        Challenge.objects.filter(attempts__player=user, creator__is_active=True)
        .exclude(creator_id__in=hidden)
        .order_by("-created_at")[:CHALLENGE_LIST_LIMIT]
    )
    names = player_names({c.creator_id for c in made + played})
    return {
        "made": [challenge_summary(c, names=names) for c in made],
        "played": [challenge_summary(c, names=names) for c in played],
    }


# --- The friends' daily board ---


def friends_daily_board(*, user: User, day: datetime.date) -> dict[str, Any]:
    """The day's daily leaderboard among the player and their friends: the same wins as the
    global board (``stats.selectors.daily_wins``, from ``ranking_games``), ranked the same
    way (time, moves, who finished first; equals share a rank)."""
    players = [user.pk, *friend_ids(user_id=user.pk)]
    rows = list(
        daily_wins(day=day)
        .filter(owner_id__in=players)
        .annotate(time=win_time_expression())
        .order_by("time", "moves", "finished_at", "pk")
        .values("owner_id", "time", "moves", "finished_at")
    )
    names = player_names(row["owner_id"] for row in rows)
    results: list[dict[str, Any]] = []
    previous: tuple[Any, ...] | None = None
    rank = 0
    for index, row in enumerate(rows, start=1):
        key = (row["time"], row["moves"], row["finished_at"])
        if key != previous:
            rank, previous = index, key
        results.append(
            {
                "rank": rank,
                "player": names.get(row["owner_id"], ""),
                "time": seconds(row["time"]),
                "moves": row["moves"],
                "finished_at": row["finished_at"].isoformat() if row["finished_at"] else None,
                "is_me": row["owner_id"] == user.pk,
            }
        )
    return {"date": day.isoformat(), "count": len(results), "results": results}


# --- The export ---


def social_export(*, user: User) -> dict[str, Any]:
    """The player's social rows for ``GET /api/v1/me/export/``."""
    overview = friends_overview(user=user, with_inactive=True)
    attempts = ChallengeAttempt.objects.filter(player=user).order_by("created_at")
    return {
        "challenges_made": [
            {
                **challenge_summary(c, names=player_names([user.pk])),
                "source_game": str(c.source_game_id) if c.source_game_id else None,
            }
            for c in Challenge.objects.filter(creator=user).order_by("created_at")
        ],
        "challenge_attempts": [
            {
                "challenge": str(a.challenge_id),
                "game": str(a.game_id),
                "deal_seen": a.deal_seen,
                "created_at": a.created_at.isoformat(),
            }
            for a in attempts
        ],
        **overview,
    }
