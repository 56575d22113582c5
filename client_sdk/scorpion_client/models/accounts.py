"""The signed-in account, and a session of the account's own."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from scorpion_client.models._fields import (
    _extra,
    _mapping,
    _opt_datetime,
    _opt_str,
    _str,
)

# The card faces the web client draws for the account (docs/api.md, PATCH /api/v1/me/).
Deck = Literal["classic", "four_colour"]


@dataclass
class Me:
    """The signed-in account; ``guest``: made by "Play now" in a browser, not signed up yet;
    ``display_name``: the name on leaderboards ("" shows the masked e-mail); ``language``: the
    language the account reads the site in when signed in with its browser session ("en",
    "fr", or "" for the browser's own). The SDK itself speaks English: it sends no
    ``Accept-Language``, so the server's ``detail`` words reach it in English; ``deck``: the
    card faces the web client draws (``"classic"`` or ``"four_colour"``)."""

    id: int | str
    email: str
    date_joined: dt.datetime | None = None
    guest: bool = False
    display_name: str = ""
    language: str = ""
    deck: Deck = "classic"
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Me:
        raw_id = data["id"]
        if not isinstance(raw_id, int | str) or isinstance(raw_id, bool):
            raise TypeError(f"expected an id, got {raw_id!r}")
        return cls(
            id=raw_id,
            email=_opt_str(data.get("email")) or "",
            date_joined=_opt_datetime(data.get("date_joined")),
            guest=data.get("guest") is True,
            display_name=_opt_str(data.get("display_name")) or "",
            language=_opt_str(data.get("language")) or "",
            deck=_deck(data.get("deck")),
            extra=_extra(
                data, ("id", "email", "date_joined", "guest", "display_name", "language", "deck")
            ),
        )


@dataclass
class Session:
    """A signed-in session of the allauth ``app`` client: ``token`` goes in
    ``X-Session-Token``; ``user`` is allauth's description of the account. The token is a
    secret: ``repr()`` leaves it out (it would end up in logs)."""

    token: str = field(repr=False)
    user: dict[str, Any] = field(default_factory=dict)

    @property
    def email(self) -> str | None:
        email = self.user.get("email")
        return email if isinstance(email, str) else None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Session:
        meta = _mapping(data["meta"])
        body = data.get("data")
        user = body.get("user") if isinstance(body, Mapping) else None
        return cls(
            token=_str(meta["session_token"]),
            user=dict(user) if isinstance(user, Mapping) else {},
        )


def _deck(value: Any) -> Deck:
    """The account's deck; one this SDK does not know yet (a newer server's) reads as the
    classic one, which every client can draw."""
    return value if value in get_args(Deck) else "classic"
