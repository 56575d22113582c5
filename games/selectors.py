"""Reads of games: lookups scoped to their owner, the log, and positions rebuilt from it."""

from __future__ import annotations

import datetime
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from allauth.account.models import EmailAddress
from django.contrib.auth.models import User
from django.db import connection, connections
from django.db.models import Count, ForeignKey, Q, QuerySet, Sum
from django.http import Http404
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext

from games import archive, history
from games.engine.actions import Move
from games.engine.hints import Hint, ranked_hints
from games.engine.position import Position
from games.engine.resolve import Copy, copy_of
from games.history import GameState
from games.models import (
    PLAYED,
    SNAPSHOT_INTERVAL,
    DailyDeal,
    Game,
    GameAnalysis,
    GameEvent,
    GameMode,
    GameSnapshot,
    GameStatus,
    RankedDailyClaim,
    WinnableDeal,
)
from games.variants import deal_state
from infrastructure.db_routing import read_alias


def game_get(*, owner: User, game_id: UUID) -> Game:
    """The owner's game. Another player's game is indistinguishable from a missing one."""
    if connection.vendor == "postgresql":
        game = _game_row(game_id=game_id, owner_id=owner.pk)
    else:
        game = Game.objects.filter(pk=game_id, owner=owner).first()
    if game is None:
        raise Http404(gettext("no such game"))
    return game


@functools.cache
def _game_select() -> tuple[str, tuple[str, ...], tuple[Any, ...]]:
    """The SELECT of one game by id and owner, its attribute names and each column's
    converter (or None): built once per process from the model."""
    fields = Game._meta.concrete_fields
    quote = connection.ops.quote_name
    columns = ", ".join(quote(str(field.column)) for field in fields)
    owner = Game._meta.get_field("owner")
    assert isinstance(owner, ForeignKey)
    statement = (
        f"SELECT {columns} FROM {quote(Game._meta.db_table)} "
        f"WHERE {quote(str(Game._meta.pk.column))} = %s AND {quote(owner.column)} = %s"
    )
    converters = tuple(getattr(field, "from_db_value", None) for field in fields)
    return statement, tuple(field.attname for field in fields), converters


def _game_row(*, game_id: UUID, owner_id: int) -> Game | None:
    """``Game.objects.filter(pk=..., owner=...).first()`` without building the query each
    time: the ORM spends about 2 ms of CPU compiling it, the query itself 0.1 ms. The most
    frequent read of the service (every command and every read of a game), on PostgreSQL;
    other databases use the ORM."""
    statement, names, converters = _game_select()
    # The replica inside a view whose reads may lag (infrastructure/db_routing.py), as the
    # ORM's reads there; else the primary.
    database = connections[read_alias()]
    with database.cursor() as cursor:
        cursor.execute(statement, [game_id, owner_id])
        row = cursor.fetchone()
    if row is None:
        return None
    values = [
        value if convert is None or value is None else convert(value, None, database)
        for value, convert in zip(row, converters, strict=True)
    ]
    return Game.from_db(database.alias, list(names), values)


def game_list(
    *,
    owner: User,
    status: str | None = None,
    mode: str | None = None,
    variant: str | None = None,
    id_prefix: str | None = None,
) -> QuerySet[Game]:
    """``owner``'s games, newest first; ``id_prefix``, lower-case hex digits (the id without
    its hyphens), keeps those whose id starts with them."""
    games = Game.objects.filter(owner=owner)
    if id_prefix:
        # A range of the primary key, not a text match: it reads the index, and means the same
        # on PostgreSQL (uuids compare byte by byte) and SQLite (32 lower-case hex digits).
        games = games.filter(
            id__gte=UUID(id_prefix.ljust(32, "0")), id__lte=UUID(id_prefix.ljust(32, "f"))
        )
    if status:
        games = games.filter(status=status)
    if mode:
        games = games.filter(mode=mode)
    if variant:
        games = games.filter(variant=variant)
    # The app of each game, for its representation (played_by_app), in the same query.
    return games.select_related("app").order_by("-created_at", "-pk")


def owner_archived_events_count(*, user_id: int) -> int:
    """The events in the archive files of the player's games: each archived game's version
    (its log is events 1 to it), with no file read."""
    total = Game.objects.filter(owner_id=user_id, archived_at__isnull=False).aggregate(
        total=Sum("version")
    )["total"]
    return int(total or 0)


def game_events(*, game: Game, after: int = 0) -> list[GameEvent]:
    """The events after version ``after`` up to the game's version when it was read, oldest
    first: from the table, or from the archive for an archived game (games.archive)."""
    return archive.game_events_between(game=game, after=after, stop=game.version)


