"""A player's social rows removed with their data (``DELETE /api/v1/me/data/``)."""

from __future__ import annotations

from django.db.models import Q

from social.models import Challenge, ChallengeAttempt, Friendship, Invite


def player_social_delete(*, user_id: int) -> dict[str, int]:
    """The player's challenges (with everyone's attempts at them: the games stay, each its
    player's), their own attempts, friendships, requests and invites, in the caller's
    transaction. Their blocks stay: a block protects the player, and deleting one's games
    should not reopen the door to someone they shut out. Answers Django's counts per label."""
    counts: dict[str, int] = {}
    for query in (
        ChallengeAttempt.objects.filter(player_id=user_id),
        Challenge.objects.filter(creator_id=user_id),
        Friendship.objects.filter(Q(requester_id=user_id) | Q(addressee_id=user_id)),
        Invite.objects.filter(inviter_id=user_id),
    ):
        _, per_model = query.delete()
        for label, count in per_model.items():
            counts[label] = counts.get(label, 0) + count
    return counts
