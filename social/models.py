"""What players share: challenges on a deal, and who is whose friend (or blocked).

Every row here belongs to the players it names and goes with them: an account closed takes
its rows (foreign keys cascade), and a deletion of the player's data takes their challenges,
attempts, friendships and invites (``social.services.player_social_delete``).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from games.models import Game


class Challenge(models.Model):
    """A deal a player has finished, offered to others to race them on.

    The id is the link: random (uuid4, 122 bits from the operating system's generator), so a
    link cannot be guessed from another one. The deal is copied from the creator's game, so
    the challenge outlives it; it is never shown in any answer about the challenge (a player
    sees the deal through their own game, once it is over, as for every game).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges"
    )
    # The creator's finished game: their result on the board. Null once that game is gone.
    source_game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    variant = models.CharField(max_length=32)
    deal_code = models.CharField(max_length=208)
    seed = models.BigIntegerField(null=True, blank=True)
    difficulty = models.CharField(max_length=8, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["creator", "-created_at"], name="challenge_creator")]

    def __str__(self) -> str:
        return f"challenge {self.id}"

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None


class ChallengeAttempt(models.Model):
    """One player's game of a challenge: the first time they opened it (one per player).

    ``deal_seen``: the player had another game of the same deal when they opened it (another
    challenge of it, say: over, it had shown them the deal whole; in play, it would once
    over, and opening this one abandons it), or when this one ended (begun meanwhile, of
    another kind: ``challenge_game_finished``). Every challenge's game is of a known deal
    (``Game.known_deal``: someone chose it), so the game cannot tell; such a result was no
    race, and is on nobody else's board and in no notice.
    """

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="attempts")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenge_attempts"
    )
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="challenge_attempt")
    deal_seen = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # Two devices opening the link at once make one attempt: the second insert fails
            # here and the service answers the first one's game.
            models.UniqueConstraint(fields=["challenge", "player"], name="attempt_one_per_player")
        ]

    def __str__(self) -> str:
        return f"attempt of {self.player_id} at {self.challenge_id}"


class FriendshipStatus(models.TextChoices):
    PENDING = "pending", "Asked, not answered yet"
    ACCEPTED = "accepted", "Friends"


class Friendship(models.Model):
    """A request from ``requester`` to ``addressee``; once accepted the two are friends, both
    ways. One row per pair whoever asked first (``friendship_one_per_pair``: the lower id in
    ``low``), so two players asking each other at once make one friendship."""

    requester = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="friend_requests_sent"
    )
    addressee = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="friend_requests"
    )
    # The pair in a fixed order, for the one-row-per-pair constraint.
    low = models.PositiveBigIntegerField()
    high = models.PositiveBigIntegerField()
    status = models.CharField(
        max_length=8, choices=FriendshipStatus.choices, default=FriendshipStatus.PENDING
    )
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["low", "high"], name="friendship_one_per_pair"),
            models.CheckConstraint(condition=Q(low__lt=F("high")), name="friendship_ordered"),
        ]
        indexes = [models.Index(fields=["addressee", "status"], name="friendship_addressee")]

    def __str__(self) -> str:
        return f"{self.requester_id} -> {self.addressee_id} ({self.status})"


class Block(models.Model):
    """``blocker`` sees nothing more of ``blocked``'s, and ``blocked`` nothing of theirs."""

    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks"
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocked_by"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
            models.CheckConstraint(condition=~Q(blocker=F("blocked")), name="block_not_self"),
        ]
        indexes = [models.Index(fields=["blocked"], name="block_blocked")]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"


class Invite(models.Model):
    """A link that makes whoever opens it first a friend of ``inviter`` (single use; expires).
    The id is the link, random as a challenge's."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    inviter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invites"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
    )
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["inviter", "-created_at"], name="invite_inviter")]

    def __str__(self) -> str:
        return f"invite {self.id}"
