"""The caller's games (``client.games``: create, list, read, play, hints, history, replay)
and the handle on one game (``AsyncGameHandle``), which plays it and keeps its fields up to
date.

This module is the source of ``_sync_games.py``, which ``scripts/unasync.py`` writes from it.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import AsyncIterator
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from scorpion_client._core import GameRef, Ops, StreamOptions
from scorpion_client.errors import VersionConflict
from scorpion_client.models import (
    Analysis,
    Chances,
    Command,
    CommandResult,
    Copy,
    CreateMode,
    Difficulty,
    Event,
    Game,
    GameMode,
    GameStatus,
    GameStreamEvent,
    GameUpdate,
    Hints,
    Page,
    Variant,
)

if TYPE_CHECKING:
    from scorpion_client._async import AsyncScorpion


class AsyncGamesResource:
    """The caller's games: create, list, read, play (commands), hints, history, replay."""

    def __init__(self, client: AsyncScorpion) -> None:
        self._client = client

    async def create(
        self,
        *,
        mode: CreateMode | None = None,
        seed: int | None = None,
        code: str | None = None,
        pysol_number: int | None = None,
        variant: Variant | None = None,
        difficulty: Difficulty | None = None,
        date: str | None = None,
    ) -> AsyncGameHandle:
        """A new game: random (no argument, or ``mode="random"``), the deal of a ``seed``, a
        deal ``code`` (104 characters, 208 for Double Scorpion), a PySolFC ``pysol_number``,
        ``mode="daily"`` (today's challenge) or ``mode="winnable"`` (a deal the solver proved
        winnable). ``variant`` picks the game of the Scorpion family (default Scorpion; see
        ``client.variants()``); a seed or code is read in it; the daily and winnable modes
        are Scorpion only. With ``mode="winnable"``, ``difficulty`` (``"easy"``, ``"medium"``
        or ``"hard"``) draws a deal of that band (docs/difficulty.md); none of it ready raises
        ``ServiceUnavailable`` (``difficulty_unavailable``). With ``mode="daily"``, ``date``
        (``YYYY-MM-DD``, up to 365 days back) plays a past day's daily late: practice, never
        ranked (docs/api.md, "The daily calendar"). Safe to retry: a create whose
        answer was lost is re-sent with the same ``Idempotency-Key``, and the server answers
        with the game the first one made."""
        spec = Ops.games_create(
            mode=mode,
            seed=seed,
            code=code,
            pysol_number=pysol_number,
            variant=variant,
            difficulty=difficulty,
            date=date,
        )
        return self.handle(await self._client.request(spec))

    async def list(
        self,
        *,
        status: GameStatus | None = None,
        mode: GameMode | None = None,
        page: int | None = None,
        page_size: int | None = None,
        variant: Variant | None = None,
        id_prefix: str | None = None,
    ) -> Page[Game]:
        """One page of the caller's games, newest first (of one ``variant`` if given; with
        ``id_prefix``, 4 to 32 hex digits, only those whose id without its hyphens starts
        with them: ``"6e495f3a"``)."""
        spec = Ops.games_list(
            status=status,
            mode=mode,
            variant=variant,
            id_prefix=id_prefix,
            page=page,
            page_size=page_size,
        )
        return await self._client.request(spec)

    async def iter_all(
        self,
        *,
        status: GameStatus | None = None,
        mode: GameMode | None = None,
        page_size: int = 100,
        variant: Variant | None = None,
        id_prefix: str | None = None,
    ) -> AsyncIterator[Game]:
        """Every game of the caller, newest first, fetching page after page as needed."""
        spec = Ops.games_list(
            status=status, mode=mode, variant=variant, id_prefix=id_prefix, page_size=page_size
        )
        async for page in self._client.iter_pages(spec):
            for game in page.results:
                yield game

    async def get(self, game: GameRef) -> AsyncGameHandle:
        return self.handle(await self._client.request(Ops.games_get(game)))

    def handle(self, game: Game) -> AsyncGameHandle:
        """A handle on a game already fetched (e.g. from ``list``), without a request."""
        return AsyncGameHandle(self, game)

    async def command(
        self,
        game: GameRef,
        command: Command,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CommandResult:
        """Send a command (``{"type": "move", "card": "8H"}``, ``{"type": "deal"}``, ...).

        ``expected_version``: apply only if the game is still at that version, else
        ``VersionConflict``. ``idempotency_key``: defaults to a new UUID, reused by every retry
        of this call, so that the command is applied once.
        """
        spec = Ops.games_command(
            game, command, expected_version=expected_version, idempotency_key=idempotency_key
        )
        return await self._client.request(spec)

    async def move(
        self,
        game: GameRef,
        card: str,
        to: int | None = None,
        *,
        from_: int | None = None,
        copy: Copy | None = None,
        expected_version: int | None = None,
    ) -> CommandResult:
        """Move ``card`` (and everything on it). ``to`` (0-based) picks the empty column for a
        King; otherwise the destination is found by the server. ``from_`` (0-based) picks
        the column the card is taken from: needed only in the two-deck variants when copies
        of the card in two columns could move (the server answers ``ambiguous`` otherwise);
        ``copy`` ("upper", the default, or "lower") which of two copies in that column."""
        command = Ops.move_command(card, to, from_, copy)
        return await self.command(game, command, expected_version=expected_version)

    async def deal(self, game: GameRef, *, expected_version: int | None = None) -> CommandResult:
        return await self.command(game, {"type": "deal"}, expected_version=expected_version)

    async def undo(self, game: GameRef, *, expected_version: int | None = None) -> CommandResult:
        return await self.command(game, {"type": "undo"}, expected_version=expected_version)

    async def redo(self, game: GameRef, *, expected_version: int | None = None) -> CommandResult:
        return await self.command(game, {"type": "redo"}, expected_version=expected_version)

    async def resign(self, game: GameRef, *, expected_version: int | None = None) -> CommandResult:
        return await self.command(game, {"type": "resign"}, expected_version=expected_version)

    async def hints(self, game: GameRef) -> Hints:
        return await self._client.request(Ops.games_hints(game))

    async def analysis(self, game: GameRef, *, wait: float = 60.0) -> Analysis:
        """The solver's analysis of a finished game. While a worker computes it (202), ask
        again after ``retry_after`` seconds, for at most ``wait`` seconds; then the pending
        answer is returned (``Analysis.ready`` is False). Raises ``ConflictError`` while the
        game is on (``game_not_finished``) or its daily deal is secret (``deal_not_revealed``).
        """
        deadline = time.monotonic() + wait
        while True:
            answer = await self._client.request(Ops.games_analysis(game))
            pause = float(answer.retry_after or 1)
            if answer.ready or time.monotonic() + pause > deadline:
                return answer
            await self._client._wait(pause)

    async def chances(self, game: GameRef, *, wait: float = 60.0) -> Chances:
        """Winning chances per legal action, if every card were known (a solver's wins over
        deals drawn to match the visible table: a player seeing only the table wins less
        often), counted as a hint, once per version. While a
        worker computes them (202), ask again after ``retry_after`` seconds, for at most
        ``wait`` seconds; then the pending answer is returned (``Chances.ready`` is False).
        Raises ``ConflictError`` once the game is over (``game_finished``)."""
        deadline = time.monotonic() + wait
        while True:
            answer = await self._client.request(Ops.games_chances(game))
            pause = float(answer.retry_after or 1)
            if answer.ready or time.monotonic() + pause > deadline:
                return answer
            await self._client._wait(pause)

    async def prepare_chances(self, game: GameRef) -> Chances:
        """Have the chances of the current version computed in the background, without
        serving them (nothing is counted): ``status`` says "pending" or "ready"."""
        return await self._client.request(Ops.games_chances_prepare(game))

    async def events(self, game: GameRef) -> builtins.list[Event]:
        return [event async for event in self.iter_events(game)]

    async def iter_events(
        self, game: GameRef, *, after: int = 0, page_size: int = 100
    ) -> AsyncIterator[Event]:
        spec = Ops.games_events(game, after=after or None, limit=page_size)
        async for page in self._client.iter_pages(spec):
            for event in page.results:
                yield event

    async def export_events(self, game: GameRef) -> builtins.list[Event]:
        return await self._client.request(Ops.games_events_export(game))

    async def state(self, game: GameRef, version: int) -> Game:
        """The game as it stood after ``version`` events (0: the deal)."""
        return await self._client.request(Ops.games_state(game, version))

    async def replay(
        self, game: GameRef, *, start: int = 0, stop: int | None = None, page_size: int = 50
    ) -> AsyncIterator[Game]:
        spec = Ops.games_states(game, start=start, limit=page_size)
        async for page in self._client.iter_pages(spec):
            for state in page.results:
                if stop is not None and state.version > stop:
                    return
                yield state

    async def result(self, game: GameRef) -> dict[str, Any]:
        """What a finished game meant: time and moves against the player's bests, a first
        win, the streak, a ranked daily's rank, the next daily (docs/api.md)."""
        return await self._client.request(Ops.games_result(game))

    async def restart(self, game: GameRef) -> AsyncGameHandle:
        """A new game with the same deal (safe to retry, as ``create``)."""
        return self.handle(await self._client.request(Ops.games_restart(game)))

    def stream(
        self,
        game: GameRef,
        *,
        since: int | None = None,
        last_event_id: str | None = None,
        options: StreamOptions | None = None,
    ) -> AsyncIterator[GameStreamEvent]:
        """Follow a game live: a ``GameUpdate`` for every command accepted from now on, from
        any device (after version ``since``; without it, first a ``GameResync`` with the whole
        game). A dropped connection is opened again and resumes after the last version seen,
        so each version comes exactly once. Ends when the game is won or resigned."""
        return self._client.follow(
            Ops.game_stream(game, since), last_event_id=last_event_id, options=options
        )


class AsyncGameHandle(Game):
    """A game bound to the client: its fields are the latest state the client knows, and its
    methods play it, updating those fields from each answer.

    Commands send the known ``version`` as ``expected_version`` (``check_version=True``), so a
    move chosen on a stale picture (another device played meanwhile) is refused with
    ``VersionConflict`` rather than applied; the handle then holds the current game.
    """

    last_event: Event | None

    def __init__(self, games: AsyncGamesResource, game: Game) -> None:
        self._games = games
        self.last_event = None
        self._update(game)

    def _update(self, game: Game) -> None:
        for f in fields(Game):
            setattr(self, f.name, getattr(game, f.name))

    async def _command(self, command: Command, check_version: bool) -> Event:
        try:
            result = await self._games.command(
                self.id, command, expected_version=self.version if check_version else None
            )
        except VersionConflict as conflict:
            current = conflict.current_game
            if current is not None:
                self._update(current)
            raise
        self._update(result.game)
        self.last_event = result.event
        return result.event

    async def move(
        self,
        card: str,
        to: int | None = None,
        *,
        from_: int | None = None,
        copy: Copy | None = None,
        check_version: bool = True,
    ) -> Event:
        """Move ``card`` (``"8H"``, any case). ``to`` (0-based): the empty column for a King.
        ``from_`` (0-based): the column the card is taken from, when two copies could move
        (two-deck variants; a hint's ``from_`` says it); ``copy``: which of two copies in that
        column ("upper" or "lower"; a hint's ``copy`` says it)."""
        return await self._command(Ops.move_command(card, to, from_, copy), check_version)

    async def deal(self, *, check_version: bool = True) -> Event:
        return await self._command({"type": "deal"}, check_version)

    async def undo(self, *, check_version: bool = True) -> Event:
        return await self._command({"type": "undo"}, check_version)

    async def redo(self, *, check_version: bool = True) -> Event:
        return await self._command({"type": "redo"}, check_version)

    async def resign(self, *, check_version: bool = True) -> Event:
        return await self._command({"type": "resign"}, check_version)

    async def hints(self) -> Hints:
        return await self._games.hints(self.id)

    async def analysis(self, *, wait: float = 60.0) -> Analysis:
        return await self._games.analysis(self.id, wait=wait)

    async def chances(self, *, wait: float = 60.0) -> Chances:
        return await self._games.chances(self.id, wait=wait)

    async def prepare_chances(self) -> Chances:
        return await self._games.prepare_chances(self.id)

    async def events(self) -> builtins.list[Event]:
        return await self._games.events(self.id)

    async def state_at(self, version: int) -> Game:
        return await self._games.state(self.id, version)

    def replay(self) -> AsyncIterator[Game]:
        """The positions after 0, 1, ... ``version`` events: the whole game, step by step."""
        return self._games.replay(self.id, stop=self.version)

    async def refresh(self) -> AsyncGameHandle:
        """Fetch the game again (a conditional GET: nothing is sent back if unchanged)."""
        spec = Ops.games_get_if_changed(self.id, self.version)
        current = await self._games._client.request(spec)
        if current is not None:
            self._update(current)
        return self

    async def restart(self) -> AsyncGameHandle:
        """A new game with the same deal (this handle stays on the old game)."""
        return await self._games.restart(self.id)

    async def stream(
        self, *, options: StreamOptions | None = None
    ) -> AsyncIterator[GameStreamEvent]:
        """Follow this game live, from the version this handle holds: each event (a
        ``GameUpdate``, or a ``GameResync`` after a long absence) also brings the handle up to
        date, so a move made on another device is in its fields at once. Resumes by itself
        after a dropped connection; ends when the game is over."""
        async for item in self._games.stream(self.id, since=self.version, options=options):
            if item.version >= self.version:
                self._update(item.game)
                if isinstance(item, GameUpdate):
                    self.last_event = item.event
            yield item
