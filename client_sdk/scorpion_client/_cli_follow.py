"""Following the game being played, so that a move made on another device is drawn at once."""

from __future__ import annotations

import threading

from scorpion_client import _sync
from scorpion_client._cli_base import CliBase
from scorpion_client._cli_texts import ended_elsewhere
from scorpion_client._core import StreamOptions
from scorpion_client._sync import GameHandle
from scorpion_client.errors import ScorpionError
from scorpion_client.models import GameUpdate
from scorpion_client.render import describe_event, render_game


class Follower:
    """Follows the game being played on its stream, in a thread of its own, and draws it again
    when it changes elsewhere (another device, another terminal).

    The lock is held by the main loop while one of its own commands is on its way, so the
    follower sees the handle after that command's answer: an event of the handle's own version
    or older is this terminal's own doing and is not drawn twice.
    """

    def __init__(self, cli: CliBase, game: GameHandle, lock: threading.Lock) -> None:
        self.cli = cli
        self.game = game
        self.lock = lock
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="scorpion-follow", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        # A client of its own, used and closed by this thread only (an httpx client must not
        # be closed under a request of another thread).
        source = self.cli.client
        client = _sync.Scorpion(self.cli.url, token=source.token, token_type=source.token_type)
        # One set of credentials for both clients: a refresh made by either (which spends the
        # refresh token) is the other's too.
        client.credentials = source.credentials
        client._refresh_lock = source._refresh_lock
        options = StreamOptions(stop=self.stopped.is_set)
        try:
            stream = client.games.stream(self.game.id, since=self.game.version, options=options)
            for update in stream:
                with self.lock:
                    if update.version <= self.game.version:
                        continue
                    self.game._update(update.game)
                    if isinstance(update, GameUpdate):
                        self.game.last_event = update.event
                    self._draw(update)
        except ScorpionError:
            pass  # a server without streams, or gone: play goes on as before, unfollowed
        finally:
            client.close()

    def _draw(self, update: object) -> None:
        console = self.cli.console
        console.print()
        what = (
            describe_event(update.event) if isinstance(update, GameUpdate) else "the game changed"
        )
        console.print(f"[magenta]Played on another device:[/magenta] {what}")
        console.print(render_game(self.game))
        if self.game.is_finished:
            console.print(ended_elsewhere(self.game))
            # Not "restart" after an abandon: it would abandon the new game in turn.
            again = "" if self.game.status == "abandoned" else ", or restart to play it again"
            console.print(f"(Enter to leave{again})")
        console.print("> ", end="")

    def stop(self) -> None:
        """The thread ends when anything next arrives (a heartbeat at the latest)."""
        self.stopped.set()
