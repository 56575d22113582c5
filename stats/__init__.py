"""Statistics and leaderboards derived from the game log."""
