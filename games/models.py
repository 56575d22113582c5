"""The event store: a game and its append-only log of events.

``GameEvent`` rows are the truth: every position, undo and replay is derived from the deal plus
the log. ``Game.state`` is a projection of that log kept for speed (the position now, the current
line of play and the redo line); it can always be rebuilt by folding the events
(``games.selectors.fold_events``), and a test checks that it equals that fold.
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from allauth.idp.oidc.models import Client
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import AppKind

# Re-exported: how often a GameSnapshot is stored.
from games.history import SNAPSHOT_INTERVAL as SNAPSHOT_INTERVAL
from games.variants import DEFAULT_VARIANT, variant_choices


class GameMode(models.TextChoices):
    RANDOM = "random", "Random deal"
    SEEDED = "seeded", "Chosen deal (seed, deal code or PySolFC number)"
    DAILY = "daily", "Daily challenge"
    WINNABLE = "winnable", "Certified winnable deal"


class DifficultyBand(models.TextChoices):
    """A certified deal's band (games.engine.difficulty, docs/difficulty.md)."""

    EASY = "easy", "Easy"
    MEDIUM = "medium", "Medium"
    HARD = "hard", "Hard"


class DifficultyRated(models.Model):
    """The difficulty of a certified deal (docs/difficulty.md), computed when it is certified.

    ``difficulty_model_score`` is the formula's score from the measures; ``difficulty_score``
    the score in force, the model's until players' results calibrate it (``manage.py
    deal_difficulty --calibrate``, which records how many games it used); the band follows
    from ``difficulty_score``. Empty band: not rated yet (certified before ratings existed;
    ``manage.py deal_difficulty --recompute`` rates them). The measures are secret while the
    deal may be played (docs/difficulty.md, "Fair play").
    """

    difficulty_band = models.CharField(
        max_length=8, choices=DifficultyBand.choices, blank=True, default="", db_index=True
    )
    difficulty_score = models.PositiveSmallIntegerField(null=True, blank=True)
    difficulty_model_score = models.PositiveSmallIntegerField(null=True, blank=True)
    difficulty_measures = models.JSONField(default=dict, blank=True)
    difficulty_games = models.PositiveIntegerField(
        default=0, help_text="Finished games the calibration blended into the score."
    )

    class Meta:
        abstract = True


class GameStatus(models.TextChoices):
    PLAYING = "playing", "Playing"
    STUCK = "stuck", "No moves available"
    WON = "won", "Won"
    RESIGNED = "resigned", "Resigned"
    # Left behind when the player started another game of the same kind or restarted it.
    ABANDONED = "abandoned", "Abandoned"


FINISHED_STATUSES = (GameStatus.WON, GameStatus.RESIGNED, GameStatus.ABANDONED)

# The games that count as played (stats.models): won, resigned, or abandoned after at least one
# move or deal; a game abandoned untouched counts for nothing. Filters on Game, defined once.
COUNTED_ABANDON = Q(status=GameStatus.ABANDONED, started_at__isnull=False)
PLAYED = Q(status__in=(GameStatus.WON, GameStatus.RESIGNED)) | COUNTED_ABANDON

# The deal of day D is shown to players from 00:00 UTC on D + 2: once D is over, and so is
# the day after it, during which an attempt begun late on D may still be won and rank (the
# leaderboard counts a ranked win only if it came before this moment, stats.selectors). Shown
# at the end of D itself, the deal could be read from one account's finished attempt and
# played into another's ranked attempt still open after midnight.
DAILY_REVEAL_DAYS = 2

# How far back a past day's daily may still be played (docs/api.md, "The daily calendar"): late,
# as practice that never ranks; a day whose deal is revealed already is a game of a known deal.
DAILY_LATE_DAYS = 365


def daily_late_playable(day: datetime.date, *, today: datetime.date) -> bool:
    """Whether the daily of ``day`` may be played late on ``today``: a past day, not older
    than ``DAILY_LATE_DAYS``."""
    return today - datetime.timedelta(days=DAILY_LATE_DAYS) <= day < today


def daily_reveal_moment(day: datetime.date) -> datetime.datetime:
    """When the deal of ``day`` stops being secret: 00:00 UTC, ``DAILY_REVEAL_DAYS`` later
    (the latest representable moment for the last days of the calendar)."""
    start = datetime.datetime.combine(day, datetime.time.min, tzinfo=datetime.UTC)
    try:
        return start + datetime.timedelta(days=DAILY_REVEAL_DAYS)
    except OverflowError:
        return datetime.datetime.max.replace(tzinfo=datetime.UTC)


