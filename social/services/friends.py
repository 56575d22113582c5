"""Friends: a request by display name or an invite link, accepted or refused; unfollowing;
blocking. Two players are friends once a request between them is accepted (both ways)."""

from __future__ import annotations

import datetime
from uuid import UUID

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext

from social import selectors
from social.models import Block, Friendship, FriendshipStatus, Invite
from social.services.limits import SocialError, limit_take, signed_up_required

INVITE_LIFETIME = datetime.timedelta(days=7)
# Open invites a player may hold at once (besides THROTTLE_INVITE's rate).
MAX_OPEN_INVITES = 20


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def friend_request(*, user: User, name: str) -> Friendship:
    """Ask the player shown as ``name`` (their display name with its tag, as the boards show
    it) to be friends. If they asked first, this accepts. Already friends or already asked:
    the friendship as it is. A player who blocked the caller, or whom the caller blocked,
    cannot be found (404, as an unknown name: a block is never told)."""
    signed_up_required(
        user=user, refusal=gettext("sign up to make friends: a guest plays challenges only")
    )
    other = selectors.player_named(name=name)
    if other is None or selectors.blocked_between(user.pk, other.pk):
        raise Http404(gettext("no player has that name (give it with its tag, e.g. Ann#3f9c)"))
    if other.pk == user.pk:
        raise SocialError(gettext("that is your own name"))
    return _befriend(user=user, other=other, accepted=False)


def invite_create(*, user: User) -> Invite:
    """A single-use link that makes whoever opens it first the caller's friend (7 days)."""
    signed_up_required(
        user=user, refusal=gettext("sign up to invite friends: a guest plays challenges only")
    )
    now = timezone.now()
    open_invites = Invite.objects.filter(inviter=user, used_by__isnull=True, expires_at__gt=now)
    if open_invites.count() >= MAX_OPEN_INVITES:
        raise SocialError(
            gettext("you hold %(n)d open invites: revoke one, or wait for one to be used")
            % {"n": MAX_OPEN_INVITES}
        )
    limit_take(user=user, scope="invite")
    return Invite.objects.create(inviter=user, expires_at=now + INVITE_LIFETIME)


def invite_revoke(*, user: User, invite_id: UUID) -> None:
    deleted, _ = Invite.objects.filter(pk=invite_id, inviter=user, used_by__isnull=True).delete()
    if not deleted:
        raise Http404(gettext("no such open invite of yours"))


def invite_accept(*, user: User, invite_id: UUID) -> Friendship:
    """Open an invite: the caller and its inviter are friends at once (the inviter asked by
    sending it). Used, expired, revoked, one's own, between blocked players, or of an account
    staff deactivated (found by no name either: ``player_named``): 404."""
    signed_up_required(
        user=user, refusal=gettext("sign up to make friends: a guest plays challenges only")
    )
    now = timezone.now()
    invite = Invite.objects.filter(
        pk=invite_id, expires_at__gt=now, inviter__is_active=True
    ).first()
    gone = Http404(gettext("no such invite: it was used, it expired, or it was revoked"))
    if invite is None or invite.inviter_id == user.pk:
        raise gone
    if invite.used_by_id == user.pk:  # opened again by the one who used it
        return selectors.friendship_between(user.pk, invite.inviter_id) or _gone(gone)
    if invite.used_by_id is not None or selectors.blocked_between(user.pk, invite.inviter_id):
        raise gone
    limit_take(user=user, scope="follow")
    with transaction.atomic():
        # Compare-and-set: of two players opening the same invite at once, one gets it.
        if not Invite.objects.filter(pk=invite.pk, used_by__isnull=True).update(
            used_by=user, used_at=now
        ):
            raise gone
        return _befriend(user=user, other=invite.inviter, accepted=True, counted=True)


def _gone(error: Http404) -> Friendship:
    raise error


def _befriend(*, user: User, other: User, accepted: bool, counted: bool = False) -> Friendship:
    low, high = _pair(user.pk, other.pk)
    existing = Friendship.objects.filter(low=low, high=high).first()
    if existing is not None:
        if existing.status == FriendshipStatus.PENDING and (
            accepted or existing.addressee_id == user.pk
        ):
            return _accept(existing)
        return existing
    if not counted:
        limit_take(user=user, scope="follow")
    status = FriendshipStatus.ACCEPTED if accepted else FriendshipStatus.PENDING
    try:
        # The pair's unique constraint decides between two players asking each other at once.
        with transaction.atomic():
            return Friendship.objects.create(
                requester=user,
                addressee=other,
                low=low,
                high=high,
                status=status,
                accepted_at=timezone.now() if accepted else None,
            )
    except IntegrityError:
        raced = Friendship.objects.get(low=low, high=high)
        if raced.status == FriendshipStatus.PENDING and raced.addressee_id == user.pk:
            return _accept(raced)
        return raced


def _accept(friendship: Friendship) -> Friendship:
    Friendship.objects.filter(pk=friendship.pk, status=FriendshipStatus.PENDING).update(
        status=FriendshipStatus.ACCEPTED, accepted_at=timezone.now()
    )
    friendship.refresh_from_db()
    return friendship


def friend_accept(*, user: User, friendship_id: int) -> Friendship:
    """Accept a request made to the caller (accepting twice is accepting once); not one from an
    account staff deactivated (out of the lists until they reactivate it: 404)."""
    friendship = Friendship.objects.filter(
        pk=friendship_id, addressee=user, requester__is_active=True
    ).first()
    if friendship is None:
        raise Http404(gettext("no such friend request to you"))
    return _accept(friendship)


def friend_remove(*, user: User, friendship_id: int) -> None:
    """Refuse a request made to the caller, withdraw one they made, or end a friendship (either
    friend may). The other player is not told; they see it gone from their list."""
    deleted, _ = (
        Friendship.objects.filter(pk=friendship_id)
        .filter(Q(requester=user) | Q(addressee=user))
        .delete()
    )
    if not deleted:
        raise Http404(gettext("no such friendship or request of yours"))


def block_player(*, user: User, name: str | None = None, friendship_id: int | None = None) -> Block:
    """Block a player, named as the boards show them or as the other side of one of the
    caller's friendships or requests: any friendship or request between the two goes, and
    neither sees the other's results, challenges or requests any more. Idempotent."""
    if friendship_id is not None:
        friendship = (
            Friendship.objects.filter(pk=friendship_id)
            .filter(Q(requester=user) | Q(addressee=user))
            .first()
        )
        if friendship is None:
            raise Http404(gettext("no such friendship or request of yours"))
        other_id = (
            friendship.addressee_id
            if friendship.requester_id == user.pk
            else friendship.requester_id
        )
    else:
        other = selectors.player_named(name=name or "")
        # A player who blocked the caller can still be blocked back: a block tells nothing.
        if other is None:
            raise Http404(gettext("no player has that name (give it with its tag, e.g. Ann#3f9c)"))
        other_id = other.pk
    if other_id == user.pk:
        raise SocialError(gettext("you cannot block yourself"))
    low, high = _pair(user.pk, other_id)
    with transaction.atomic():
        Friendship.objects.filter(low=low, high=high).delete()
        block, _ = Block.objects.get_or_create(blocker=user, blocked_id=other_id)
    return block


def block_remove(*, user: User, block_id: int) -> None:
    deleted, _ = Block.objects.filter(pk=block_id, blocker=user).delete()
    if not deleted:
        raise Http404(gettext("no such block of yours"))
