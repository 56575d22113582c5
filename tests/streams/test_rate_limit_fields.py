"""A stream's 200 carries the API's rate-limit fields (tests/api/test_rate_limit_headers.py):
it is opened by an ordinary API view (games/streams/gate.py), whose headers it keeps."""

from __future__ import annotations

from tests.api.conftest import Player
from tests.streams.conftest import Streams


def test_an_opened_stream_carries_the_fields_of_its_gate(streams: Streams, player: Player) -> None:
    response, _reader = streams.connect("/api/v1/me/stream/", player.token)
    assert response.status_code == 200
    limit = int(response.headers["RateLimit-Limit"])
    remaining = int(response.headers["RateLimit-Remaining"])
    assert limit >= 1
    assert 0 <= remaining < limit
    assert int(response.headers["RateLimit-Reset"]) >= 1