def game_events_page(*, game: Game, after: int, limit: int) -> list[GameEvent]:
    """Up to ``limit`` events with ``seq > after``, oldest first: one range read of the
    (game, seq) index, the same cost at event 10 or 20,000 (an archived game's from its
    file)."""
    return archive.game_events_between(game=game, after=after, stop=after + limit)


def game_events_window(*, game: Game, first: int, last: int) -> list[GameEvent]:
    """The events with ``first <= seq <= last`` (within the game's version), oldest first."""
    return archive.game_events_between(game=game, after=first - 1, stop=last)


def game_events_all(*, game: Game, chunk: int = 1000) -> Iterator[GameEvent]:
    """Every event up to the game's version when it was read, read from the database in
    chunks: memory stays flat however long the log. One range read of the (game, seq) index
    per chunk, not a server-side cursor, which a pooler in transaction mode cannot keep (its
    next fetch could reach another server session); the log is append-only, so the chunks
    read at different moments are still one log. An archived game's log is read (and
    checked) here, before the first event is taken, so a broken archive is an error of the
    request, not of a response half sent."""
    if game.archived_at is not None:
        return iter(archive.archived_events(game=game))
    return _events_in_chunks(game, chunk)


def _events_in_chunks(game: Game, chunk: int) -> Iterator[GameEvent]:
    after = 0
    while after < game.version:
        events = archive.game_events_between(game=game, after=after, stop=after + chunk)
        if not events:
            return
        yield from events
        after = events[-1].seq


def game_state(*, game: Game) -> GameState:
    """The state now, from the stored projection."""
    return GameState.from_dict(game.state)


def game_state_at(*, game: Game, version: int, from_deal: bool = False) -> GameState:
    """The state after the first ``version`` events: the projection for the current version,
    else the nearest snapshot at or before ``version`` (from the deal if there is none) plus
    the events after it, so at most ``SNAPSHOT_INTERVAL`` folds however long the log.

    ``from_deal`` folds the whole log from the deal instead, trusting no derived data (the
    staff's replay viewer, which shows what the log says)."""
    if not 0 <= version <= game.version:
        raise Http404(gettext("the game has versions 0 to %(last)d") % {"last": game.version})
    if from_deal:
        state = deal_state(game.deal_code, game.variant)
        for event in archive.game_events_between(game=game, after=0, stop=version):
            state = history.fold_event(state, event.type, event.payload)
        return state
    if version == game.version:
        return GameState.from_dict(game.state)
    states = list(game_states(game=game, start=version, stop=version))
    if not states:
        # The log was erased after the game was read (the player deleted their data from
        # another device): the game is gone, not broken.
        raise Http404(gettext("no such game"))
    *_, (_, state, _) = states
    return state


def game_states(
    *, game: Game, start: int, stop: int
) -> Iterator[tuple[int, GameState, GameEvent | None]]:
    """The states of versions ``start`` to ``stop`` (both included, within the game's
    versions), each with the event that led to it (None for version 0), from the nearest
    snapshot at or before ``start`` plus the events after it: two reads, and at most
    ``SNAPSHOT_INTERVAL + stop - start`` folds however long the log.

    A game older than snapshots has none: a fold that passes a multiple of the interval
    stores the snapshot there (computed lazily, cached in the database; racing readers insert
    the same rows, and the unique constraint keeps one of each). An archived game has neither
    snapshots nor events in the table: its states are folded from the deal over its archived
    log (read once per request), and no snapshot is stored."""
    if game.archived_at is not None:
        yield from _archived_states(game=game, start=start, stop=stop)
        return
    base = (
        GameSnapshot.objects.filter(game=game, version__lte=start)
        .order_by("-version")
        .values_list("version", "state")
        .first()
    )
    if base is None:
        version, state = 0, deal_state(game.deal_code, game.variant)
    else:
        version, state = base[0], GameState.from_dict(base[1])
    if version == start == 0:
        yield 0, state, None
    # From the snapshot's own event when the first state wanted is the snapshot's.
    first = version if version == start else version + 1
    # Through the archive's reader: a game archived since it was read is read from its file.
    events = archive.game_events_between(game=game, after=max(first, 1) - 1, stop=stop)
    missing: list[GameSnapshot] = []
    for event in events:
        if event.seq > version:
            state = history.fold_event(state, event.type, event.payload)
            # Between the nearest snapshot and ``start`` there is none: store it.
            if event.seq % SNAPSHOT_INTERVAL == 0 and event.seq <= start:
                missing.append(GameSnapshot(game=game, version=event.seq, state=state.to_dict()))
        if event.seq >= start:
            yield event.seq, state, event
    if missing and game.archived_at is None:
        GameSnapshot.objects.bulk_create(missing, ignore_conflicts=True)


