"""The shapes of the API's answers, for the OpenAPI schema (drf-spectacular reads them from the
views' ``extend_schema``); the answers themselves are built by games.presentation. The request
serializers, which parse and refuse, are in games/api/serializers.py."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.models import AppKind
from games.api.serializers import MAX_COLUMNS
from games.engine.resolve import COPIES
from games.models import (
    AnalysisOutcome,
    DifficultyBand,
    GameMode,
    GameStatus,
    SolverVerdict,
)
from games.variants import (
    variant_choices,
)

# --- Responses ---


class ColumnSerializer(serializers.Serializer[Any]):
    hidden = serializers.IntegerField(help_text="Face-down cards at the bottom.")
    cards = serializers.ListField(
        child=serializers.CharField(), help_text="Face-up cards, bottom to top."
    )


class PlayedByAppSerializer(serializers.Serializer[Any]):
    id = serializers.CharField(
        allow_null=True, help_text="The app's client id; null if the app was deleted since."
    )
    name = serializers.CharField(allow_null=True, help_text="Null if the app was deleted since.")
    kind = serializers.ChoiceField(
        choices=AppKind.choices,
        help_text="client: a person plays through the app; bot: it plays by itself (declared "
        "by its developer, or decided by staff).",
    )


class LeaderboardHiddenSerializer(serializers.Serializer[Any]):
    at = serializers.DateTimeField(help_text="When staff hid the result.")
    reason = serializers.CharField(help_text="Why, as staff wrote it.")


class GameSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    mode = serializers.ChoiceField(choices=GameMode.choices)
    variant = serializers.ChoiceField(
        choices=variant_choices(),
        help_text="Which game of the Scorpion family; its layout is GET /api/v1/variants/.",
    )
    status = serializers.ChoiceField(choices=GameStatus.choices)
    version = serializers.IntegerField(help_text="Number of events in the game's history.")
    columns = ColumnSerializer(many=True)
    stock = serializers.IntegerField(help_text="Cards left in the stock (3 or 0).")
    collected = serializers.ListField(child=serializers.CharField())
    reserve = serializers.ListField(
        child=serializers.CharField(),
        help_text="Face-up reserve cards (Three Blind Mice; empty in the other variants): "
        "reserve card i is picked from column `len(columns) + i` (a move's `from`).",
    )
    moves = serializers.IntegerField()
    can_undo = serializers.BooleanField()
    can_redo = serializers.BooleanField()
    seed = serializers.IntegerField(
        allow_null=True,
        help_text="Null while the deal is secret: until the game is over (unless the player "
        "supplied the deal) and, for the daily challenge, until its UTC day and the next "
        "are over (00:00 UTC two days later), finished or not.",
    )
    code = serializers.CharField(allow_null=True, help_text="The deal code; null like seed.")
    pysol_number = serializers.IntegerField(allow_null=True)
    daily_date = serializers.DateField(allow_null=True)
    difficulty = serializers.ChoiceField(
        choices=DifficultyBand.choices,
        allow_null=True,
        help_text="Daily and winnable games: the deal's difficulty band as announced when the "
        "game began (docs/difficulty.md); null for other modes and deals not rated yet.",
    )
    ranked = serializers.BooleanField(
        help_text="The caller's first attempt at the day's daily challenge: the only one that "
        "ranks on the leaderboard. False for later attempts of the day (practice) and for "
        "every other mode."
    )
    restarted_from = serializers.UUIDField(allow_null=True)
    played_by_app = PlayedByAppSerializer(
        allow_null=True,
        help_text="The third-party app that started the game, or that played it by itself; "
        "null for the player's own play (the web client, a session token). A game of a bot "
        '(`"kind": "bot"`) never ranks on a leaderboard.',
    )
    known_deal = serializers.BooleanField(
        help_text="Begun on a deal the caller had already seen whole (a restart of a finished "
        "game, or a deal an earlier game of theirs showed): it counts as played and won, but "
        "sets no best time, fewest moves or clean win and leaves the streak as it was."
    )
    leaderboard_hidden = LeaderboardHiddenSerializer(
        allow_null=True,
        help_text="Staff hid this game's result from the leaderboards (docs/fair-play.md): "
        "when, and the reason they gave; null for every result that counts. The game, its "
        "replay and its statistics stay.",
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    elapsed_seconds = serializers.FloatField(
        allow_null=True, help_text="From the first move to the end (or to now)."
    )


class FlipSerializer(serializers.Serializer[Any]):
    column = serializers.IntegerField()
    card = serializers.CharField(help_text="The card that turned face up.")


class CollectionSerializer(serializers.Serializer[Any]):
    column = serializers.IntegerField()
    suit = serializers.CharField(help_text="The suit whose K..A run left this column.")


class RecordSerializer(serializers.Serializer[Any]):
    """What a move or deal did (the engine's record, public fields only)."""

    card = serializers.CharField(required=False, allow_null=True, help_text="The card moved.")
    to = serializers.IntegerField(required=False, allow_null=True)
    count = serializers.IntegerField(required=False, help_text="Cards moved or dealt.")
    dealt = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Deal: onto columns 0, 1, 2."
    )
    flipped = FlipSerializer(many=True, required=False)
    collected = CollectionSerializer(many=True, required=False)


