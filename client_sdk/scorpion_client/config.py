"""Where the terminal client keeps its tokens: one per server URL, in a file readable by its
owner only (0600), in a directory only its owner can enter (0700): ``$SCORPION_CONFIG``, else
``$XDG_CONFIG_HOME/scorpion/token``, else ``~/.config/scorpion/token``.

A server's entry is a session token (``scorpion login --password``, ``scorpion signup``), or
an OAuth token from the device flow (``scorpion login``): the access token, its refresh token,
when it expires and the client id that refreshes it. A refresh rewrites the entry, since each
refresh spends the refresh token it used."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorpion_client.oauth import OAuthToken

__all__ = ["StoredToken", "TokenStore", "default_config_path"]


def default_config_path() -> Path:
    explicit = os.environ.get("SCORPION_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "scorpion" / "token"


def _key(url: str) -> str:
    return url.rstrip("/")


@dataclass(frozen=True)
class StoredToken:
    """A server's entry: a session token, or an OAuth token and its client id."""

    session: str | None = None
    oauth: OAuthToken | None = None
    client_id: str | None = None

    def __repr__(self) -> str:
        kind = "oauth" if self.oauth is not None else "session"
        return f"StoredToken({kind}, client_id={self.client_id!r})"

    def to_json(self) -> str | dict[str, Any]:
        if self.oauth is None:
            return self.session or ""
        return {"type": "bearer", "client_id": self.client_id, **self.oauth.to_json()}

    @classmethod
    def from_json(cls, value: Any) -> StoredToken | None:
        if isinstance(value, str):
            return cls(session=value) if value else None
        if isinstance(value, dict) and isinstance(value.get("access_token"), str):
            client_id = value.get("client_id")
            return cls(
                oauth=OAuthToken.from_stored(value),
                client_id=client_id if isinstance(client_id, str) else None,
            )
        return None


class TokenStore:
    """A JSON file ``{"tokens": {"<server url>": "<session token>" | {OAuth token}}}``. A
    file holding just a token (written by hand) is read as the session token for every
    server."""

    def __init__(self, path: Path | None = None) -> None:
        self.explicit = path is not None or bool(os.environ.get("SCORPION_CONFIG"))
        self.path = path if path is not None else default_config_path()

    def _read(self) -> tuple[dict[str, Any], str | None]:
        try:
            text = self.path.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return {}, None
        if not text:
            return {}, None
        try:
            data = json.loads(text)
        except ValueError:
            return {}, text  # a bare token
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(tokens, dict):
            return {}, None
        return {str(k): v for k, v in tokens.items()}, None

    def entry(self, url: str) -> StoredToken | None:
        tokens, bare = self._read()
        if _key(url) in tokens:
            return StoredToken.from_json(tokens[_key(url)])
        return StoredToken(session=bare) if bare else None

    def get(self, url: str) -> str | None:
        """The session token for ``url`` (None for none, or for an OAuth entry)."""
        entry = self.entry(url)
        return entry.session if entry is not None else None

    def set(self, url: str, token: str | None) -> None:
        """Keep a session token for ``url`` (None: forget the entry)."""
        self.save(url, StoredToken(session=token) if token else None)

    def set_oauth(self, url: str, token: OAuthToken, client_id: str) -> None:
        self.save(url, StoredToken(oauth=token, client_id=client_id))

    def save(self, url: str, entry: StoredToken | None) -> None:
        tokens, _bare = self._read()
        if entry is None:
            tokens.pop(_key(url), None)
        else:
            tokens[_key(url)] = entry.to_json()
        self._make_directory()
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"tokens": tokens}, handle, indent=2, sort_keys=True)
            handle.write("\n")
        with contextlib.suppress(OSError):
            os.chmod(tmp, 0o600)  # whatever the umask, or a file left with other modes
        os.replace(tmp, self.path)

    def _make_directory(self) -> None:
        """The directory: made 0700; the default one (``.../scorpion/``, ours alone) is set
        back to 0700 if it was opened up. A directory the user named is left as it is."""
        directory = self.path.parent
        existed = directory.is_dir()
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not existed or not self.explicit:
            with contextlib.suppress(OSError):
                os.chmod(directory, 0o700)