class EventType(models.TextChoices):
    MOVE = "move", "Move"
    DEAL = "deal", "Deal"
    UNDO = "undo", "Undo"
    REDO = "redo", "Redo"
    RESIGN = "resign", "Resign"
    ABANDON = "abandon", "Abandon"


class Game(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # No index of its own: game_owner_recent (owner, -created_at) serves every lookup by owner.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="games", db_index=False
    )
    mode = models.CharField(max_length=16, choices=GameMode.choices, default=GameMode.RANDOM)
    # Which game of the Scorpion family (games.engine.variants): it decides how the deal code
    # is read (one deck or two) and the rules of every move.
    variant = models.CharField(max_length=32, choices=variant_choices(), default=DEFAULT_VARIANT)
    # The deal itself. Secret while the game is on unless the player supplied it. 104
    # characters for one deck, 208 for the two-deck variants.
    deal_code = models.CharField(max_length=208)
    seed = models.BigIntegerField(null=True, blank=True)
    pysol_number = models.BigIntegerField(null=True, blank=True)
    deal_supplied = models.BooleanField(
        default=False, help_text="The player chose the deal, so it is not secret from them."
    )
    daily_date = models.DateField(null=True, blank=True, db_index=True)
    # The band of the certified deal as announced when the game began (copied from the
    # DailyDeal or WinnableDeal; "" for other modes and deals not rated yet). A later
    # calibration may move the deal to another band; the game keeps the band it was played as.
    difficulty = models.CharField(
        max_length=8, choices=DifficultyBand.choices, blank=True, default=""
    )
    # Idempotency-Key of the request that created the game (a retried create returns it).
    creation_key = models.CharField(max_length=128, null=True, blank=True)  # noqa: DJ001
    creation_fingerprint = models.CharField(max_length=64, blank=True, default="")
    restarted_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="restarts"
    )
    # The player's first attempt at a day's daily challenge, the only one that can rank on
    # the leaderboard; every later attempt of the day (a new attempt, a restart) is practice.
    ranked = models.BooleanField(
        default=False,
        help_text="The player's first attempt at the day's daily challenge (the one that ranks).",
    )
    # A game of a deal the player had already seen whole when it began: a restart of a finished
    # game, or a new game of a deal one of their earlier games showed (won, or its deal shown:
    # games.services.revealed_to_player); or a daily game that ends after its deal was revealed
    # to everyone (set as it ends: games.services.commands). It counts as played and won like
    # any game, but sets no best time or fewest moves, is no clean win, neither extends nor ends
    # a streak, and feeds no difficulty calibration (stats.models; docs/api.md, "Games of a
    # known deal").
    known_deal = models.BooleanField(
        default=False,
        help_text="Begun on a deal the player had already seen whole: no personal records.",
    )

    # The third-party app that started the game, or that played it by itself (a bot's first
    # command on a game marks it), and that app's kind then (accounts.models.AppKind): null and
    # "" for first-party play (the web client, a session token). The kind is kept on the game
    # so that the mark stays if the app is deleted, and is re-marked when staff change the
    # app's kind (players.services.app_kind_set). A bot's games never rank.
    app = models.ForeignKey(
        Client, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    app_kind = models.CharField(max_length=8, choices=AppKind.choices, blank=True, default="")
    # Fair play (docs/fair-play.md): a keyed hash of the address a ranked attempt was begun
    # from (``infrastructure.client_ip.address_hash``: HMAC of the secret key, never the
    # address itself; "" for every other game), so that staff see many accounts of one
    # address winning the same daily. And staff's decision to hide the result from every
    # leaderboard, with the reason the player is shown (``games.services.leaderboard_result_hide``,
    # undone by ``leaderboard_result_restore``; both in the staff audit log). Not indexed, and
    # no command changes them: commands stay HOT updates.
    client_address_hash = models.CharField(max_length=32, blank=True, default="")
    leaderboard_hidden_at = models.DateTimeField(null=True, blank=True)
    leaderboard_hidden_reason = models.CharField(max_length=500, blank=True, default="")

    # Not indexed: every query by status also names the owner, a date or a day, whose indexes
    # are far more selective; an index here would also make a command that changes the
    # status rewrite an index entry (see Meta).
    status = models.CharField(max_length=16, choices=GameStatus.choices, default=GameStatus.PLAYING)
    # Number of events in the log; the compare-and-set column of every write.
    version = models.PositiveIntegerField(default=0)
    # Projection of the log: {"position": ..., "line": [records], "redo": [records]}.
    state = models.JSONField()
    moves = models.PositiveIntegerField(default=0, help_text="Moves and deals in the current line.")
    undo_count = models.PositiveIntegerField(default=0)
    hint_count = models.PositiveIntegerField(default=0)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True, help_text="First move or deal.")
    finished_at = models.DateTimeField(null=True, blank=True)

    # Set when the log was moved to the archive (games.archive): the events and snapshots are
    # then in the file ``archive_name`` of the archive's storage, whose SHA-256 is
    # ``archive_sha256``; ``state`` keeps the final position. Never changed by a command (a
    # finished game takes none), so commands stay HOT updates.
    archived_at = models.DateTimeField(null=True, blank=True)
    archive_name = models.CharField(max_length=200, blank=True, default="")
    archive_sha256 = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["-created_at"]
        # Every command rewrites this row. PostgreSQL can do that as a HOT update (the new row
        # version on the same page, no index entry written) only when no indexed column
        # changes and the page has room: so nothing a command changes on every call is
        # indexed (no index on updated_at, version or state), and the table keeps 30% of
        # each page free (fillfactor 70, migration 0006).
        indexes = [
            models.Index(fields=["owner", "-created_at"], name="game_owner_recent"),
            # The staff dashboard selects games by date ranges.
            models.Index(fields=["created_at"], name="game_created"),
            models.Index(fields=["finished_at"], name="game_finished"),
            # The games the archive still has to take, oldest finished first: partial, so the
            # archive's run never walks the games it archived already.
            models.Index(
                fields=["finished_at"],
                condition=Q(finished_at__isnull=False, archived_at__isnull=True),
                name="game_to_archive",
            ),
            # An app's games, for re-marking them when staff change its kind and for the
            # SET NULL of its deletion; partial: first-party games (most) are not in it. No
            # command changes these columns, so commands stay HOT updates.
            models.Index(fields=["app"], condition=Q(app__isnull=False), name="game_app"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "creation_key"],
                condition=Q(creation_key__isnull=False),
                name="game_unique_creation_key",
            ),
            # One ranked attempt per player and day, whatever races between two devices:
            # the second insert fails here and the service makes that attempt practice.
            models.UniqueConstraint(
                fields=["owner", "daily_date"],
                condition=Q(ranked=True),
                name="game_one_ranked_daily_attempt",
            ),
            models.CheckConstraint(
                condition=Q(ranked=False) | Q(mode="daily"), name="game_ranked_is_daily"
            ),
            models.CheckConstraint(
                condition=(
                    Q(mode="daily", daily_date__isnull=False)
                    | (~Q(mode="daily") & Q(daily_date__isnull=True))
                ),
                name="game_daily_has_date",
            ),
            models.CheckConstraint(
                condition=(
                    Q(status__in=["won", "resigned", "abandoned"], finished_at__isnull=False)
                    | (
                        ~Q(status__in=["won", "resigned", "abandoned"])
                        & Q(finished_at__isnull=True)
                    )
                ),
                name="game_finished_has_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.mode} game {self.id} ({self.status}, v{self.version})"

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED_STATUSES

    @property
    def is_practice(self) -> bool:
        """A later attempt at a daily challenge: played like any game, never ranked."""
        return self.mode == GameMode.DAILY and not self.ranked

    @property
    def reveals_deal(self) -> bool:
        """Whether the deal (code and seed) may be shown to the player (docs/rules.md, hidden
        information).

        A daily deal is the same for every player and ranks them: it stays secret, for every
        daily game, finished or not, until its UTC day and the day after are over
        (``daily_reveal_moment``): a finished attempt must not hand the deal to a second
        account, or to the player's own next attempt, while a ranked attempt can still be won.
        Even then, a daily game still on keeps it: a past day's daily played late (the
        calendar) is played blind, as any deal the player did not supply.
        Any other deal is shown once the game is over, or at once if the player supplied it.
        """
        if self.mode == GameMode.DAILY:
            return (
                self.is_finished
                and self.daily_date is not None
                and timezone.now() >= daily_reveal_moment(self.daily_date)
            )
        return self.deal_supplied or self.is_finished


class RankedDailyClaim(models.Model):
    """A note that a player has had the day's ranked attempt at the daily challenge: the
    anti-abuse record that keeps "one ranked attempt a day" when the games are gone.

    ``Game.ranked`` says which game ranked, but it goes with the games: a player who deleted
    their data (or their account, and signed up again) would get a second ranked attempt
    after seeing the deal. These rows are not tied to the account (no foreign key), so no
    deletion reaches them: one row per identity of the player when the ranked attempt began
    (``games.services.ranked_identities``: their account, and a keyed hash of each of their
    e-mail addresses, never the address itself), kept only until the day can no longer be
    played ranked (``games.services.ranked_claims_purge``, daily).
    """

    identity = models.CharField(max_length=80)
    day = models.DateField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # One ranked attempt per identity and day, whatever races between two devices
            # (or two accounts of one e-mail): the second insert fails here and the service
            # makes that attempt practice. Also the index of the lookup by identity and day.
            models.UniqueConstraint(fields=["identity", "day"], name="ranked_claim_unique_day")
        ]
        indexes = [models.Index(fields=["day"], name="ranked_claim_day")]

    def __str__(self) -> str:
        return f"ranked attempt of {self.identity[:12]}… on {self.day}"


