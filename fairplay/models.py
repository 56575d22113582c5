"""One review per won ranked daily: the fair-play signals its log raised (fairplay.signals),
derived data like the statistics (``manage.py rebuild_fair_play`` computes them again)."""

from __future__ import annotations

from django.db import models

from games.models import Game


class FairPlayReview(models.Model):
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="fair_play_review")
    # The signals raised (fairplay.signals.SIGNALS), and the measures behind them (median
    # seconds between commands, their spread, the share of the solver's line, the accounts of
    # one address): shown to staff beside the replay.
    signals = models.JSONField(default=list)
    measures = models.JSONField(default=dict)
    flagged = models.BooleanField(default=False)
    computed_at = models.DateTimeField()

    class Meta:
        indexes = [
            # The staff's list: the flagged results, latest first.
            models.Index(
                fields=["-computed_at"],
                condition=models.Q(flagged=True),
                name="fairplay_flagged_recent",
            )
        ]

    def __str__(self) -> str:
        return f"fair-play review of {self.game_id}: {', '.join(self.signals) or 'no signal'}"
