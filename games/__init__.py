"""Games: the engine, the event store and the game API."""