# "from" is a Python keyword, so it cannot be declared as a class attribute.
RecordSerializer._declared_fields["from"] = serializers.IntegerField(
    required=False, allow_null=True, help_text="The column the moved cards left."
)


class GamePageSerializer(serializers.Serializer[Any]):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = GameSerializer(many=True)


class EventSerializer(RecordSerializer):
    seq = serializers.IntegerField()
    type = serializers.ChoiceField(
        choices=["move", "deal", "undo", "redo", "resign", "abandon"],
        help_text="abandon: written by the server when the player started another game of "
        "the same kind, or restarted this one.",
    )
    created_at = serializers.DateTimeField()
    undone = RecordSerializer(required=False, help_text="Undo: the move or deal reversed.")
    redone = RecordSerializer(required=False, help_text="Redo: the move or deal replayed.")


class CommandResultSerializer(GameSerializer):
    event = EventSerializer()


class RefusalDetailsSerializer(serializers.Serializer[Any]):
    """Why a command was refused, as data (docs/api.md, "Errors"). Columns are numbered from 1
    (1 to 7, or 1 to 10 in the ten-column variants), as players see them; no field ever says
    where an unseen card lies."""

    reason = serializers.CharField(
        help_text="no_such_column, collected, not_face_up, already_there, not_a_king, "
        "onto_not_exposed, onto_own_column, wrong_column, column_not_empty, already_at_bottom, "
        "no_empty_column or stock_empty."
    )
    card = serializers.CharField(required=False, help_text="The card the move named, e.g. QS.")
    column = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_COLUMNS, help_text="The column the card lies in."
    )
    to = serializers.IntegerField(required=False, help_text="The column asked for, from 1.")
    onto = serializers.CharField(required=False, help_text="The only card it may go on.")
    onto_column = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_COLUMNS,
        help_text="Where `onto` lies, when face up.",
    )
    onto_state = serializers.ChoiceField(
        choices=["covered", "unseen"],
        required=False,
        help_text="covered: face up under other cards; unseen: face down or in the stock, "
        "never said which.",
    )


class CommandProblemSerializer(serializers.Serializer[Any]):
    """A refused command: RFC 9457 problem details, with the reason as data."""

    type = serializers.CharField()
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField(help_text="In words, for people (columns from 0).")
    code = serializers.CharField()
    details = RefusalDetailsSerializer(required=False)


class HintDetailSerializer(serializers.Serializer[Any]):
    """One part of a hint's reason as data. ``reason`` is one of ``completes_run`` (``suit``),
    ``turns_face_up`` (``column``), ``empties_column`` (``column``), ``frees`` (``card``, the card
    left exposed, and its ``column``), ``king_to_empty`` (``card``, ``column``, ``count``: the
    cards carried), ``builds`` (``card``, ``onto``); columns are numbered from 1."""

    reason = serializers.CharField()
    card = serializers.CharField(required=False, help_text="A card code, e.g. 6C.")
    onto = serializers.CharField(required=False, help_text="The card the move goes onto.")
    column = serializers.IntegerField(required=False, min_value=1, max_value=MAX_COLUMNS)
    suit = serializers.CharField(required=False, help_text="S, H, D or C.")
    count = serializers.IntegerField(required=False)


class EventPageSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField(help_text="The game's version when the page was read.")
    next = serializers.URLField(
        allow_null=True, help_text="The next page (`?after=` its last seq), null at the end."
    )
    results = EventSerializer(many=True, help_text="Oldest first.")


class StateSerializer(GameSerializer):
    event = EventSerializer(allow_null=True, help_text="The event that led here (null: the deal).")


class StatePageSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField(help_text="The game's version when the page was read.")
    next = serializers.URLField(allow_null=True, help_text="The next page, null at the end.")
    results = StateSerializer(many=True, help_text="Consecutive versions, oldest first.")


class HintMoveSerializer(serializers.Serializer[Any]):
    card = serializers.CharField()
    to = serializers.IntegerField(help_text="The destination column, from 0.")
    copy = serializers.ChoiceField(
        choices=list(COPIES),
        required=False,
        help_text="Only where both copies of the card lie face up in its column (two decks): "
        "which one moves, `upper` or `lower`; send it as the move's `copy`.",
    )
    reason = serializers.CharField(help_text="In words; columns from 0.")
    details = HintDetailSerializer(
        many=True, help_text="The reason as data, part by part; columns from 1."
    )


# "from" is a Python keyword, so it cannot be declared as a class attribute.
HintMoveSerializer._declared_fields["from"] = serializers.IntegerField(
    help_text="The column the card is taken from, from 0 (a reserve card: the column count "
    "plus its slot): send it as the move's `from` when two copies of the card could move."
)


class HintsSerializer(serializers.Serializer[Any]):
    """Judged only on what the player can see: the same visible table always gets the same
    answer, whatever the face-down cards and the stock's order."""

    version = serializers.IntegerField()
    moves = HintMoveSerializer(many=True, help_text="Every legal move, best first.")
    deal = serializers.BooleanField(help_text="Whether the stock can still be dealt.")


class VariantSerializer(serializers.Serializer[Any]):
    """One game of the Scorpion family: its layout and its rules in brief (docs/rules.md)."""

    name = serializers.CharField(help_text='What `variant` says, e.g. "wasp".')
    title = serializers.CharField(help_text='For people, e.g. "Wasp".')
    decks = serializers.IntegerField(help_text="1, or 2 for Double Scorpion (104 cards).")
    columns = serializers.IntegerField(help_text="Columns of the tableau (7 or 10).")
    column_sizes = serializers.ListField(
        child=serializers.IntegerField(), help_text="Cards dealt to each column, left to right."
    )
    face_down = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Of which face down, at the bottom of each column.",
    )
    stock = serializers.IntegerField(
        help_text="Cards kept back in the stock, dealt once (one to each of the first columns)."
    )
    reserve = serializers.IntegerField(
        help_text="Face-up reserve cards that may be played onto the columns (a game's "
        "`reserve`); a move takes reserve card i from column `columns + i`."
    )
    build = serializers.ChoiceField(
        choices=["suit", "alternate"],
        help_text="suit: a card goes on the next higher card of its suit; alternate: of the "
        "other colour.",
    )
    empty_column = serializers.ChoiceField(
        choices=["king", "any"], help_text="What may go to an empty column: a King, or any card."
    )
    summary = serializers.CharField(help_text="How it is laid out and played, in words.")


class DailySerializer(serializers.Serializer[Any]):
    date = serializers.DateField()
    game = serializers.UUIDField(allow_null=True, help_text="The caller's latest attempt.")
    status = serializers.CharField(allow_null=True, help_text="The latest attempt's status.")
    ranked_game = serializers.UUIDField(
        allow_null=True,
        help_text="The caller's first attempt of the day, the only one that ranks; later "
        "attempts are practice.",
    )
    ranked_status = serializers.CharField(allow_null=True, help_text="The ranked attempt's status.")
    solved = serializers.BooleanField(help_text="Some attempt of the day, practice included, won.")
    ranked_available = serializers.BooleanField(
        help_text="A new attempt today would rank: false once the caller has had the day's "
        "ranked attempt, even if its game was deleted since (with the caller's data or "
        "account)."
    )
    attempts = serializers.IntegerField()
    deal_ready = serializers.BooleanField(help_text="The day's deal is already certified.")
    difficulty = serializers.ChoiceField(
        choices=DifficultyBand.choices,
        allow_null=True,
        help_text="The day's difficulty band, announced before play like its being winnable "
        "(docs/difficulty.md); null until the deal is certified and rated.",
    )
    difficulty_score = serializers.IntegerField(
        allow_null=True, help_text="The day's difficulty score, 0 (easiest) to 100 (hardest)."
    )