class AppendOnlyModel(models.Model):
    """A row written once and never changed through the ORM: ``save`` of a loaded row raises.

    The log and its snapshots are the history itself; a stray ``event.save()`` after an edit in
    a shell or an admin would rewrite what a player did.
    """

    append_only_message = "this row is append-only and cannot be changed"

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise RuntimeError(self.append_only_message)
        super().save(*args, **kwargs)


class GameEvent(AppendOnlyModel):
    """One thing the player did. Append-only: never updated, deleted only with its game, or
    when the archive has taken the log of its finished game (``games.archive``: the rows go
    in the transaction that marks the game archived, once the file is written and read back
    equal, so the log is at every moment whole in one place or the other)."""

    # No index of its own: event_unique_seq (game, seq) serves every lookup by game.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events", db_index=False)
    seq = models.PositiveIntegerField(
        help_text="1 for the first event; equals the game version after it."
    )
    type = models.CharField(max_length=16, choices=EventType.choices)
    # What happened (the engine's record): enough to undo and to replay it exactly.
    payload = models.JSONField(default=dict)
    # NULL, not "", for "no key": the unique constraint must not treat keyless events as equal.
    idempotency_key = models.CharField(max_length=128, null=True, blank=True)  # noqa: DJ001
    # Fingerprint of the request that carried the key, so a key reused for another command is
    # refused instead of silently answered with the first command's result.
    request_fingerprint = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            # The log never has a gap hidden by a duplicate: one event per (game, seq).
            models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq"),
            models.UniqueConstraint(
                fields=["game", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="event_unique_idempotency_key",
            ),
            models.CheckConstraint(condition=Q(seq__gte=1), name="event_seq_positive"),
        ]

    append_only_message = "game events are append-only and cannot be changed"

    def __str__(self) -> str:
        return f"{self.game_id} #{self.seq} {self.type}"


