"""Where the terminal client keeps session tokens: one per server URL, in a file readable by
its owner only (``$SCORPION_CONFIG``, else ``$XDG_CONFIG_HOME/scorpion/token``, else
``~/.config/scorpion/token``)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

__all__ = ["TokenStore", "default_config_path"]


def default_config_path() -> Path:
    explicit = os.environ.get("SCORPION_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "scorpion" / "token"


def _key(url: str) -> str:
    return url.rstrip("/")


class TokenStore:
    """A JSON file ``{"tokens": {"<server url>": "<session token>"}}``. A file holding just a
    token (written by hand) is read as the token for every server."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else default_config_path()

    def _read(self) -> tuple[dict[str, str], str | None]:
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
        return {str(k): str(v) for k, v in tokens.items() if isinstance(v, str)}, None

    def get(self, url: str) -> str | None:
        tokens, bare = self._read()
        return tokens.get(_key(url), bare)

    def set(self, url: str, token: str | None) -> None:
        tokens, _bare = self._read()
        if token is None:
            tokens.pop(_key(url), None)
        else:
            tokens[_key(url)] = token
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"tokens": tokens}, handle, indent=2, sort_keys=True)
            handle.write("\n")
        with contextlib.suppress(OSError):
            os.chmod(tmp, 0o600)
        os.replace(tmp, self.path)
