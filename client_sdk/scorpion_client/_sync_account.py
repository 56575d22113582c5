"""The signed-in player (``client.me``: the account, its feed, apps, tokens and data) and
their statistics (``client.stats``).

This file is generated from ``_async_account.py`` by ``scripts/unasync.py``.
"""

# Generated from its _async twin by client_sdk/scripts/unasync.py: do not edit, edit that
# one and run `make unasync` (`make test` checks that the two agree).

from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from scorpion_client._core import Ops, StreamOptions
from scorpion_client.models import FeedEvent, Me, Stats
from scorpion_client.progress import Achievements

if TYPE_CHECKING:
    from scorpion_client._sync import Scorpion


class MeResource:
    """The signed-in account and the data stored about it."""

    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def get(self) -> Me:
        return self._client.request(Ops.me())

    def stream(
        self, *, last_event_id: str | None = None, options: StreamOptions | None = None
    ) -> Iterator[FeedEvent]:
        """The player's feed, live: ``GameCreated``, ``GameEnded`` and ``DailyResult`` as
        they happen on any device (``FeedResync``: too much was missed, read your lists
        again). Resumes by itself after a dropped connection; never ends by itself."""
        return self._client.follow(Ops.me_stream(), last_event_id=last_event_id, options=options)

    def set_display_name(self, name: str) -> Me:
        """The name leaderboards show instead of the masked e-mail (``""``: back to it).
        A session of the player's own only: no app token may change it."""
        return self._client.request(Ops.me_update(display_name=name))

    def apps(self) -> builtins.list[dict[str, Any]]:
        """The third-party apps holding a live token of the caller: ``client_id``, ``name``,
        ``scopes``, ``authorised_at``, ``suspended``."""
        return self._client.request(Ops.me_apps())

    def revoke_app(self, client_id: str) -> None:
        """Every token the app holds for the caller dies at once (its next call is a 401)."""
        self._client.request(Ops.me_app_revoke(client_id))

    def tokens(self) -> builtins.list[dict[str, Any]]:
        """The caller's personal access tokens: ``id``, ``name``, ``scopes``, ``created_at``,
        ``expires_at`` (never the tokens themselves)."""
        return self._client.request(Ops.me_tokens())

    def create_token(
        self, name: str, scopes: Sequence[str], *, days: int | None = None
    ) -> dict[str, Any]:
        """A personal access token for the player's own scripts, with these scopes, for 7,
        30, 90 or 365 ``days`` (None: until revoked). Its ``token`` is in this answer only:
        use it as ``Scorpion(token=..., token_type="bearer")``. A session of the player's own
        only."""
        return self._client.request(Ops.me_token_create(name=name, scopes=scopes, days=days))

    def revoke_token(self, token_id: int) -> None:
        """The personal access token stops working at once (its next call is a 401)."""
        self._client.request(Ops.me_token_revoke(token_id))

    def export(self) -> dict[str, Any]:
        """Everything stored about the caller, as the server's JSON."""
        return self._client.request(Ops.me_export())

    def delete_data(self) -> dict[str, int]:
        """Remove the caller's games and statistics; the account stays. Returns how many
        rows of each kind were removed (``{"games": 3, "events": 40, ...}``)."""
        return self._client.request(Ops.me_delete_data())

    def delete_account(self) -> dict[str, int]:
        """Close the account (every session ends, all data goes); the client forgets its
        token. Returns how many rows of each kind were removed."""
        deleted = self._client.request(Ops.me_delete())
        self._client.token = None
        return deleted


class StatsResource:
    def __init__(self, client: Scorpion) -> None:
        self._client = client

    def get(self) -> Stats:
        """The caller's statistics."""
        return self._client.request(Ops.stats())

    def achievements(self) -> Achievements:
        """The caller's achievements (earned ones with their date and game) and badges."""
        return self._client.request(Ops.achievements())
