"""The stream server's fixtures (tests/streams), for the feed's social notices."""

from tests.asgi_server import asgi_server
from tests.streams.conftest import make_player, player, streams

__all__ = ["asgi_server", "make_player", "player", "streams"]
