"""Reading a ``text/event-stream`` (Server-Sent Events): lines in, events out."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ServerSentEvent:
    """One event of a ``text/event-stream``: ``data`` is None for a block that only set an id
    or a retry delay."""

    event: str
    data: str | None
    id: str | None
    retry: int | None


class SSEDecoder:
    """Lines of an event stream in, events out (the parts of the WHATWG rules the API uses:
    ``id``, ``event``, ``data`` over one or more lines, ``retry``, ``:`` comments)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._event: str | None = None
        self._data: list[str] = []
        self._id: str | None = None
        self._retry: int | None = None
        self._seen = False

    def feed(self, line: str) -> ServerSentEvent | None:
        if line == "":
            if not self._seen:
                return None
            event = ServerSentEvent(
                event=self._event or "message",
                data="\n".join(self._data) if self._data else None,
                id=self._id,
                retry=self._retry,
            )
            self._reset()
            return event
        if line.startswith(":"):
            return None  # a comment
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        self._seen = True
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)
        return None