class GameSnapshot(AppendOnlyModel):
    """The state of a game after ``version`` events (a multiple of ``SNAPSHOT_INTERVAL``),
    stored so that rebuilding an earlier state folds at most that many events.

    Derived data, like ``Game.state``: written in the same statement as the event that
    reaches its version (or, for games older than snapshots, by the first read that folds past
    it), equal to the fold of the log (a property test checks it), never updated. Server-side
    only: it holds the face-down cards; answers are built from ``player_view``.
    """

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="snapshots", db_index=False
    )
    version = models.PositiveIntegerField()
    state = models.JSONField()

    class Meta:
        constraints = [
            # Also the index of every lookup: (game, version <= v) ORDER BY version DESC.
            models.UniqueConstraint(fields=["game", "version"], name="snapshot_unique_version"),
            models.CheckConstraint(condition=Q(version__gte=1), name="snapshot_version_positive"),
        ]

    append_only_message = "snapshots are never changed"

    def __str__(self) -> str:
        return f"{self.game_id} at v{self.version}"


class DailyDeal(DifficultyRated):
    """The deal of one UTC day, the same for every player, proven winnable by the solver.

    ``date`` is unique, so however many workers or web processes generate the same day at
    once, one row wins and everyone plays it. Its code, seed and certificate are for staff
    only until the day and the next are over (``Game.reveals_deal``).
    """

    date = models.DateField(unique=True)
    seed = models.BigIntegerField()
    # How often the day was regenerated: part of the HMAC message, so each regeneration
    # draws a fresh series of candidates (docs/deals.md, "Daily deals").
    generation = models.PositiveIntegerField(
        default=0, help_text="How many times the day's deal was regenerated (0 = never)."
    )
    candidate = models.PositiveIntegerField(
        help_text="Which candidate seed of the day this is (0 = the first one tried)."
    )
    deal_code = models.CharField(max_length=104)
    certificate = models.JSONField(help_text="A winning line found by the solver.")
    solver_nodes = models.PositiveBigIntegerField(default=0)
    solver_seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta(DifficultyRated.Meta):
        ordering = ["-date"]

    def __str__(self) -> str:
        return f"daily deal {self.date}"


