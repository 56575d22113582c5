"""Telling every open screen what changed: the messages of the live streams (``payloads``),
published on commit (``publish``) through the fan-out hub (``hub``: Redis pub/sub, or in-process
without Redis). The services publish through here; the stream server (games.streams) holds the
connections and subscribes through the same hub. Below the services, above the presentation:
it renders with games.presentation and never imports a service."""
