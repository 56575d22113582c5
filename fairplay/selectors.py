"""Reads for the staff's fair-play page (docs/fair-play.md)."""

from __future__ import annotations

from uuid import UUID

from django.db.models import QuerySet

from fairplay.models import FairPlayReview

FLAGGED_PAGE = 100


def flagged_reviews(*, limit: int = FLAGGED_PAGE) -> QuerySet[FairPlayReview]:
    """The latest flagged results, with their game and player (one query), latest first;
    hidden ones included, so that staff can restore them."""
    return (
        FairPlayReview.objects.filter(flagged=True)
        .select_related("game", "game__owner")
        .order_by("-computed_at")[:limit]
    )


def review_of(*, game_id: UUID) -> FairPlayReview | None:
    return FairPlayReview.objects.filter(game_id=game_id).first()