def _archived_states(
    *, game: Game, start: int, stop: int
) -> Iterator[tuple[int, GameState, GameEvent | None]]:
    state = deal_state(game.deal_code, game.variant)
    if start == 0:
        yield 0, state, None
    for event in archive.game_events_between(game=game, after=0, stop=stop):
        state = history.fold_event(state, event.type, event.payload)
        if event.seq >= start:
            yield event.seq, state, event


@dataclass(frozen=True, slots=True)
class HintsView:
    hints: list[Hint]
    can_deal: bool
    # The column each move's card is taken from (0-based; reserve card i is column count
    # + i), in the order of ``hints``: what a two-deck move needs as ``from``.
    sources: tuple[int | None, ...] = ()
    # Which of two copies face up in its column each move's card is ("upper" or "lower"),
    # None where its column says it (``games.engine.resolve.copy_of``): the move's ``copy``.
    copies: tuple[Copy | None, ...] = ()


def game_hints(*, game: Game) -> HintsView:
    """Every legal choice, best first, judged only on what the player can see (the engine's
    ``ranked_hints``): nothing here may depend on a face-down card or the stock's order, so
    no solver verdict either. Computed on each request (a fraction of a millisecond), so
    hints never wait on a worker and are never stale. A finished game has none."""
    if game.is_finished:
        return HintsView([], can_deal=False)
    position = game_state(game=game).position
    hints = ranked_hints(position)
    sources = tuple(
        card_source(position, hint.action.card) if isinstance(hint.action, Move) else None
        for hint in hints
    )
    copies = tuple(
        copy_of(position, hint.action.card) if isinstance(hint.action, Move) else None
        for hint in hints
    )
    return HintsView(hints, can_deal=bool(position.stock), sources=sources, copies=copies)


def card_source(position: Position, card: int) -> int | None:
    """The column a face-up card lies in (0-based), or, for a reserve card, the column count
    plus its slot; None if it is not face up. Exact card ints: in two decks each copy has its
    own."""
    for index, column in enumerate(position.columns):
        if card in column[position.hidden[index] :]:
            return index
    reserve: tuple[int, ...] = getattr(position, "reserve", ())
    if card in reserve:
        return len(position.columns) + reserve.index(card)
    return None


@dataclass(frozen=True, slots=True)
class DailySummary:
    date: datetime.date
    game: Game | None
    ranked_game: Game | None
    solved: bool
    attempts: int
    deal_ready: bool
    # The day's band and score, announced before play (docs/difficulty.md, "Fair play"); the
    # measures behind them are not part of the summary.
    difficulty: str | None = None
    difficulty_score: int | None = None
    # Whether a new attempt today would rank: False once the player has had the day's ranked
    # attempt, even if its game was deleted since (games.models.RankedDailyClaim).
    ranked_available: bool = True


def ranked_identities(*, owner: User) -> list[str]:
    """Who the player is for "one ranked daily attempt a day", in ways a deletion cannot
    change (``RankedDailyClaim``): their account (its id and when it joined, so that a
    reused id on SQLite is another account), and each of their e-mail addresses, normalised
    (trimmed, case folded, a ``+tag`` of the local part dropped: one mailbox, one identity),
    so an account deleted and made again with the same address is the same player. A guest
    has no e-mail: its account alone. Each is a keyed hash (HMAC with the server's
    SECRET_KEY): the ledger holds no address, and cannot be turned back into one."""
    values = [f"user:{owner.pk}:{owner.date_joined.isoformat()}"]
    addresses = {
        owner.email,
        *EmailAddress.objects.filter(user=owner).values_list("email", flat=True),
    }
    for address in sorted(filter(None, (_normalised_email(email) for email in addresses))):
        values.append(f"email:{address}")
    return [
        salted_hmac("games.ranked_identity", value, algorithm="sha256").hexdigest()
        for value in values
    ]


def _normalised_email(email: str) -> str:
    local, at, domain = email.strip().casefold().rpartition("@")
    if not at:
        return ""
    return f"{local.partition('+')[0]}@{domain}"


def ranked_attempt_had(*, owner: User, day: datetime.date, identities: list[str]) -> bool:
    """Whether the player has had the day's ranked attempt: a claim of one of their identities
    (it outlives their games), or a ranked game of the day (begun before claims existed)."""
    return (
        RankedDailyClaim.objects.filter(identity__in=identities, day=day).exists()
        or Game.objects.filter(
            owner=owner, mode=GameMode.DAILY, daily_date=day, ranked=True
        ).exists()
    )