class ActionNamedSerializer(serializers.Serializer[Any]):
    """A move or a deal, named as a command names it."""

    # What an analysis's winning line and the winning chances share; ``copy`` and ``from``
    # are added by ``with_origin``, each with its own help.

    type = serializers.CharField(help_text='"move" or "deal".')
    card = serializers.CharField(required=False, help_text="Moves only: the card to move.")
    to = serializers.IntegerField(required=False, help_text="Moves only: the 0-based column.")


def with_origin(serializer: type[ActionNamedSerializer], *, copy: str, origin: str) -> None:
    """Adds the fields that tell two copies of a card apart: ``copy`` and ``from`` ("from" is a
    Python keyword, so it cannot be declared as a class attribute), each with its help."""
    fields = serializer._declared_fields
    named = {name: fields.pop(name) for name in ("type", "card", "to")}
    rest = dict(fields)
    fields.clear()
    fields.update(named)
    fields["copy"] = serializers.ChoiceField(choices=list(COPIES), required=False, help_text=copy)
    fields.update(rest)
    # After the rest, where it has always been in the schema.
    fields["from"] = serializers.IntegerField(required=False, help_text=origin)


class AnalysisCommandSerializer(ActionNamedSerializer):
    """A command of the winning line, to send as it is."""


with_origin(
    AnalysisCommandSerializer,
    copy="Moves only, where both copies of the card lie face up in the column it leaves: which "
    "one moves, as a command's `copy`.",
    origin="Moves in the variants other than Scorpion: the column the card is taken from (a "
    "reserve card: the column count plus its slot), to send as the move's `from`.",
)


class AnalysisStepSerializer(serializers.Serializer[Any]):
    command = AnalysisCommandSerializer(help_text="A command of the winning line.")
    columns = ColumnSerializer(many=True, help_text="The table after the command.")
    stock = serializers.IntegerField()
    collected = serializers.ListField(child=serializers.CharField())
    variant = serializers.ChoiceField(
        choices=variant_choices(),
        required=False,
        help_text="The variants other than Scorpion: which one (the table is drawn as theirs).",
    )
    reserve = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Three Blind Mice: the face-up reserve cards after the command.",
    )


class DifficultyMeasuresSerializer(serializers.Serializer[Any]):
    """What a deal's score is computed from (docs/difficulty.md, "Measures")."""

    first_actions = serializers.IntegerField(help_text="Legal first actions.")
    first_actions_won = serializers.IntegerField(
        help_text="First actions after which the solver still finds a win."
    )
    first_action_share = serializers.FloatField(help_text="first_actions_won / first_actions.")
    line_length = serializers.IntegerField(help_text="Actions of the certificate's winning line.")
    solver_nodes = serializers.IntegerField(help_text="Positions the certification searched.")
    playouts = serializers.IntegerField(help_text="Games played by the simple hint policy.")
    playout_wins = serializers.IntegerField()
    playout_win_rate = serializers.FloatField(help_text="playout_wins / playouts.")


class DealDifficultySerializer(serializers.Serializer[Any]):
    """A certified deal's difficulty with the measures behind it: only in the analysis, which
    is served once the deal is revealed (docs/difficulty.md, "Fair play")."""

    band = serializers.ChoiceField(choices=DifficultyBand.choices, help_text="The band now.")
    score = serializers.IntegerField(help_text="0 (easiest) to 100 (hardest), in force now.")
    model_score = serializers.IntegerField(help_text="The formula's score from the measures.")
    games = serializers.IntegerField(
        help_text="Players' games blended into score by the calibration (0: the model's alone)."
    )
    measures = DifficultyMeasuresSerializer()


