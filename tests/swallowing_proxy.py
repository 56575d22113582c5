"""A TCP proxy that can swallow what the server sends without closing anything: what a
phone's dead connection looks like (a network change, a middlebox that drops the bytes). The
client's socket stays open and silent; only the client's own watch on the heartbeats can tell.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass


@dataclass
class _Connection:
    stream: bool = False  # it carried a request for an event stream
    swallowed: bool = False


class SwallowingProxy:
    """Forwards 127.0.0.1:``port`` to ``target_port`` (asyncio, in a thread of its own).
    ``swallow()``: the event streams open now stop receiving anything, and stay open; other
    connections (a browser's pooled ones, which it would reuse) and new ones pass as usual.
    ``opened``: how many connections were made through it."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.opened = 0
        # Requests for an event stream, on new connections or on pooled ones a client reuses.
        self.streams_requested = 0
        self._connections: list[_Connection] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._server: asyncio.Server | None = None

    def __enter__(self) -> SwallowingProxy:
        self._thread.start()
        assert self._ready.wait(10), "the proxy did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        async def shut() -> None:
            if self._server is not None:
                self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shut(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def swallow(self) -> None:
        """Returns once the proxy's loop has marked the streams: what the server sends after
        this call is swallowed (CI saw the next event pass when the mark ran late, on a busy
        machine, after the server had answered)."""

        async def mark() -> None:
            for connection in self._connections:
                connection.swallowed = connection.stream

        asyncio.run_coroutine_threadsafe(mark(), self._loop).result(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0)
        )
        self.port = int(self._server.sockets[0].getsockname()[1])
        self._ready.set()
        self._loop.run_forever()

    async def _serve(
        self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        self.opened += 1
        connection = _Connection()
        self._connections.append(connection)
        try:
            server_in, server_out = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            client_out.close()
            return

        async def pipe(
            source: asyncio.StreamReader, sink: asyncio.StreamWriter, downstream: bool
        ) -> None:
            with contextlib.suppress(OSError):
                while data := await source.read(65536):
                    if not downstream and b"/stream/" in data:
                        connection.stream = True
                        self.streams_requested += 1
                    if downstream and connection.swallowed:
                        continue  # dropped on the way: nothing reaches the client
                    sink.write(data)
                    await sink.drain()
            if not (downstream and connection.swallowed):
                sink.close()

        await asyncio.gather(
            pipe(client_in, server_out, downstream=False),
            pipe(server_in, client_out, downstream=True),
        )