def daily_summary(*, owner: User, day: datetime.date) -> DailySummary:
    """The player's standing on a day's challenge: their latest attempt, their ranked (first)
    attempt, whether any attempt was won, and whether a new attempt would still rank."""
    attempts = Game.objects.filter(owner=owner, mode=GameMode.DAILY, daily_date=day)
    latest = attempts.order_by("-created_at", "-pk").first()
    deal = DailyDeal.objects.filter(date=day).values("difficulty_band", "difficulty_score").first()
    return DailySummary(
        date=day,
        game=latest,
        ranked_game=attempts.filter(ranked=True).first(),
        solved=attempts.filter(status=GameStatus.WON).exists(),
        attempts=attempts.count(),
        deal_ready=deal is not None,
        difficulty=(deal["difficulty_band"] or None) if deal else None,
        difficulty_score=deal["difficulty_score"] if deal else None,
        ranked_available=not ranked_attempt_had(
            owner=owner, day=day, identities=ranked_identities(owner=owner)
        ),
    )


@dataclass(frozen=True, slots=True)
class AnalysisView:
    analysis: GameAnalysis
    # The full position the winning line starts from (None without a line).
    line_start: Position | None
    losing_event: GameEvent | None
    # The certified deal played, with its difficulty and measures (daily and winnable games).
    deal: DailyDeal | WinnableDeal | None = None


def game_analysis_view(*, game: Game, analysis: GameAnalysis) -> AnalysisView:
    """What the analysis answer shows besides the stored row: the position its line starts
    from and the event that lost the game."""
    line_start = None
    if analysis.line_version is not None and analysis.line:
        line_start = game_state_at(game=game, version=analysis.line_version).position
    losing_event = None
    if analysis.outcome == "slipped" and analysis.last_winnable_version is not None:
        seq = analysis.last_winnable_version + 1
        losing_event = next(
            iter(archive.game_events_between(game=game, after=seq - 1, stop=seq)), None
        )
    return AnalysisView(analysis, line_start, losing_event, certified_deal(game=game))


def certified_deal(*, game: Game) -> DailyDeal | WinnableDeal | None:
    """The certified deal a daily or winnable game was dealt (None for other modes, or if it
    left the pool)."""
    if game.mode == GameMode.DAILY and game.daily_date is not None:
        return DailyDeal.objects.filter(date=game.daily_date, deal_code=game.deal_code).first()
    if game.mode == GameMode.WINNABLE:
        return WinnableDeal.objects.filter(deal_code=game.deal_code).first()
    return None


# --- Difficulty bands ---


@dataclass(frozen=True, slots=True)
class BandFigures:
    band: str
    deals: int  # certified deals (daily and winnable) rated in the band
    games: int  # first attempts played on deals announced in the band
    won: int

    @property
    def win_rate(self) -> float | None:
        return round(self.won / self.games, 4) if self.games else None


@dataclass(frozen=True, slots=True)
class BandSummary:
    rows: list[BandFigures]
    unrated: int


def difficulty_bands() -> BandSummary:
    """Every player's results per difficulty band (staff: the management command, the
    dashboard): the band each game was announced in (``Game.difficulty``), first attempts only
    (a daily's ranked attempt, a winnable game that is not a restart; no known_deal), played as the
    statistics count them (won, resigned, or abandoned after a move)."""
    deals: dict[str, int] = {}
    unrated = 0
    for model in (DailyDeal, WinnableDeal):
        for band, count in (
            model.objects.order_by()
            .values("difficulty_band")
            .annotate(n=Count("pk"))
            .values_list("difficulty_band", "n")
        ):
            if band:
                deals[band] = deals.get(band, 0) + count
            else:
                unrated += count
    first = (
        Q(mode=GameMode.DAILY, ranked=True) | Q(mode=GameMode.WINNABLE, restarted_from__isnull=True)
    ) & Q(known_deal=False)  # played knowing the deal: says nothing of how hard it is
    results: dict[str, tuple[int, int]] = {
        row["difficulty"]: (row["n"], row["won"])
        for row in Game.objects.filter(PLAYED & first)
        .exclude(difficulty="")
        .order_by()
        .values("difficulty")
        .annotate(n=Count("pk"), won=Count("pk", filter=Q(status=GameStatus.WON)))
    }
    rows = [
        BandFigures(band, deals.get(band, 0), *results.get(band, (0, 0)))
        for band in ("easy", "medium", "hard")
    ]
    return BandSummary(rows, unrated)
