"""A player's statistics, one row per (player, mode) plus one for all modes together.

Every figure here is derived from the player's games (the columns ``games`` keeps from the
event log: status, moves, undo_count, hint_count, started_at, finished_at), never typed in:
``stats.services.stats_recompute`` rebuilds the rows from the games, and
``stats.services.stats_record_game_finished`` keeps them current when a game ends, in the same
transaction. A test checks the two always agree.

The rows hold only what finished games decide. Games still in play (or stuck) are counted from
the games at read time (``stats.selectors``).

Definitions (docs/api.md repeats them for clients):

- abandoned: a game left behind (the player started another game of the same kind, or
  restarted it: ``games.services``). One abandoned after at least one move or deal
  (``started_at`` set) counts as played and not won, as PySolFC and Microsoft Solitaire count;
  one abandoned untouched counts for nothing.
- played (finished): won, resigned, or abandoned after a move. A game in play or stuck is not
  played yet (the player may still undo); it counts once it is left. Win rate: won / played.
- time of a win: ``finished_at - started_at`` (first move or deal to the winning move), kept
  exactly as a duration. A win always has a ``started_at`` (it took moves); were it ever
  missing, the win would count 0 s. Resigned games have no time.
- streak: consecutive wins among finished games taken in order of finishing
  (``finished_at``, then game id for exact ties). A resignation or a counted abandonment
  ends it; games still being played do not. ``current_streak`` is the run of wins at the end
  of that order.
- clean win: a win with ``undo_count == 0`` and ``hint_count == 0``.
- game of a known deal (``Game.known_deal``, a "replay"): a game begun on a deal the player
  had already seen whole (a restart of a finished game, a new game of a deal an earlier game
  of theirs showed), or a daily game that ended after its deal was revealed to everyone. It
  counts as played, won, resigned or abandoned like any game, and its time counts in the
  average; but it sets no best time or fewest moves, is no clean win, neither extends nor
  ends a streak (the streak skips it), and feeds no difficulty calibration: records made
  knowing the deal would be no records.
- daily practice: a daily game that is not the player's ranked first attempt of the day
  (``Game.ranked``) has the row ``daily_practice``, not ``daily``: the ``daily`` figures are
  the player's record at the challenge itself, one attempt a day. Practice counts in the
  "all" row like every other game.
"""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import models
from django.db.models import Case, F, Q, Value, When

from games.models import GameMode

ALL_MODES = "all"


class StatsMode(models.TextChoices):
    ALL = ALL_MODES, "All modes"
    RANDOM = GameMode.RANDOM.value, GameMode.RANDOM.label
    SEEDED = GameMode.SEEDED.value, GameMode.SEEDED.label
    DAILY = GameMode.DAILY.value, GameMode.DAILY.label
    WINNABLE = GameMode.WINNABLE.value, GameMode.WINNABLE.label
    # Later attempts at a day's daily challenge: counted apart from the ranked first attempt.
    DAILY_PRACTICE = "daily_practice", "Daily challenge, practice attempts"


DAILY_PRACTICE = StatsMode.DAILY_PRACTICE.value


def stats_mode(*, mode: str, ranked: bool) -> str:
    """The row of a game: its mode, except that a daily game that is not the player's ranked
    first attempt of the day counts as ``daily_practice`` (docs/api.md, "Statistics")."""
    return DAILY_PRACTICE if mode == GameMode.DAILY and not ranked else mode


def stats_mode_expression() -> Case:
    """``stats_mode`` in the database, for grouping games by their row."""
    return Case(
        When(mode=GameMode.DAILY, ranked=False, then=Value(DAILY_PRACTICE)),
        default=F("mode"),
        output_field=models.CharField(),
    )


class PlayerStats(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="stats"
    )
    mode = models.CharField(max_length=16, choices=StatsMode.choices)

    won = models.PositiveIntegerField(default=0)
    resigned = models.PositiveIntegerField(default=0)
    abandoned = models.PositiveIntegerField(
        default=0, help_text="Games left behind after at least one move (played, not won)."
    )
    current_streak = models.PositiveIntegerField(default=0)
    best_streak = models.PositiveIntegerField(default=0)
    # Durations are kept exactly (microseconds), not as float seconds: the incremental sum and
    # the recomputed SUM then agree to the last digit whatever order the wins are added in.
    best_time = models.DurationField(null=True, blank=True, help_text="Fastest win.")
    fewest_moves = models.PositiveIntegerField(
        null=True, blank=True, help_text="Fewest moves (and deals) of a win."
    )
    total_win_time = models.DurationField(
        default=datetime.timedelta(0), help_text="Sum of the times of all wins (for the average)."
    )
    clean_wins = models.PositiveIntegerField(default=0, help_text="Wins without an undo or a hint.")
    # The last finished game counted, by (finished_at, id): the order streaks follow. A game
    # that finishes "before" it (a race between two games of one player) triggers a recompute.
    last_finished_at = models.DateTimeField(null=True, blank=True)
    last_finished_game = models.UUIDField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "player statistics"
        verbose_name_plural = "player statistics"
        ordering = ["user", "mode"]
        constraints = [
            models.UniqueConstraint(fields=["user", "mode"], name="stats_unique_user_mode"),
            models.CheckConstraint(
                condition=Q(current_streak__lte=models.F("best_streak")),
                name="stats_streak_within_best",
            ),
            models.CheckConstraint(
                condition=Q(clean_wins__lte=models.F("won")), name="stats_clean_within_won"
            ),
        ]

    def __str__(self) -> str:
        return f"stats of user {self.user_id} ({self.mode})"

    @property
    def finished(self) -> int:
        return self.won + self.resigned + self.abandoned