class WinnableDeal(DifficultyRated):
    """A deal in the pool the solver has certified winnable (the "winnable" mode)."""

    seed = models.BigIntegerField(unique=True)
    deal_code = models.CharField(max_length=104, unique=True)
    certificate = models.JSONField(help_text="A winning line found by the solver.")
    solver_nodes = models.PositiveBigIntegerField(default=0)
    solver_seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta(DifficultyRated.Meta):
        ordering = ["id"]

    def __str__(self) -> str:
        return f"winnable deal {self.seed}"


class AnalysisOutcome(models.TextChoices):
    WON = "won", "Won by the player"
    UNWINNABLE = "unwinnable", "The deal could not be won"
    SLIPPED = "slipped", "Winnable until a move lost it"
    ENDED_WINNABLE = "ended_winnable", "Ended while still winnable"
    UNKNOWN = "unknown", "Undecided within the solver's budget"


class SolverVerdict(models.TextChoices):
    WON = "won", "Winnable"
    LOST = "lost", "Not winnable"
    UNKNOWN = "unknown", "Undecided within the solver's budget"


# The outcomes that name the last winnable version.
_TURNED = ["slipped", "ended_winnable"]


class GameAnalysis(models.Model):
    """The solver's post-game analysis of a finished game (games.analysis), computed once.

    Served only under the same rule as the deal itself (``Game.reveals_deal``): it is computed
    from every card, so for a daily it stays unseen until the day's deal is revealed.
    """

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    # The game's version when analysed: a finished game accepts no more commands, so its last.
    version = models.PositiveIntegerField()
    deal_verdict = models.CharField(max_length=16, choices=SolverVerdict.choices)
    outcome = models.CharField(max_length=16, choices=AnalysisOutcome.choices)
    last_winnable_version = models.PositiveIntegerField(null=True, blank=True)
    line_version = models.PositiveIntegerField(
        null=True, blank=True, help_text="The version the winning line starts from."
    )
    line = models.JSONField(default=list, help_text="A winning line (API commands).")
    solver_nodes = models.PositiveBigIntegerField(default=0)
    solver_seconds = models.FloatField(default=0.0)
    node_budget = models.PositiveBigIntegerField(help_text="Positions allowed per solver call.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # Django's default plural adds an s: the admin listed "Game analysiss".
        verbose_name_plural = "game analyses"
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(outcome__in=_TURNED, last_winnable_version__isnull=False)
                    | (~Q(outcome__in=_TURNED) & Q(last_winnable_version__isnull=True))
                ),
                name="analysis_turning_point_when_lost_late",
            ),
            models.CheckConstraint(
                condition=Q(last_winnable_version__isnull=True)
                | Q(last_winnable_version__lte=models.F("version")),
                name="analysis_turning_point_in_history",
            ),
        ]

    def __str__(self) -> str:
        return f"analysis of {self.game_id} ({self.outcome})"


class GameChances(models.Model):
    """The winning chance of each legal action at one version of a game in play
    (games.engine.chances), computed by a worker when the player pauses or asks.

    Fair by construction: computed from the visible table only (the unseen cards shuffled into
    their slots many times), with a seed derived from the game id and version, so it may be
    served while the game is on, a daily's included. One row per version; a newer version's
    row replaces the older ones (versions only grow, an undo is an event too).
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chances")
    version = models.PositiveIntegerField()
    samples = models.PositiveIntegerField()
    node_budget = models.PositiveIntegerField(help_text="Positions per sampled solve.")
    # Per legal action, best chance first: games.engine.chances.ActionChance.to_dict().
    actions = models.JSONField(default=list)
    cpu_seconds = models.FloatField(default=0.0)
    # Whether the answer was served once already: a served answer counts as one hint, once.
    served = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "version"], name="chances_one_per_version")
        ]

    def __str__(self) -> str:
        return f"chances of {self.game_id} at version {self.version}"
