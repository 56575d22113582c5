"""Live streams: Server-Sent Events of a game's log and of a player's feed.

- ``publish``: the on-commit hooks the services call when an event is appended or a game is
  created; they render the player's view once and hand it to the hub.
- ``hub``: fan-out from the process that committed to every process holding a stream, by
  Redis pub/sub, or in-process without Redis (the embedded default of ``make run``).
- ``gate``: the sync part of opening a stream (authentication, throttles, ownership, the cap
  on open streams, the backlog from the log), run through Django's ordinary middleware.
- ``app``: the ASGI application that serves the stream paths without a thread or a database
  connection per open stream, and hands every other path to Django.

The log stays the truth: a stream is the log from a version on, and anything lost on the way
(a publish during a Redis outage, a slow reader's overflow) is repaired from the log.
"""