class AnalysisSerializer(serializers.Serializer[Any]):
    """The solver's post-game analysis (docs/api.md, "Analysis")."""

    status = serializers.CharField(help_text='Always "ready" (202 answers "pending").')
    game = serializers.UUIDField()
    version = serializers.IntegerField(help_text="The game's last version, the one analysed.")
    deal = serializers.ChoiceField(
        choices=SolverVerdict.choices,
        help_text="Was the deal winnable from the start: won, lost, or unknown (the solver's "
        "budget ran out first; never a guess).",
    )
    outcome = serializers.ChoiceField(choices=AnalysisOutcome.choices)
    last_winnable_version = serializers.IntegerField(
        allow_null=True,
        help_text="Outcomes slipped and ended_winnable: the last version from which a win "
        "was still possible.",
    )
    losing_event = EventSerializer(
        allow_null=True,
        help_text="Outcome slipped: the event right after last_winnable_version, which lost "
        "the game (a move, a deal or a redo).",
    )
    line_version = serializers.IntegerField(
        allow_null=True,
        help_text="The version the winning line starts from: last_winnable_version, or 0 (the "
        "deal) for a won game. Null when no line is known.",
    )
    line = AnalysisStepSerializer(
        many=True, help_text="A winning line from line_version, with the table after each step."
    )
    solver_nodes = serializers.IntegerField()
    node_budget = serializers.IntegerField(help_text="Positions the solver may visit per call.")
    created_at = serializers.DateTimeField()
    difficulty = DealDifficultySerializer(
        allow_null=True,
        help_text="Daily and winnable deals: the deal's difficulty and its measures; null "
        "for other deals and deals not rated yet.",
    )


class AnalysisPendingSerializer(serializers.Serializer[Any]):
    status = serializers.CharField(help_text='Always "pending": a worker is on it.')
    game = serializers.UUIDField()
    retry_after = serializers.IntegerField(help_text="Seconds to wait before asking again.")


class ActionChanceSerializer(ActionNamedSerializer):
    """A legal action and its estimated winning chance."""

    chance = serializers.FloatField(
        help_text="Share of the sampled deals still won after this action, 0 to 1 (an "
        "undecided sample counts as not won)."
    )
    low = serializers.FloatField(help_text="95% confidence interval (Wilson): lower bound.")
    high = serializers.FloatField(help_text="95% confidence interval (Wilson): upper bound.")
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    undecided = serializers.IntegerField(help_text="Samples the solver's budget left open.")
    samples = serializers.IntegerField()


with_origin(
    ActionChanceSerializer,
    copy="Moves only, where both copies of the card lie face up in its column: which one (send "
    "it as the move's `copy`), as hints name it.",
    origin="Moves only: the column the card is taken from, from 0 (a reserve card: the column "
    "count plus its slot), as hints name it; it tells two copies of a card apart (send it as "
    "the move's `from`). Chances stored before it was added lack it.",
)


class ChancesSerializer(serializers.Serializer[Any]):
    """Winning chances per legal action (docs/api.md, "Winning chances"): estimated from the
    visible table only, by solving many deals drawn among those consistent with what the player
    has seen; the real face-down cards and stock never enter."""

    status = serializers.CharField(help_text='Always "ready" (202 answers "pending").')
    game = serializers.UUIDField()
    version = serializers.IntegerField(help_text="The version the chances are for.")
    samples = serializers.IntegerField(
        help_text="Deals sampled: at most 200 (computed on request without the compiled "
        "solver, 50), fewer where the answer's work budget ran out first."
    )
    node_budget = serializers.IntegerField(help_text="Positions the solver may visit per sample.")
    actions = ActionChanceSerializer(many=True, help_text="Every legal action, best chance first.")


class ChancesPendingSerializer(serializers.Serializer[Any]):
    status = serializers.CharField(
        help_text='"pending": a worker is on it. Answering a POST only: "ready" (GET serves '
        'them), or "on_request" (no worker is running: GET computes them, with fewer samples).'
    )
    game = serializers.UUIDField()
    version = serializers.IntegerField(help_text="The version being computed.")
    retry_after = serializers.IntegerField(help_text="Seconds to wait before asking again.")
